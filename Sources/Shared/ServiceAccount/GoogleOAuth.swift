/// An OAuth 2.0 access token for a service account, by the JWT bearer grant (RFC 7523) as
/// Google's own libraries make it (google-auth-library-python `google/oauth2/service_account.py`
/// and `_client.py`): an RS256 assertion `{iss: client_email, scope, aud: the token URL, iat,
/// exp: iat + 3600}`, posted as `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`.
/// The token is cached in the store (`Ephemeral.Kind.oauthToken`) for its life less a margin, so one is asked
/// for about once an hour at most, sealed (AES-256-GCM) under a key derived from the server key,
/// so a copy or backup of the store holds no usable token. Neither the assertion nor the token is
/// ever logged.
struct GoogleOAuth {
    /// Enough for `projects.accounts.delete` (its REST reference lists this scope or cloud-platform).
    static let scope = "https://www.googleapis.com/auth/identitytoolkit"
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// Google allows an assertion an hour at most.
    static let assertionLifetime: Int64 = 3600
    /// A cached token is dropped this long before Google's expiry, so none expires mid-call.
    static let expiryMargin: Int64 = 300

    let tokenUrl: String
    let account: ServiceAccount
    let client: HTTPClient
    let db: Database
    /// The server key (`DeletionAudit.key`); the cache's sealing key is derived from it.
    let serverKey: [UInt8]

    var cacheKey: String { tokenUrl + " " + account.clientEmail + " " + Self.scope }

    static func sealingKey(serverKey: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: serverKey, message: Array("frontdoor oauth token cache v1".utf8))
    }

    /// A cached token, or a new one. A cached one that does not open (another server key) is
    /// replaced like an expired one.
    func accessToken(now: UnixTime) throws(FrontdoorError) -> String {
        let key = Self.sealingKey(serverKey: serverKey)
        if let sealed = try Ephemeral.value(.oauthToken, key: Array(cacheKey.utf8), now: now, db: db),
            let opened = Sealed.open(sealed, key: key, associated: Array(cacheKey.utf8))
        {
            return String(decoding: opened, as: UTF8.self)
        }
        let (token, expiresIn) = try fetch(now: now)
        let until = now + max(60, expiresIn - Self.expiryMargin)
        let sealed = try Sealed.seal(Array(token.utf8), key: key, associated: Array(cacheKey.utf8))
        try Ephemeral.keep(.oauthToken, key: Array(cacheKey.utf8), value: sealed, until: until, db: db)
        return token
    }

    /// Drops the cached token (the API refused it: revoked, or the key was rotated).
    func forget() {
        _ = try? Ephemeral.remove(.oauthToken, key: Array(cacheKey.utf8), db: db)
    }

    /// The signed assertion for the token endpoint.
    func assertion(now: UnixTime) throws(FrontdoorError) -> String {
        try Self.assertion(account: account, tokenUrl: tokenUrl, now: now)
    }

    static func assertion(account: ServiceAccount, tokenUrl: String, now: UnixTime) throws(FrontdoorError) -> String {
        var header: [(String, JSONValue)] = [("alg", "RS256"), ("typ", "JWT")]
        if let keyId = account.keyId { header.append(("kid", .string(keyId))) }
        let claims = JSONValue.object([
            ("iss", .string(account.clientEmail)), ("scope", .string(scope)), ("aud", .string(tokenUrl)),
            ("iat", .number(Double(now))), ("exp", .number(Double(now + assertionLifetime))),
        ])
        let input = Base64URL.encode(Array(JSONValue.object(header).serialized.utf8)) + "."
            + Base64URL.encode(Array(claims.serialized.utf8))
        return input + "." + Base64URL.encode(try account.key.sign(Array(input.utf8)))
    }

    private func fetch(now: UnixTime) throws(FrontdoorError) -> (String, Int64) {
        let form = FormEncoding.encode([("grant_type", Self.grantType), ("assertion", try assertion(now: now))])
        let response = try client.send(HTTPRequest(
            method: "POST", url: tokenUrl, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(form.utf8)))
        guard response.status == 200 else {
            let detail = "oauth token: HTTP \(response.status) \(AppleAuthEndpoints.errorCode(response))"
            if response.status == 429 || response.status >= 500 { throw .upstream(detail) }
            throw .internal(detail + " (check firebase.serviceAccountFile)")
        }
        guard let json = try? JSONParser.parse(response.body), let token = json["access_token"]?.stringValue,
            !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .upstream("oauth token: 200 without an access_token") }
        // google-auth-library-python reads expires_in as a number or, from some services, a string.
        let expiresIn = json["expires_in"]?.int64Value ?? json["expires_in"]?.stringValue.flatMap { Int64($0) }
        guard let expiresIn, expiresIn > 0 else { throw .upstream("oauth token: 200 without expires_in") }
        return (token, min(expiresIn, 86_400))
    }
}
