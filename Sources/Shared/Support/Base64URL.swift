/// base64url without padding (RFC 7515 section 2), strict: only the URL-safe alphabet, no
/// padding, no whitespace, and unused trailing bits must be zero, so each value has one spelling.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 {
                out.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
            }
            if let b2 {
                out.append(alphabet[Int(b2 & 0x3F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: Substring) -> [UInt8]? { decode(Array(text.utf8)) }
    public static func decode(_ text: String) -> [UInt8]? { decode(Array(text.utf8)) }

    public static func decode(_ chars: [UInt8]) -> [UInt8]? {
        if chars.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in chars {
            let v: UInt32
            switch c {
            case 0x41...0x5A: v = UInt32(c - 0x41)
            case 0x61...0x7A: v = UInt32(c - 0x61 + 26)
            case 0x30...0x39: v = UInt32(c - 0x30 + 52)
            case 0x2D: v = 62
            case 0x5F: v = 63
            default: return nil
            }
            buffer = buffer << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        guard buffer == 0 else { return nil }
        return out
    }
}

public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex, as Apple's nonce claim and our stored hashes use it.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
