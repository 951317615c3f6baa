import Shared

/// Firebase Authentication as the relay uses it, played on 127.0.0.1: Identity Toolkit's
/// `accounts:signInWithIdp` and `accounts:delete`, securetoken's `/v1/token` and key set. Like the
/// real service it checks the API key, the Apple token's signature (against the fake Apple's
/// keys), audience, expiry and nonce, keeps one user per Apple `sub` until deleted, and signs its
/// ID tokens with keys the test gives. Three servers, one per Google host, so connection counts
/// are what production would see; `frontdoor-dev serve` routes to `respond(to:)` by path instead.
public final class FakeFirebase: @unchecked Sendable {
    public static let projectId = "frontdoor-relay"
    public static let apiKey = "fake-web-api-key"
    public static let certsPath = "/firebase/certs"

    public enum SignInBehaviour: Sendable {
        case normal
        /// Reads the request and answers nothing (for that many seconds).
        case hang(seconds: Double)
        /// Answers `{"error":{"code":status,"message":message}}`.
        case error(status: Int, message: String)
        /// A 200 with the user made but no `idToken`.
        case omitIdToken
    }

    /// What `v2/accounts:revokeToken` was sent.
    public struct Revocation: Sendable {
        public let providerId: String?
        public let tokenType: String?
        public let token: String?
        /// Whether `idToken` was one this fake issued, to a user that still exists.
        public let idTokenValid: Bool
        public let hasRedirectUri: Bool
    }

    struct User {
        let localId: String
        let appleSub: String
        let email: String?
        let emailVerified: Bool
        let refreshToken: String
    }

    struct State {
        var firebaseKeys: [SigningKey]
        var appleKeys: () -> [SigningKey]
        var bundleIds: [String]
        var users: [String: User] = [:]
        /// ID tokens issued, to the user they belong to; expired ones are refused by `delete`.
        var idTokens: [String: String] = [:]
        var expiredTokens: Set<String> = []
        var created = 0
        var deleted = 0
        var signIn = SignInBehaviour.normal
        var failDeletions = false
        var claimOverrides: [(String, JSONValue)] = []
        var revoke = SignInBehaviour.normal
        var revocations: [Revocation] = []
    }

    private let state: Locked<State>
    /// Empty when another server routes to `respond(to:)`.
    public let servers: [LoopbackHTTPServer]

    public init(
        firebaseKeys: [SigningKey], appleKeys: @escaping @Sendable () -> [SigningKey],
        bundleIds: [String] = [FakeApple.bundleId], serve: Bool = true
    ) throws {
        let state = Locked(State(firebaseKeys: firebaseKeys, appleKeys: appleKeys, bundleIds: bundleIds))
        self.state = state
        servers = serve
            ? try (0..<3).map { _ in
                try LoopbackHTTPServer { request in
                    FakeFirebase.handle(request, state: state)
                        ?? .respond(.json(#"{"error":"not found"}"#, status: 404))
                }
            } : []
    }

    public var identityToolkitURL: String { servers.first?.baseURL ?? "" }
    public var securetokenURL: String { servers.count > 1 ? servers[1].baseURL : "" }
    public var certsURL: String { (servers.count > 2 ? servers[2].baseURL : "") + Self.certsPath }

    /// Relay users that exist now, made so far, deleted so far.
    public var userCount: Int { state.current.users.count }
    public var usersCreated: Int { state.current.created }
    public var usersDeleted: Int { state.current.deleted }
    /// Every request the three servers saw, and the connections they accepted.
    public var requests: [LoopbackHTTPServer.Request] { servers.flatMap { $0.requests } }
    public var connectionCount: Int { servers.reduce(0) { $0 + $1.connectionCount } }
    public func resetLog() { servers.forEach { $0.resetLog() } }

    public func setSignIn(_ behaviour: SignInBehaviour) { state.withLock { $0.signIn = behaviour } }
    /// How `v2/accounts:revokeToken` answers (it records what it got first, whatever it does).
    public func setRevoke(_ behaviour: SignInBehaviour) { state.withLock { $0.revoke = behaviour } }
    public var revocations: [Revocation] { state.current.revocations }
    public func setFailDeletions(_ fail: Bool) { state.withLock { $0.failDeletions = fail } }
    /// Claims that replace (or, with `.null`, remove) those of the ID tokens `signInWithIdp` mints.
    public func setClaimOverrides(_ overrides: [(String, JSONValue)]) {
        state.withLock { $0.claimOverrides = overrides }
    }
    /// Every ID token issued so far is past its hour from now on.
    public func expireIssuedTokens() { state.withLock { $0.expiredTokens.formUnion($0.idTokens.keys) } }

    /// The answer for one of the relay's paths; nil for any other path.
    public func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour? {
        Self.handle(request, state: state)
    }

    static func handle(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour? {
        let (path, query) = DevProvider.splitQuery(request.path)
        if path.hasSuffix(certsPath) {
            let keys = state.current.firebaseKeys
            return .respond(.json(JWTMinter.jwks(keys), headers: [("Cache-Control", "public, max-age=19000")]))
        }
        let operations = ["/v1/accounts:signInWithIdp", "/v1/accounts:delete", "/v1/token", "/v2/accounts:revokeToken"]
        guard let operation = operations.first(where: { path.hasSuffix($0) }) else { return nil }
        guard request.method == "POST" else { return failure(404, "NOT_FOUND") }
        guard (request.header("x-goog-api-key") ?? query["key"]) == apiKey else {
            return failure(400, "API key not valid. Please pass a valid API key.")
        }
        switch operation {
        case "/v1/accounts:signInWithIdp": return signInWithIdp(request, state: state)
        case "/v1/accounts:delete": return delete(request, state: state)
        case "/v2/accounts:revokeToken": return revokeToken(request, state: state)
        default: return refresh(request, state: state)
        }
    }

    static func signInWithIdp(
        _ request: LoopbackHTTPServer.Request, state: Locked<State>
    ) -> LoopbackHTTPServer.Behaviour {
        let behaviour = state.current.signIn
        switch behaviour {
        case .hang(let seconds): return .hang(seconds: seconds)
        case .error(let status, let message): return failure(status, message)
        case .normal, .omitIdToken: break
        }
        guard let body = try? JSONParser.parse(request.body) else { return failure(400, "INVALID_JSON") }
        guard body["requestUri"]?.stringValue?.isEmpty == false else { return failure(400, "MISSING_REQUEST_URI") }
        let form = DevProvider.splitQuery("/?" + (body["postBody"]?.stringValue ?? "")).1
        guard form["providerId"] == "apple.com" else {
            return failure(400, "INVALID_PROVIDER_ID : Provider Id is not supported.")
        }
        guard let appleToken = form["id_token"] else { return failure(400, "INVALID_IDP_RESPONSE : Missing id_token") }
        let (appleKeys, bundleIds) = state.withLock { ($0.appleKeys(), $0.bundleIds) }
        let verified: VerifiedToken
        do {
            let keys = try JSONWebKeySet.parse(Array(JWTMinter.jwks(appleKeys).utf8))
            let policy = ClaimsPolicy(issuers: [FakeApple.issuer], audiences: bundleIds)
            verified = try TokenVerifier.verify(appleToken, keys: keys, policy: policy, now: Clock.now())
        } catch {
            return failure(400, "INVALID_IDP_RESPONSE : The supplied auth credential is malformed or has expired.")
        }
        guard let rawNonce = form["nonce"], let nonce = verified.claims["nonce"]?.stringValue else {
            return failure(400, "MISSING_OR_INVALID_NONCE : Nonce is missing in the request.")
        }
        guard nonce == FakeApple.nonceClaim(rawNonce) else {
            return failure(
                400,
                "MISSING_OR_INVALID_NONCE : The nonce in ID Token does not match the SHA256 hash of the raw nonce.")
        }
        let secure = body["returnSecureToken"] == true
        let minted = state.withLock { s -> (User, String?)? in
            let user: User
            if let existing = s.users.values.first(where: { $0.appleSub == verified.subject }) {
                user = existing
            } else {
                guard let localId = try? randomId(21), let refresh = try? randomId(48) else { return nil }
                TestLogs.register(refresh)
                user = User(localId: localId, appleSub: verified.subject, email: verified.email,
                            emailVerified: verified.emailVerified, refreshToken: refresh)
                s.users[localId] = user
                s.created += 1
            }
            guard secure, !isOmitIdToken(s.signIn) else { return (user, nil) }
            guard let token = try? idToken(for: user, state: &s) else { return nil }
            return (user, token)
        }
        guard let (user, token) = minted else { return failure(500, "INTERNAL") }
        var members: [(String, JSONValue)] = [
            ("kind", "identitytoolkit#VerifyAssertionResponse"),
            ("federatedId", .string(FakeApple.issuer + "/" + user.appleSub)), ("providerId", "apple.com"),
            ("localId", .string(user.localId)), ("emailVerified", .bool(user.emailVerified)),
        ]
        if let email = user.email { members.append(("email", .string(email))) }
        if let token { members.append(("idToken", .string(token))) }
        if secure {
            members.append(("refreshToken", .string(user.refreshToken)))
            members.append(("expiresIn", "3600"))
        }
        return .respond(.json(JSONValue.object(members).serialized))
    }

    static func delete(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        guard let token = (try? JSONParser.parse(request.body))?["idToken"]?.stringValue else {
            return failure(400, "MISSING_ID_TOKEN")
        }
        let result = state.withLock { s -> String? in
            if s.failDeletions { return "UNAVAILABLE" }
            guard let localId = s.idTokens[token] else { return "INVALID_ID_TOKEN" }
            if s.expiredTokens.contains(token) { return "TOKEN_EXPIRED" }
            guard s.users.removeValue(forKey: localId) != nil else { return "USER_NOT_FOUND" }
            s.deleted += 1
            return nil
        }
        switch result {
        case nil: return .respond(.json(#"{"kind":"identitytoolkit#DeleteAccountResponse"}"#))
        case "UNAVAILABLE": return failure(503, "UNAVAILABLE")
        case let reason?: return failure(400, reason)
        }
    }

    /// Records the request, then answers as told: normally a 200 with an empty object when the
    /// ID token belongs to a live user and the request names apple.com and a CODE.
    static func revokeToken(
        _ request: LoopbackHTTPServer.Request, state: Locked<State>
    ) -> LoopbackHTTPServer.Behaviour {
        let body = try? JSONParser.parse(request.body)
        let behaviour = state.withLock { s -> SignInBehaviour in
            let idToken = body?["idToken"]?.stringValue ?? ""
            let valid = s.idTokens[idToken].map { s.users[$0] != nil && !s.expiredTokens.contains(idToken) } ?? false
            s.revocations.append(Revocation(
                providerId: body?["providerId"]?.stringValue, tokenType: body?["tokenType"]?.stringValue,
                token: body?["token"]?.stringValue, idTokenValid: valid, hasRedirectUri: body?["redirectUri"] != nil))
            return s.revoke
        }
        switch behaviour {
        case .hang(let seconds): return .hang(seconds: seconds)
        case .error(let status, let message): return failure(status, message)
        case .normal, .omitIdToken: break
        }
        guard let revocation = state.current.revocations.last, revocation.idTokenValid else {
            return failure(400, "INVALID_ID_TOKEN")
        }
        guard revocation.providerId == "apple.com", revocation.tokenType == "CODE", revocation.token != nil else {
            return failure(400, "INVALID_ARGUMENT")
        }
        return .respond(.json("{}"))
    }

    static func refresh(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        let form = DevProvider.splitQuery("/?" + request.bodyText).1
        guard form["grant_type"] == "refresh_token", let refreshToken = form["refresh_token"] else {
            return failure(400, "INVALID_GRANT_TYPE")
        }
        let minted = state.withLock { s -> (User, String)?? in
            guard let user = s.users.values.first(where: { $0.refreshToken == refreshToken }) else { return .some(nil) }
            guard let token = try? idToken(for: user, state: &s) else { return nil }
            return (user, token)
        }
        guard let found = minted else { return failure(500, "INTERNAL") }
        guard let (user, token) = found else { return failure(400, "USER_NOT_FOUND") }
        let body = JSONValue.object([
            ("access_token", .string(token)), ("expires_in", "3600"), ("token_type", "Bearer"),
            ("refresh_token", .string(user.refreshToken)), ("id_token", .string(token)),
            ("user_id", .string(user.localId)), ("project_id", .string(projectId)),
        ])
        return .respond(.json(body.serialized))
    }

    /// A Firebase ID token for `user`, shaped like the real ones, with the test's overrides.
    static func idToken(for user: User, state s: inout State) throws -> String {
        guard let key = s.firebaseKeys.first else { throw FakeGoogle.FakeError.noKey }
        let now = Clock.now()
        var identities: [(String, JSONValue)] = [("apple.com", .array([.string(user.appleSub)]))]
        if let email = user.email { identities.append(("email", .array([.string(email)]))) }
        var claims: [(String, JSONValue)] = [
            ("iss", .string("https://securetoken.google.com/" + projectId)), ("aud", .string(projectId)),
            ("auth_time", .number(Double(now))), ("user_id", .string(user.localId)), ("sub", .string(user.localId)),
            ("iat", .number(Double(now))), ("exp", .number(Double(now + 3600))),
        ]
        if let email = user.email {
            claims.append(("email", .string(email)))
            claims.append(("email_verified", .bool(user.emailVerified)))
        }
        claims.append(("firebase", .object([("identities", .object(identities)), ("sign_in_provider", "apple.com")])))
        for (name, value) in s.claimOverrides {
            claims.removeAll { $0.0 == name }
            if !value.isNull { claims.append((name, value)) }
        }
        let token = try JWTMinter.mint(claims: claims, key: key)
        s.idTokens[token] = user.localId
        // RS256 is deterministic: the same claims in the same second give the same, now fresh, token.
        s.expiredTokens.remove(token)
        return token
    }

    static func isOmitIdToken(_ behaviour: SignInBehaviour) -> Bool {
        if case .omitIdToken = behaviour { return true }
        return false
    }

    static func randomId(_ bytes: Int) throws -> String { Base64URL.encode(try SecureRandom.bytes(bytes)) }

    static func failure(_ status: Int, _ message: String) -> LoopbackHTTPServer.Behaviour {
        let body = JSONValue.object([
            ("error", .object([("code", .number(Double(status))), ("message", .string(message))])),
        ])
        return .respond(.json(body.serialized, status: status))
    }
}
