import Shared

/// Apple's sign-in service, played on 127.0.0.1: its keys, an identity-token minter shaped like
/// the real ones (`nonce` the lowercase hex SHA-256 of the raw nonce, `email_verified` and
/// `is_private_email` as strings or booleans), and `/auth/token` and `/auth/revoke`, which check
/// the client secret (ES256, signed with the team key the test gives) like Apple does.
public final class FakeApple: @unchecked Sendable {
    public static let bundleId = "com.example.frontdoor"
    public static let issuer = "https://appleid.apple.com"
    public static let keysPath = "/apple/auth/keys"
    public static let tokenPath = "/apple/auth/token"
    public static let revokePath = "/apple/auth/revoke"
    /// Apple's identity tokens live a day (`exp - iat = 86400`): dated decoded samples in public
    /// threads (supertokens/supertokens-node#580, invertase/react-native-apple-authentication#312)
    /// since early 2021; ten minutes before that.
    public static let tokenLifetime: Int64 = 86_400

    /// The team's Sign in with Apple key: its id is the key's `kid`.
    public struct Team: Sendable {
        public let teamId: String
        public let key: SigningKey
        public init(teamId: String, key: SigningKey) {
            self.teamId = teamId
            self.key = key
        }
    }

    struct State {
        var keys: [SigningKey]
        var fetches = 0
        var team: Team?
        /// Authorization codes issued and not yet used, to their client id and the Apple `sub`
        /// they were issued for.
        var codes: [String: (clientId: String, sub: String)] = [:]
        var refreshTokens: [String: String] = [:]
        /// Codes exchanged and refresh tokens revoked, in order.
        var exchanged: [String] = []
        var revoked: [String] = []
        var revoke = FakeFirebase.SignInBehaviour.normal
    }

    private let state: Locked<State>
    /// nil when the endpoints are served by someone else's server (`frontdoor-dev serve`).
    public let server: LoopbackHTTPServer?

    public init(keys: [SigningKey], serve: Bool = true) throws {
        let state = Locked(State(keys: keys))
        self.state = state
        server = serve
            ? try LoopbackHTTPServer { request in
                FakeApple.handle(request, state: state) ?? .respond(.json(#"{"error":"not found"}"#, status: 404))
            } : nil
    }

    public var keysURL: String { (server?.baseURL ?? "") + Self.keysPath }
    public var tokenURL: String { (server?.baseURL ?? "") + Self.tokenPath }
    public var revokeURL: String { (server?.baseURL ?? "") + Self.revokePath }
    public var keys: [SigningKey] { state.current.keys }
    public var keyFetches: Int { state.current.fetches }
    /// Codes exchanged at `/auth/token`, refresh tokens revoked at `/auth/revoke`.
    public var exchangedCodes: [String] { state.current.exchanged }
    public var revokedTokens: [String] { state.current.revoked }
    /// The refresh token a code was exchanged for.
    public func refreshToken(forCode code: String) -> String? { state.current.refreshTokens[code] }

    public func setTeam(_ team: Team) { state.withLock { $0.team = team } }
    /// Apple rotates: the key set served from now on.
    public func setKeys(_ keys: [SigningKey]) { state.withLock { $0.keys = keys } }
    public func setRevoke(_ behaviour: FakeFirebase.SignInBehaviour) { state.withLock { $0.revoke = behaviour } }

    /// A fresh authorization code for `clientId`, as Apple hands the phone one, for the Apple
    /// account `sub` (the `sub` of the ID token the token endpoint answers the code with).
    public func issueCode(clientId: String = FakeApple.bundleId, sub: String = "unnamed-apple-sub") throws -> String {
        let code = "c" + Hex.encode(try SecureRandom.bytes(16)) + ".0.mrqs."
            + Base64URL.encode(try SecureRandom.bytes(12))
        state.withLock { $0.codes[code] = (clientId, sub) }
        return code
    }

    /// What the phone puts in Apple's request: the lowercase hex SHA-256 of the raw nonce.
    public static func nonceClaim(_ rawNonce: String) -> String { Hex.encode(SHA256.hash(Array(rawNonce.utf8))) }

    /// The identity token's `c_hash` for a code (OIDC Core 3.3.2.11).
    public static func codeHash(_ code: String) -> String { Base64URL.encode(SHA256.hash(Array(code.utf8)).prefix(16)) }

    /// An Apple identity token. `rawNonce` nil leaves the nonce out; `.null` in `overrides` removes a claim.
    public func token(
        sub: String, rawNonce: String?, email: String? = nil, emailVerified: JSONValue = "true",
        isPrivateEmail: JSONValue? = nil, audience: String = FakeApple.bundleId, now: UnixTime = Clock.now(),
        key: SigningKey? = nil, code: String? = nil, overrides: [(String, JSONValue)] = []
    ) throws -> String {
        guard let key = key ?? keys.first else { throw FakeGoogle.FakeError.noKey }
        var claims: [(String, JSONValue)] = [
            ("iss", .string(Self.issuer)), ("aud", .string(audience)), ("exp", .number(Double(now + FakeApple.tokenLifetime))),
            ("iat", .number(Double(now))), ("sub", .string(sub)),
            ("c_hash", .string(code.map(Self.codeHash) ?? "fake-c-hash")),
            ("auth_time", .number(Double(now))), ("nonce_supported", true),
        ]
        if let rawNonce { claims.append(("nonce", .string(Self.nonceClaim(rawNonce)))) }
        if let email {
            claims.append(("email", .string(email)))
            claims.append(("email_verified", emailVerified))
            if let isPrivateEmail { claims.append(("is_private_email", isPrivateEmail)) }
        }
        for (name, value) in overrides {
            claims.removeAll { $0.0 == name }
            if !value.isNull { claims.append((name, value)) }
        }
        return try JWTMinter.mint(claims: claims, key: key)
    }

    /// The answer for one of Apple's paths; nil for any other path.
    public func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour? {
        Self.handle(request, state: state)
    }

    static func handle(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour? {
        let (path, _) = DevProvider.splitQuery(request.path)
        if path.hasSuffix(keysPath) {
            let keys = state.withLock { s -> [SigningKey] in
                s.fetches += 1
                return s.keys
            }
            return .respond(.json(JWTMinter.jwks(keys), headers: [("Cache-Control", "max-age=86400")]))
        }
        guard path.hasSuffix(tokenPath) || path.hasSuffix(revokePath) else { return nil }
        let keys = state.current.keys
        guard request.method == "POST", request.header("content-type") == "application/x-www-form-urlencoded" else {
            return failure("invalid_request")
        }
        let form = DevProvider.splitQuery("/?" + request.bodyText).1
        guard let clientId = form["client_id"], let secret = form["client_secret"],
            clientSecretIsValid(secret, clientId: clientId, state: state)
        else { return failure("invalid_client") }
        return path.hasSuffix(tokenPath)
            ? exchange(form, clientId: clientId, keys: keys, state: state) : revoke(form, state: state)
    }

    /// The code for tokens. The `id_token` names the Apple account the code was issued for; like
    /// the real ones from a code exchange it carries `at_hash`, not `c_hash`
    /// (supertokens/supertokens-node#580).
    static func exchange(_ form: [String: String], clientId: String, keys: [SigningKey], state: Locked<State>)
        -> LoopbackHTTPServer.Behaviour
    {
        guard form["grant_type"] == "authorization_code", let code = form["code"] else {
            return failure("unsupported_grant_type")
        }
        let issued = state.withLock { s -> (refresh: String, sub: String)? in
            guard let owner = s.codes[code], owner.clientId == clientId else { return nil }
            s.codes[code] = nil
            guard let token = try? "r" + Hex.encode(SecureRandom.bytes(16)) + ".0.mrqs" else { return nil }
            s.refreshTokens[code] = token
            s.exchanged.append(code)
            return (token, owner.sub)
        }
        guard let issued, let key = keys.first else { return failure("invalid_grant") }
        let now = Clock.now()
        let claims: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("aud", .string(clientId)), ("exp", .number(Double(now + tokenLifetime))),
            ("iat", .number(Double(now))), ("sub", .string(issued.sub)), ("at_hash", "fake-at-hash"),
            ("auth_time", .number(Double(now))),
        ]
        guard let idToken = try? JWTMinter.mint(claims: claims, key: key) else { return failure("server_error") }
        let body = JSONValue.object([
            ("access_token", "fake-access-token"), ("token_type", "Bearer"), ("expires_in", 3600),
            ("refresh_token", .string(issued.refresh)), ("id_token", .string(idToken)),
        ])
        return .respond(.json(body.serialized))
    }

    static func revoke(_ form: [String: String], state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        let behaviour = state.withLock { s -> FakeFirebase.SignInBehaviour in
            if let token = form["token"], s.refreshTokens.values.contains(token),
                form["token_type_hint"] == "refresh_token"
            {
                s.revoked.append(token)
            }
            return s.revoke
        }
        switch behaviour {
        case .hang(let seconds): return .hang(seconds: seconds)
        case .error(let status, let message): return .respond(.json(#"{"error":"\#(message)"}"#, status: status))
        default: return .respond(LoopbackHTTPServer.Response(status: 200))
        }
    }

    /// ES256 under the team key's kid, `iss` the team, `aud` Apple, `sub` the client id, at most six months.
    static func clientSecretIsValid(_ secret: String, clientId: String, state: Locked<State>) -> Bool {
        guard let team = state.current.team,
            let keys = try? JSONWebKeySet.parse(Array(JWTMinter.jwks([team.key]).utf8))
        else { return false }
        var policy = ClaimsPolicy(issuers: [team.teamId], audiences: ["https://appleid.apple.com"])
        policy.maxLifetime = 15_777_000
        guard let verified = try? TokenVerifier.verify(secret, keys: keys, policy: policy, now: Clock.now()) else {
            return false
        }
        return verified.subject == clientId && verified.header["alg"]?.stringValue == "ES256"
    }

    static func failure(_ error: String) -> LoopbackHTTPServer.Behaviour {
        .respond(.json(#"{"error":"\#(error)"}"#, status: 400))
    }
}
