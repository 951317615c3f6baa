/// JWS carries ES256 signatures as r||s (RFC 7518 section 3.4); OpenSSL verifies DER.
enum ECDSASignature {
    /// `SEQUENCE { INTEGER r, INTEGER s }` from a 64-byte r||s; nil for any other length or a
    /// zero r or s (never valid, and a zero-length INTEGER is not DER). Values at or above the
    /// group order are passed on for OpenSSL to refuse.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
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
}
