import Shared

/// Google's OAuth 2.0 token endpoint for a service account (the JWT bearer grant, RFC 7523), as
/// google-auth-library-python's `service_account.py` and `_client.py` use it: the form
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<RS256 JWT>`, the assertion's
/// `iss` the account's email, `aud` this endpoint, `scope` space-separated, `exp` at most an hour
/// after `iat`. It answers `{"access_token","expires_in","token_type"}` or `{"error":"invalid_grant"}`.
extension FakeFirebase {
    struct OAuthState {
        var tokenURL = ""
        /// The service account the test made: its email and the public half of its key.
        var account: (email: String, key: SigningKey)?
        /// Access tokens issued, to their expiry.
        var issued: [String: UnixTime] = [:]
        var tokensIssued = 0
    }

    /// The service account whose assertions the fake accepts.
    public func setServiceAccount(email: String, key: SigningKey) {
        state.withLock { $0.oauth.account = (email, key) }
    }

    public var accessTokensIssued: Int { state.current.oauth.tokensIssued }
    /// Every access token issued so far stops working (a revoked key, say).
    public func revokeAccessTokens() { state.withLock { $0.oauth.issued = [:] } }

    /// The JSON key file the Cloud console downloads for a service account, for `key`.
    public static func serviceAccountJSON(email: String, key: SigningKey) throws -> String {
        JSONValue.object([
            ("type", "service_account"), ("project_id", .string(projectId)), ("private_key_id", .string(key.kid)),
            ("private_key", .string(try key.privateKeyPEM())), ("client_email", .string(email)),
            ("client_id", "100000000000000000000"), ("token_uri", "https://oauth2.googleapis.com/token"),
        ]).serialized
    }

    static func oauthToken(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        func refuse(_ error: String, _ status: Int = 400) -> LoopbackHTTPServer.Behaviour {
            .respond(.json(JSONValue.object([("error", .string(error))]).serialized, status: status))
        }
        guard request.method == "POST", request.header("content-type") == "application/x-www-form-urlencoded"
        else { return refuse("invalid_request") }
        let form = DevProvider.splitQuery("/?" + request.bodyText).1
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"]
        else { return refuse("unsupported_grant_type") }
        TestLogs.register(assertion)
        let oauth = state.current.oauth
        guard let account = oauth.account,
            let keys = try? JSONWebKeySet.parse(Array(JWTMinter.jwks([account.key]).utf8))
        else { return refuse("invalid_client", 401) }
        // The claims by hand: a service account's assertion has no `sub` (only delegation adds one).
        let now = Clock.now()
        guard let jws = try? CompactJWS.parse(assertion), jws.header["alg"]?.stringValue == "RS256",
            (try? verifySignature(of: jws, with: keys)) != nil, let claims = try? jws.claims(),
            claims["iss"]?.stringValue == account.email, claims["aud"]?.stringValue == oauth.tokenURL,
            let iat = claims["iat"]?.int64Value, let exp = claims["exp"]?.int64Value,
            iat <= now + 60, exp > now, exp > iat, exp - iat <= 3600,
            claims["scope"]?.stringValue?.split(separator: " ").contains(where: {
                $0 == "https://www.googleapis.com/auth/identitytoolkit"
                    || $0 == "https://www.googleapis.com/auth/cloud-platform"
            }) == true
        else { return refuse("invalid_grant") }
        guard let token = try? "ya29.fake-" + randomId(32) else { return refuse("server_error", 500) }
        TestLogs.register(token)
        state.withLock {
            $0.oauth.issued[token] = Clock.now() + 3600
            $0.oauth.tokensIssued += 1
        }
        let body = JSONValue.object([("access_token", .string(token)), ("expires_in", 3599), ("token_type", "Bearer")])
        return .respond(.json(body.serialized))
    }
}
