import COpenSSL

/// A verification key: RSA (2048 to 8192 bits) or EC P-256.
///
/// EC keys are an OpenSSL `EVP_PKEY` built through `EVP_PKEY_fromdata` from checked material. RSA
/// keys are their checked modulus and exponent, verified with OpenSSL's `BN_mod_exp` and a
/// comparison against the whole expected PKCS#1 v1.5 encoding (`RS256Verifier`): that keeps
/// OpenSSL's provider set-up, most of a sign-in's CPU time, off the request path.
/// Never changed after it is built, so one instance may verify on several threads at once (OpenSSL
/// 3 allows concurrent use of a read-only `EVP_PKEY`); hence `@unchecked Sendable`.
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
    /// EC keys only.
    private let pkey: OpaquePointer?
    /// RSA keys only: the modulus (its length is what an RS256 signature must match exactly).
    private let modulus: [UInt8]
    private let exponent: [UInt8]

    private init(pkey: OpaquePointer?, kind: Kind, modulus: [UInt8] = [], exponent: [UInt8] = []) {
        self.pkey = pkey
        self.kind = kind
        self.modulus = modulus
        self.exponent = exponent
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
        // No EVP_PKEY_public_check: for RSA it searches the modulus for small factors, 59 million
        // instructions (about 10 ms) a request for nothing a signature check needs.
        return PublicKey(pkey: nil, kind: .rsa(bits: bits), modulus: n, exponent: e)
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

        let key = PublicKey(pkey: try fromData(type: "EC", params: params), kind: .p256)
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
            return RS256Verifier.verify(signature: signature, message: message, modulus: modulus, exponent: exponent)
        case .es256:
            guard let pkey, let der = ECDSASignature.der(fromRaw: signature) else { return false }
            return digestVerify(pkey, der: der, message: message)
        }
    }

    private func digestVerify(_ pkey: OpaquePointer, der signature: [UInt8], message: [UInt8]) -> Bool {
        defer { OpenSSLRuntime.clearErrors() }
        guard let md = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(md) }
        var pctx: OpaquePointer?
        guard EVP_DigestVerifyInit(md, &pctx, EVP_sha256(), nil, pkey) == 1, pctx != nil else { return false }
        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(md, sig.baseAddress, sig.count, msg.baseAddress, msg.count)
            }
        }
        return result == 1
    }

    private func publicCheck() throws(TokenError) {
        defer { OpenSSLRuntime.clearErrors() }
        guard let pkey else { return }
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


    private static func failure(_ step: String) -> TokenError {
        OpenSSLRuntime.clearErrors()
        return .malformed("OpenSSL \(step) failed")
    }
}
