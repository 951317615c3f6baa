import COpenSSL
import Shared

/// Makes signed tokens and key sets for tests and the loopback fakes.
public enum JWTMinter {
    /// Header `{"alg": key.algorithm, "kid": key.kid, "typ": "JWT"}`; a member of `extra` replaces
    /// the same-named one (to forge `alg`, say), others are appended.
    public static func mint(claims: [(String, JSONValue)], key: SigningKey, header extra: [(String, JSONValue)] = [])
        throws -> String
    {
        let base: [(String, JSONValue)] = [("alg", .string(key.algorithm)), ("kid", .string(key.kid)), ("typ", "JWT")]
        let header = mergingJSONMembers(base, extra)
        return try mint(rawHeader: JSONValue.object(header).serialized, rawClaims: JSONValue.object(claims).serialized,
                        key: key)
    }

    /// Signs the header and claims text exactly as given (duplicate members and all).
    public static func mint(rawHeader: String, rawClaims: String, key: SigningKey) throws -> String {
        let input = signingInput(rawHeader, rawClaims)
        let token = input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
        record(token, rawClaims)
        return token
    }

    /// An HS256 token with `secret` as the HMAC key: the key-confusion attack, where the secret is
    /// a public key the verifier holds.
    public static func mintHS256(rawHeader: String, rawClaims: String, secret: [UInt8]) throws -> String {
        guard OpenSSLRuntime.start() else { throw SigningKeyError(step: "init") }
        let input = signingInput(rawHeader, rawClaims)
        let message = Array(input.utf8)
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = HMAC(EVP_sha256(), secret, Int32(secret.count), message, message.count, &mac, &length)
        guard result != nil, length == 32 else { throw SigningKeyError(step: "HMAC") }
        let token = input + "." + Base64URL.encode(mac)
        record(token, rawClaims)
        return token
    }

    /// `{"keys":[...]}` JSON text with each key's public JWK.
    public static func jwks(_ keys: [SigningKey]) -> String {
        JSONValue.object([("keys", .array(keys.map { $0.publicJWK() }))]).serialized
    }

    /// For the log scan: the token and any email in its claims.
    private static func record(_ token: String, _ rawClaims: String) {
        guard TestLogs.directory != nil else { return }
        TestLogs.register(token)
        if let claims = try? JSONParser.parse(rawClaims) { TestLogs.registerEmails(in: claims) }
    }

    private static func signingInput(_ rawHeader: String, _ rawClaims: String) -> String {
        Base64URL.encode(Array(rawHeader.utf8)) + "." + Base64URL.encode(Array(rawClaims.utf8))
    }
}
