/// A request body, built member by member (members that are nil are left out).
enum JSONBody: Encodable, Sendable {
    case null
    case string(String)
    case bool(Bool)
    case array([JSONBody])
    case object([(String, JSONBody?)])

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (name, value) in members {
                if let value { try container.encode(value, forKey: Key(name)) }
            }
        }
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}

extension JSONBody: ExpressibleByStringLiteral {
    init(stringLiteral value: String) { self = .string(value) }
}

extension Optional where Wrapped == JSONBody {
    static func text(_ value: String?) -> JSONBody? { value.map(JSONBody.string) }
}
