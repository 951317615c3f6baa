/// A decoded CBOR data item, of the kinds WebAuthn uses (RFC 8949 major types 0 to 5, and
/// `true`/`false`). Maps keep their entries in the order read; `CBORReader` refuses duplicate keys,
/// so a lookup by key is unambiguous.
public indirect enum CBORValue: Sendable, Equatable {
    /// Major types 0 and 1, within Int64 (the reader refuses the rest).
    case integer(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    case map([(key: CBORValue, value: CBORValue)])
    case bool(Bool)

    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): return a == b
        case let (.bytes(a), .bytes(b)): return a == b
        // Byte for byte: Swift's String equality would let canonically equivalent spellings match.
        case let (.text(a), .text(b)): return Array(a.utf8) == Array(b.utf8)
        case let (.array(a), .array(b)): return a == b
        case let (.map(a), .map(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.bool(a), .bool(b)): return a == b
        default: return false
        }
    }

    /// The value of the map entry whose key is the text `key`; nil for a missing key or a non-map.
    public subscript(text key: String) -> CBORValue? {
        guard case let .map(entries) = self else { return nil }
        let wanted = Array(key.utf8)
        for entry in entries {
            if case let .text(name) = entry.key, Array(name.utf8) == wanted { return entry.value }
        }
        return nil
    }

    /// The value of the map entry whose key is the integer `key` (COSE labels).
    public subscript(integer key: Int64) -> CBORValue? {
        guard case let .map(entries) = self else { return nil }
        for entry in entries where entry.key == .integer(key) { return entry.value }
        return nil
    }

    public var integerValue: Int64? {
        if case let .integer(n) = self { return n }
        return nil
    }

    public var bytesValue: [UInt8]? {
        if case let .bytes(b) = self { return b }
        return nil
    }

    public var textValue: String? {
        if case let .text(t) = self { return t }
        return nil
    }

    public var mapEntries: [(key: CBORValue, value: CBORValue)]? {
        if case let .map(entries) = self { return entries }
        return nil
    }
}
