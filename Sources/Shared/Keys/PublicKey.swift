import COpenSSL

/// A verification key held by OpenSSL: RSA (2048 to 8192 bits) or EC P-256.
///
/// Built only through `EVP_PKEY_fromdata` from checked material and never changed afterwards, so
/// one instance may verify on several threads at once (OpenSSL 3 allows concurrent use of a
/// read-only `EVP_PKEY`); hence `@unchecked Sendable`.
public final class PublicKey: @unchecked Sendable {
    public enum Kind: Sendable, Equatable {
        case rsa(bits: Int)
        case p256
    }

    /// Smaller moduli are refused: NIST has disallowed them for signatures since 2013, and
    /// Google's and Apple's keys are 2048 bits.
    public static let minimumRSABits = 2048
    /// Larger moduli are refused so a hostile key set cannot make each verification slow.
    public static let maximumRSABits = 8192

    public let kind: Kind
    private let pkey: OpaquePointer
    /// RSA: the modulus length, which an RS256 signature must match exactly.
    private let modulusBytes: Int

    private init(pkey: OpaquePointer, kind: Kind, modulusBytes: Int) {
        self.pkey = pkey
        self.kind = kind
        self.modulusBytes = modulusBytes
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Whether this key is of the type `algorithm` needs (RSA for RS256, P-256 for ES256).
    public func fits(_ algorithm: JWSAlgorithm) -> Bool {
        switch (algorithm, kind) {
        case (.rs256, .rsa), (.es256, .p256): true
        default: false
        }
    }

    /// An RSA public key from the big-endian modulus and exponent (JWK `n`, `e`). Leading zero
    /// bytes are ignored. The modulus must be odd and 2048...8192 bits; the exponent odd, at least
    /// 3 and at most 64 bits (OpenSSL's own limit for large moduli).
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(TokenError) -> PublicKey {
        let n = Array(modulus.drop(while: { $0 == 0 }))
        let e = Array(exponent.drop(while: { $0 == 0 }))
        guard let top = n.first, let last = n.last, last & 1 == 1 else { throw .malformed("RSA modulus") }
        let bits = n.count * 8 - top.leadingZeroBitCount
        guard bits >= minimumRSABits else { throw .malformed("RSA modulus under \(minimumRSABits) bits") }
        guard bits <= maximumRSABits else { throw .malformed("RSA modulus over \(maximumRSABits) bits") }
        guard let eLast = e.last, e.count <= 8, eLast & 1 == 1, e != [1] else { throw .malformed("RSA exponent") }
        guard OpenSSLRuntime.start() else { throw .malformed("OpenSSL unavailable") }

        guard let bnN = bignum(n) else { throw failure("BN_bin2bn") }
        defer { BN_free(bnN) }
        guard let bnE = bignum(e) else { throw failure("BN_bin2bn") }
        defer { BN_free(bnE) }
        guard let bld = OSSL_PARAM_BLD_new() else { throw failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(bld) }
        guard OSSL_PARAM_BLD_push_BN(bld, frontdoor_param_rsa_n(), bnN) == 1,
            OSSL_PARAM_BLD_push_BN(bld, frontdoor_param_rsa_e(), bnE) == 1,
            let params = OSSL_PARAM_BLD_to_param(bld)
        else { throw failure("OSSL_PARAM_BLD") }
        defer { OSSL_PARAM_free(params) }

        let pkey = try fromData(type: "RSA", params: params)
        let key = PublicKey(pkey: pkey, kind: .rsa(bits: bits), modulusBytes: n.count)
        guard EVP_PKEY_get_bits(pkey) == Int32(bits), EVP_PKEY_get_size(pkey) == Int32(n.count) else {
            throw .malformed("RSA key size")
        }
        // No EVP_PKEY_public_check here: for RSA it tests the modulus for small factors, 59 million
        // instructions (about 10 ms) a request for nothing a signature check needs. EC keys keep it.
        return key
    }

    /// An EC P-256 public key from its affine coordinates (JWK `x`, `y`, exactly 32 bytes each).
    /// The point must be on the curve, in range and not the point at infinity.
    public static func p256(x: [UInt8], y: [UInt8]) throws(TokenError) -> PublicKey {
        guard x.count == 32, y.count == 32 else { throw .malformed("EC coordinates must be 32 bytes") }
        guard OpenSSLRuntime.start() else { throw .malformed("OpenSSL unavailable") }
        let point: [UInt8] = [0x04] + x + y
        guard let bld = OSSL_PARAM_BLD_new() else { throw failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(bld) }
        // The builder keeps the point's address until to_param copies it: both inside this closure.
        let built: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBufferPointer { buffer in
            guard OSSL_PARAM_BLD_push_utf8_string(bld, frontdoor_param_group(), frontdoor_group_p256(), 0) == 1,
                OSSL_PARAM_BLD_push_octet_string(bld, frontdoor_param_pub(), buffer.baseAddress, buffer.count) == 1
            else { return nil }
            return OSSL_PARAM_BLD_to_param(bld)
        }
        guard let params = built else { throw failure("OSSL_PARAM_BLD") }
        defer { OSSL_PARAM_free(params) }

        let key = PublicKey(pkey: try fromData(type: "EC", params: params), kind: .p256, modulusBytes: 0)
        try key.publicCheck()
        return key
    }

    /// Verifies `signature` over `message` with `algorithm`. False for a key of the wrong type,
    /// a signature of the wrong length (RS256: the modulus length; ES256: 64 bytes), a zero r or
    /// s, and any OpenSSL failure (fail closed).
    public func verify(_ algorithm: JWSAlgorithm, signature: [UInt8], message: [UInt8]) -> Bool {
        guard fits(algorithm) else { return false }
        switch algorithm {
        case .rs256:
            guard signature.count == modulusBytes else { return false }
            return digestVerify(der: signature, message: message, rsa: true)
        case .es256:
            guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
            return digestVerify(der: der, message: message, rsa: false)
        }
    }

    private func digestVerify(der signature: [UInt8], message: [UInt8], rsa: Bool) -> Bool {
        defer { OpenSSLRuntime.clearErrors() }
        guard let md = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(md) }
        var pctx: OpaquePointer?
        guard EVP_DigestVerifyInit(md, &pctx, EVP_sha256(), nil, pkey) == 1, let pctx else { return false }
        // PKCS#1 v1.5 is OpenSSL's default for RSA today; saying so keeps it from ever being PSS.
        if rsa, EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1 { return false }
        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(md, sig.baseAddress, sig.count, msg.baseAddress, msg.count)
            }
        }
        return result == 1
    }

    private func publicCheck() throws(TokenError) {
        defer { OpenSSLRuntime.clearErrors() }
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { throw PublicKey.failure("CTX_new") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_public_check(ctx) == 1 else { throw .malformed("public key check failed") }
    }

    private static func fromData(type: String, params: UnsafeMutablePointer<OSSL_PARAM>) throws(TokenError)
        -> OpaquePointer
    {
        defer { OpenSSLRuntime.clearErrors() }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw failure("CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_fromdata_init(ctx) == 1 else { throw failure("fromdata_init") }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata(ctx, &pkey, frontdoor_selection_public_key(), params) == 1, let pkey else {
            EVP_PKEY_free(pkey)
            throw .malformed("\(type) key refused by OpenSSL")
        }
        return pkey
    }

    private static func bignum(_ bytes: [UInt8]) -> OpaquePointer? {
        bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    }

    private static func failure(_ step: String) -> TokenError {
        OpenSSLRuntime.clearErrors()
        return .malformed("OpenSSL \(step) failed")
    }
}
