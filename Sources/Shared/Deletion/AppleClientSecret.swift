import COpenSSL

/// The `client_secret` Apple's token and revoke endpoints want: an ES256 JWT signed with the
/// team's Sign in with Apple key (the `.p8` file `apple.privateKeyFile` names), `iss` the team
/// id, `sub` the client id (the app's bundle id), `aud` Apple, and a short life (Apple allows six
/// months; one is made per revocation, so five minutes do).
enum AppleClientSecret {
    static let audience = "https://appleid.apple.com"
    static let lifetimeSeconds: Int64 = 300

    static func make(apple: Config.Apple, clientId: String, now: UnixTime) throws(FrontdoorError) -> String {
        guard let teamId = apple.teamId, let keyId = apple.keyId, let file = apple.privateKeyFile else {
            throw .internal("config: apple.teamId, apple.keyId and apple.privateKeyFile are needed to revoke")
        }
        guard var pem = FileIO.readFile(file, limit: 16 * 1024) else {
            throw .internal("config: apple.privateKeyFile: cannot be read")
        }
        defer { wipe(&pem) }
        let key = try TeamKey(pem: pem)
        let header = JSONValue.object([("alg", "ES256"), ("kid", .string(keyId))])
        let claims = JSONValue.object([
            ("iss", .string(teamId)), ("iat", .number(Double(now))), ("exp", .number(Double(now + lifetimeSeconds))),
            ("aud", .string(audience)), ("sub", .string(clientId)),
        ])
        let input = Base64URL.encode(Array(header.serialized.utf8)) + "."
            + Base64URL.encode(Array(claims.serialized.utf8))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
        }
    }
}

/// A P-256 private key read from PEM (PKCS#8, as Apple's `.p8` files are); freed in deinit.
final class TeamKey {
    private let pkey: OpaquePointer

    init(pem: [UInt8]) throws(FrontdoorError) {
        guard OpenSSLRuntime.start() else { throw .internal("apple key: OpenSSL unavailable") }
        defer { OpenSSLRuntime.clearErrors() }
        let read = PEMPrivateKey.read(pem)
        guard let read else { throw .internal("config: apple.privateKeyFile: not a PEM private key") }
        guard frontdoor_pkey_is_p256(read) == 1 else {
            EVP_PKEY_free(read)
            throw .internal("config: apple.privateKeyFile: not a P-256 (ES256) key")
        }
        pkey = read
    }

    deinit { EVP_PKEY_free(pkey) }

    /// ECDSA P-256 with SHA-256, as JWS's 64-byte r||s.
    func sign(_ message: [UInt8]) throws(FrontdoorError) -> [UInt8] {
        defer { OpenSSLRuntime.clearErrors() }
        guard let md = EVP_MD_CTX_new() else { throw .internal("apple key: EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(md) }
        guard EVP_DigestSignInit(md, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw .internal("apple key: EVP_DigestSignInit failed")
        }
        var length = 0
        guard EVP_DigestSign(md, nil, &length, message, message.count) == 1, length > 0 else {
            throw .internal("apple key: EVP_DigestSign (length) failed")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(md, &der, &length, message, message.count) == 1 else {
            throw .internal("apple key: EVP_DigestSign failed")
        }
        guard let raw = ECDSASignature.raw(fromDER: Array(der.prefix(length))) else {
            throw .internal("apple key: signature is not DER")
        }
        return raw
    }
}
