import COpenSSL

/// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 section 8.2.2), on OpenSSL's big-number arithmetic.
/// Nothing is parsed out of the decrypted block: the whole encoding we expect is built and compared,
/// so no padding or DigestInfo leniency can creep in (the Bleichenbacher-style forgeries that
/// lenient parsers accept). Checked by every Wycheproof RSA PKCS#1 SHA-256 vector.
enum RS256Verifier {
    /// DER of DigestInfo { AlgorithmIdentifier { sha256, NULL }, OCTET STRING (32 bytes) }, less the digest.
    static let digestInfoPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    ]

    static func verify(signature: [UInt8], message: [UInt8], modulus: [UInt8], exponent: [UInt8]) -> Bool {
        let k = modulus.count
        // The signature is exactly as long as the modulus; a DigestInfo needs 11 bytes of padding room.
        guard signature.count == k, k >= digestInfoPrefix.count + SHA256.byteCount + 11 else { return false }
        guard let digest = try? SHA256.digest(message) else { return false }
        guard let encoded = modularPower(signature, exponent, modulus) else { return false }
        var expected = [UInt8](repeating: 0xFF, count: k)
        expected[0] = 0x00
        expected[1] = 0x01
        let tail = digestInfoPrefix + digest
        expected[k - tail.count - 1] = 0x00
        expected.replaceSubrange((k - tail.count)..<k, with: tail)
        return encoded.withUnsafeBytes { a in
            expected.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, k) == 0 }
        }
    }

    /// signature^exponent mod modulus as k big-endian bytes; nil when the signature is not below
    /// the modulus (RFC 8017's "signature representative out of range") or OpenSSL fails.
    static func modularPower(_ signature: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) -> [UInt8]? {
        guard OpenSSLRuntime.start() else { return nil }
        defer { OpenSSLRuntime.clearErrors() }
        guard let context = BN_CTX_new() else { return nil }
        defer { BN_CTX_free(context) }
        guard let s = bignum(signature) else { return nil }
        defer { BN_free(s) }
        guard let e = bignum(exponent) else { return nil }
        defer { BN_free(e) }
        guard let n = bignum(modulus) else { return nil }
        defer { BN_free(n) }
        guard BN_cmp(s, n) < 0, let m = BN_new() else { return nil }
        defer { BN_free(m) }
        guard BN_mod_exp(m, s, e, n, context) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: modulus.count)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(m, $0.baseAddress, Int32($0.count)) }
        return written == Int32(modulus.count) ? out : nil
    }

    static func bignum(_ bytes: [UInt8]) -> OpaquePointer? {
        bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    }
}
