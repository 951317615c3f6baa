import COpenSSL

/// An RSA private key read from PEM (PKCS#8, as a Google service account's `private_key` is),
/// for RS256 signatures; freed in deinit. Only the service-account path loads one, so OpenSSL's
/// provider set-up is paid by that rare path alone.
final class RSAPrivateKey {
    private let pkey: OpaquePointer

    init(pem: [UInt8], what: String) throws(FrontdoorError) {
        guard OpenSSLRuntime.start() else { throw .internal("\(what): OpenSSL unavailable") }
        defer { OpenSSLRuntime.clearErrors() }
        let read = PEMPrivateKey.read(pem)
        guard let read else { throw .internal("\(what): not a PEM private key") }
        guard EVP_PKEY_get_base_id(read) == EVP_PKEY_RSA, EVP_PKEY_get_bits(read) >= Int32(PublicKey.minimumRSABits)
        else {
            EVP_PKEY_free(read)
            throw .internal("\(what): not an RSA key of \(PublicKey.minimumRSABits) bits or more")
        }
        pkey = read
    }

    deinit { EVP_PKEY_free(pkey) }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS RS256).
    func sign(_ message: [UInt8]) throws(FrontdoorError) -> [UInt8] {
        defer { OpenSSLRuntime.clearErrors() }
        guard let md = EVP_MD_CTX_new() else { throw .internal("RSA key: EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(md) }
        var pctx: OpaquePointer?
        guard EVP_DigestSignInit(md, &pctx, EVP_sha256(), nil, pkey) == 1, let pctx else {
            throw .internal("RSA key: EVP_DigestSignInit failed")
        }
        guard EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1 else {
            throw .internal("RSA key: EVP_PKEY_CTX_set_rsa_padding failed")
        }
        var length = 0
        guard EVP_DigestSign(md, nil, &length, message, message.count) == 1, length > 0 else {
            throw .internal("RSA key: EVP_DigestSign (length) failed")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(md, &signature, &length, message, message.count) == 1, length <= signature.count else {
            throw .internal("RSA key: EVP_DigestSign failed")
        }
        return Array(signature.prefix(length))
    }
}
