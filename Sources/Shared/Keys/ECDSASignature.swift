/// JWS carries ES256 signatures as r||s (RFC 7518 section 3.4); OpenSSL verifies, and WebAuthn
/// sends, DER.
public enum ECDSASignature {
    /// `SEQUENCE { INTEGER r, INTEGER s }` from a 64-byte r||s; nil for any other length or a
    /// zero r or s (never valid, and a zero-length INTEGER is not DER). Values at or above the
    /// group order are passed on for OpenSSL to refuse.
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let r = integer(raw[0..<32]), let s = integer(raw[32..<64]) else { return nil }
        // At most 2 * (2 + 33) = 70 content bytes: the short length form always fits.
        return [0x30, UInt8(r.count + s.count)] + r + s
    }

    /// A DER INTEGER for an unsigned big-endian value: minimal, with a 0x00 in front when the top
    /// bit is set so it does not read as negative.
    private static func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        let digits = bytes.drop(while: { $0 == 0 })
        guard let first = digits.first else { return nil }
        let body = first & 0x80 != 0 ? [0x00] + digits : Array(digits)
        return [0x02, UInt8(body.count)] + body
    }

    /// The 64-byte r||s of a DER `SEQUENCE { INTEGER r, INTEGER s }` for P-256; nil for anything
    /// else (long lengths, trailing bytes, negative or over-long integers).
    public static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard der.count >= 2, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var index = 2
        var out: [UInt8] = []
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            let start = index + 2
            guard length >= 1, length <= 33, start + length <= der.count, der[start] & 0x80 == 0 else { return nil }
            let digits = der[start..<(start + length)].drop(while: { $0 == 0 })
            guard digits.count <= 32 else { return nil }
            out += [UInt8](repeating: 0, count: 32 - digits.count) + digits
            index = start + length
        }
        return index == der.count ? out : nil
    }
}
