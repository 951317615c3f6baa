/// Bytes written as text: lowercase hex (the nonce's hash) and base64url without padding (every
/// binary value of the passkey ceremonies, as `PublicKeyCredential.toJSON()` writes them).
enum ByteText {
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func base64URL<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let input = Array(bytes)
        var out: [UInt8] = []
        var i = 0
        while i < input.count {
            let n = min(3, input.count - i)
            var chunk = UInt32(input[i]) << 16
            if n > 1 { chunk |= UInt32(input[i + 1]) << 8 }
            if n > 2 { chunk |= UInt32(input[i + 2]) }
            for k in 0...n { out.append(alphabet[Int((chunk >> (18 - 6 * UInt32(k))) & 0x3F)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for anything but unpadded base64url (a trailing `=` is refused, as the server refuses it).
    static func fromBase64URL(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "-"): values.append(62)
            case UInt8(ascii: "_"): values.append(63)
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let n = min(4, values.count - i)
            var chunk: UInt32 = 0
            for k in 0..<4 { chunk = chunk << 6 | (k < n ? UInt32(values[i + k]) : 0) }
            for k in 0..<(n - 1) { out.append(UInt8(truncatingIfNeeded: chunk >> (16 - 8 * UInt32(k)))) }
            i += 4
        }
        // The unused low bits of the last character must be zero: one text for one value.
        guard base64URL(out) == text else { return nil }
        return out
    }
}
