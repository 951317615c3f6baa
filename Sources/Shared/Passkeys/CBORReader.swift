/// A strict reader of the RFC 8949 subset WebAuthn uses: unsigned and negative integers (within
/// Int64), byte and text strings, arrays, maps with integer or text keys, `false` and `true`.
/// Refused: tags, floats, other simple values, indefinite lengths, reserved additional
/// information, any integer, length or count not in its shortest form, duplicate map keys,
/// invalid UTF-8, and input past its `CBORLimits`. Each length and count is checked against what
/// remains of the input before anything is read or allocated for it, and recursion is bounded by
/// the depth limit. (W3C WebAuthn L3 section 5.9: decoders SHOULD reject CBOR not in CTAP2's
/// canonical form and SHOULD reject duplicate map keys; key order is the caller's choice, see
/// `CBORLimits.canonicalMapOrder`.)
public struct CBORReader {
    private let bytes: [UInt8]
    private var index: Int
    private let limits: CBORLimits
    private var items = 0

    private init(bytes: [UInt8], index: Int, limits: CBORLimits) {
        self.bytes = bytes
        self.index = index
        self.limits = limits
    }

    /// The input as exactly one data item: nothing may follow it.
    public static func decode(_ bytes: [UInt8], limits: CBORLimits) throws(CBORError) -> CBORValue {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge }
        var reader = CBORReader(bytes: bytes, index: 0, limits: limits)
        let value = try reader.item(depth: 0)
        guard reader.index == bytes.count else { throw .trailingBytes }
        return value
    }

    /// One data item starting at `start`, and the offset just past it; what follows belongs to
    /// the caller (a COSE key inside authenticator data, the extensions after it).
    public static func decodePrefix(_ bytes: [UInt8], from start: Int, limits: CBORLimits) throws(CBORError)
        -> (value: CBORValue, end: Int)
    {
        guard start >= 0, start < bytes.count else { throw .truncated }
        var reader = CBORReader(bytes: bytes, index: start, limits: limits)
        let value = try reader.item(depth: 0)
        guard reader.index - start <= limits.maxBytes else { throw .tooLarge }
        return (value, reader.index)
    }

    private var remaining: Int { bytes.count - index }

    private mutating func item(depth: Int) throws(CBORError) -> CBORValue {
        items += 1
        guard items <= limits.maxItems else { throw .tooManyItems }
        guard index < bytes.count else { throw .truncated }
        let initial = bytes[index]
        index += 1
        let major = initial >> 5
        let info = initial & 0x1F
        switch major {
        case 0:
            let n = try argument(info)
            guard n <= UInt64(Int64.max) else { throw .integerOutOfRange }
            return .integer(Int64(n))
        case 1:
            let n = try argument(info)
            guard n <= UInt64(Int64.max) else { throw .integerOutOfRange }
            return .integer(-1 - Int64(n))
        case 2:
            return .bytes(try string(length: try argument(info)))
        case 3:
            let raw = try string(length: try argument(info))
            guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8 }
            return .text(text)
        case 4:
            return .array(try array(count: try argument(info), depth: depth + 1))
        case 5:
            return .map(try map(count: try argument(info), depth: depth + 1))
        case 6:
            throw .tag
        default:
            return try simple(info)
        }
    }

    /// The head's argument in shortest form: a value below 24 lives in the head itself, and each
    /// longer form must need its width.
    private mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return try wide(1, above: 23)
        case 25: return try wide(2, above: 0xFF)
        case 26: return try wide(4, above: 0xFFFF)
        case 27: return try wide(8, above: 0xFFFF_FFFF)
        case 31: throw .indefiniteLength
        default: throw .reservedAdditionalInfo
        }
    }

    private mutating func wide(_ width: Int, above floor: UInt64) throws(CBORError) -> UInt64 {
        guard remaining >= width else { throw .truncated }
        var value: UInt64 = 0
        for _ in 0..<width {
            value = value << 8 | UInt64(bytes[index])
            index += 1
        }
        guard value > floor else { throw .nonShortestEncoding }
        return value
    }

    private mutating func string(length: UInt64) throws(CBORError) -> [UInt8] {
        guard length <= UInt64(remaining) else { throw .truncated }
        let end = index + Int(length)
        let out = Array(bytes[index..<end])
        index = end
        return out
    }

    /// Checks a declared count before reading any element: each element takes at least one byte
    /// and counts as an item.
    private func checkCount(_ count: UInt64, itemsEach: UInt64, depth: Int) throws(CBORError) -> Int {
        guard depth <= limits.maxDepth else { throw .tooDeep }
        guard count <= UInt64(limits.maxItems - items) / itemsEach else { throw .tooManyItems }
        guard count * itemsEach <= UInt64(remaining) else { throw .truncated }
        return Int(count)
    }

    private mutating func array(count declared: UInt64, depth: Int) throws(CBORError) -> [CBORValue] {
        let count = try checkCount(declared, itemsEach: 1, depth: depth)
        var elements: [CBORValue] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try item(depth: depth)) }
        return elements
    }

    private mutating func map(count declared: UInt64, depth: Int) throws(CBORError)
        -> [(key: CBORValue, value: CBORValue)]
    {
        let count = try checkCount(declared, itemsEach: 2, depth: depth)
        var entries: [(key: CBORValue, value: CBORValue)] = []
        entries.reserveCapacity(count)
        // Each key's encoded bytes: shortest forms make them one spelling per value, so equal
        // bytes are equal keys, and CTAP2's order is defined on them.
        var keys: [ArraySlice<UInt8>] = []
        keys.reserveCapacity(count)
        for _ in 0..<count {
            let start = index
            let key = try item(depth: depth)
            switch key {
            case .integer, .text: break
            default: throw .mapKeyType
            }
            let encoded = bytes[start..<index]
            for seen in keys where seen.elementsEqual(encoded) { throw .duplicateMapKey }
            if limits.canonicalMapOrder, let previous = keys.last, !CBOROrder.precedes(previous, encoded) {
                throw .mapKeyOrder
            }
            keys.append(encoded)
            entries.append((key, try item(depth: depth)))
        }
        return entries
    }

    private func simple(_ info: UInt8) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 25, 26, 27: throw .float
        case 28, 29, 30: throw .reservedAdditionalInfo
        case 31: throw .indefiniteLength
        default: throw .simpleValue
        }
    }
}

/// CTAP2's canonical order of map keys (FIDO CTAP 2.1 section 8, "CTAP2 canonical CBOR encoding
/// form"), on their encodings: the lower major type first, then the shorter encoding, then the
/// bytes in lexical order.
enum CBOROrder {
    static func precedes<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard let a0 = a.first, let b0 = b.first else { return a.isEmpty && !b.isEmpty }
        if a0 >> 5 != b0 >> 5 { return a0 >> 5 < b0 >> 5 }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}
