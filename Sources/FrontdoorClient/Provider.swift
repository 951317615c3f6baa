/// A way into an account, as the server names it in `providers` and in a 403
/// `reauthentication_required`'s `methods`. A name this client does not know yet is kept as it came.
public struct Provider: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    public static let google = Provider(rawValue: "google")
    public static let apple = Provider(rawValue: "apple")
    public static let password = Provider(rawValue: "password")
    public static let passkey = Provider(rawValue: "passkey")
}
