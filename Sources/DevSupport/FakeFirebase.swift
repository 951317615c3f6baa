import Shared

/// Firebase Authentication as the relay uses it, played on 127.0.0.1: Identity Toolkit's
/// `accounts:signInWithIdp`, `accounts:delete` (by the user's own ID token, and by `localId` for
/// an Admin API caller), `accounts:lookup` (by ID token, and by `localId` for an Admin API caller), `v2/accounts:revokeToken`, securetoken's `/v1/token` and key set, and
/// Google's OAuth token endpoint for a service account. Like the real service it checks the API
/// key, the Apple token's signature (against the fake Apple's keys), audience, expiry and nonce,
/// keeps one user per Apple `sub` until deleted, and signs its ID tokens with keys the test gives.
///
/// The real service's behaviours that a fake written from the docs misses are on by default and
/// each can be switched (issue 15), with its source: the recent-sign-in window on a deletion by
/// ID token, the refusal of an Apple credential already accepted, `isNewUser`, the answers that
/// are not sign-ins (`needConfirmation`, a second factor), one account per email address, and
/// the answer to a deleted user's refresh token. Error bodies have the real shape
/// (`{"error":{"code","message":"CODE : detail","errors":[…]}}`).
///
/// Four servers, one per Google host, so connection counts are what production would see;
/// `frontdoor-dev serve` routes to `respond(to:)` by path instead.
public final class FakeFirebase: @unchecked Sendable {
    public static let projectId = "frontdoor-relay"
    public static let apiKey = "fake-web-api-key"
    public static let certsPath = "/firebase/certs"
    public static let oauthTokenPath = "/oauth2/token"
    /// "In the context of delete, 'recently' is defined as 5 minutes" (a Firebase engineer,
    /// firebase/FirebaseUI-Android#478); the iOS SDK's `requiresRecentLogin` says 5 minutes too.
    public static let recentSignInSeconds: Int64 = 300

    public enum SignInBehaviour: Sendable {
        case normal
        /// Reads the request and answers nothing (for that many seconds): the credential unseen.
        case hang(seconds: Double)
        /// Signs in (the user made, the credential accepted), then answers nothing: a time-out
        /// after sending, the case where the phone must start over.
        case acceptThenHang(seconds: Double)
        /// Answers `{"error":{"code":status,"message":message,…}}`.
        case error(status: Int, message: String)
        /// A 200 with the user made but no `idToken` (or no `refreshToken`).
        case omitIdToken
        case omitRefreshToken
        /// A 200 naming an existing user of the project with this email, no tokens: what
        /// "one account per email address" answers when the IdP's email is not verified
        /// (Identity Toolkit's `needConfirmation`; the Auth emulator, `handleIdpSigninEmailRequired`).
        case needConfirmation
        /// A 200 that stops at a second factor (`mfaPendingCredential`, `mfaInfo`), no tokens.
        case mfaPending
    }

    /// What securetoken answers for the refresh token of a deleted user.
    public enum DeletedUserRefresh: Sendable {
        /// Google's Auth emulator (`validateRefreshToken`: `assert(user, "INVALID_REFRESH_TOKEN")`).
        case invalidRefreshToken
        /// The REST reference's "The user corresponding to the refresh token was not found".
        case userNotFound
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
        /// nil for a user of the project that never signed in with Apple (a shared project's).
        var appleSub: String?
        let email: String?
        let emailVerified: Bool
        let refreshToken: String
        /// When it last signed in; a refreshed ID token keeps it (`auth_time`).
        var authTime: UnixTime
        /// When it was made (`accounts:lookup`'s `createdAt`, in milliseconds there).
        var createdAt: UnixTime
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
        var adminDeleted = 0
        var signIn = SignInBehaviour.normal
        /// Deletions by ID token that fail with 503 before one goes through; -1: all of them.
        var failDeletions = 0
        var claimOverrides: [(String, JSONValue)] = []
        var revoke = SignInBehaviour.normal
        var revocations: [Revocation] = []
        /// Apple identity tokens accepted so far (the real service refuses them a second time).
        var acceptedCredentials: Set<String> = []
        var refuseDuplicateCredentials = true
        /// nil: deletions by ID token work whatever the sign-in's age (Google's Auth emulator).
        var recentSignInWindow: Int64? = FakeFirebase.recentSignInSeconds
        var deletedUserRefresh = DeletedUserRefresh.invalidRefreshToken
        /// "One account per email address": a verified IdP email signs into the project's user
        /// that has it (the Auth emulator's `handleIdpSigninEmailRequired`).
        var linkByEmail = false
        var oauth = OAuthState()
        /// What the Admin API's delete answers instead of deleting (403 for a missing role, say).
        var adminFailure: (status: Int, message: String)?
        /// What the Admin API's lookup answers instead of looking (a 503, say).
        var adminLookupFailure: (status: Int, message: String)?
        var adminLookups = 0
        var signInRequests = 0
    }

    let state: Locked<State>
    /// Empty when another server routes to `respond(to:)`.
    public let servers: [LoopbackHTTPServer]

    public init(
        firebaseKeys: [SigningKey], appleKeys: @escaping @Sendable () -> [SigningKey],
        bundleIds: [String] = [FakeApple.bundleId], serve: Bool = true
    ) throws {
        let state = Locked(State(firebaseKeys: firebaseKeys, appleKeys: appleKeys, bundleIds: bundleIds))
        self.state = state
        servers = serve
            ? try (0..<4).map { _ in
                try LoopbackHTTPServer { request in
                    FakeFirebase.handle(request, state: state)
                        ?? .respond(.json(#"{"error":"not found"}"#, status: 404))
                }
            } : []
        if serve, servers.count > 3 { state.withLock { $0.oauth.tokenURL = servers[3].baseURL + Self.oauthTokenPath } }
    }

    public var identityToolkitURL: String { servers.first?.baseURL ?? "" }
    public var securetokenURL: String { servers.count > 1 ? servers[1].baseURL : "" }
    public var certsURL: String { (servers.count > 2 ? servers[2].baseURL : "") + Self.certsPath }
    /// Google's OAuth token endpoint (oauth2.googleapis.com), where a service account's assertion
    /// is exchanged for an access token.
    public var oauthTokenURL: String { state.current.oauth.tokenURL }

    /// Relay users (and project users) that exist now; relay users made so far; deleted so far.
    public var userCount: Int { state.current.users.count }
    public var usersCreated: Int { state.current.created }
    public var usersDeleted: Int { state.current.deleted }
    /// Users deleted by `localId` through the Admin API.
    public var usersDeletedByAdmin: Int { state.current.adminDeleted }
    public var signInRequests: Int { state.current.signInRequests }
    public func userExists(_ localId: String) -> Bool { state.current.users[localId] != nil }
    /// The refresh token the user was given at sign-in.
    public func refreshToken(of localId: String) -> String? { state.current.users[localId]?.refreshToken }
    /// Every request the servers saw, and the connections they accepted.
    public var requests: [LoopbackHTTPServer.Request] { servers.flatMap { $0.requests } }
    public var connectionCount: Int { servers.reduce(0) { $0 + $1.connectionCount } }
    public func resetLog() { servers.forEach { $0.resetLog() } }

    public func setSignIn(_ behaviour: SignInBehaviour) { state.withLock { $0.signIn = behaviour } }
    /// How `v2/accounts:revokeToken` answers (it records what it got first, whatever it does).
    public func setRevoke(_ behaviour: SignInBehaviour) { state.withLock { $0.revoke = behaviour } }
    public var revocations: [Revocation] { state.current.revocations }
    /// Every deletion by ID token answers 503 (true) or none does (false).
    public func setFailDeletions(_ fail: Bool) { state.withLock { $0.failDeletions = fail ? -1 : 0 } }
    /// The next `count` deletions by ID token answer 503, then they work.
    public func failNextDeletions(_ count: Int) { state.withLock { $0.failDeletions = count } }
    public func setRefuseDuplicateCredentials(_ refuse: Bool) { state.withLock { $0.refuseDuplicateCredentials = refuse } }
    /// nil switches the recent-sign-in rule on deletions off, as Google's Auth emulator has it.
    public func setRecentSignInWindow(_ seconds: Int64?) { state.withLock { $0.recentSignInWindow = seconds } }
    public func setDeletedUserRefresh(_ answer: DeletedUserRefresh) { state.withLock { $0.deletedUserRefresh = answer } }
    public func setLinkByEmail(_ link: Bool) { state.withLock { $0.linkByEmail = link } }
    /// The Apple token audiences the project accepts: its iOS apps' bundle ids and the Apple
    /// provider's Services ID (the console's setting a web sign-in needs).
    public func setAppleAudiences(_ audiences: [String]) { state.withLock { $0.bundleIds = audiences } }
    public func setAdminFailure(status: Int, message: String) {
        state.withLock { $0.adminFailure = (status, message) }
    }
    public func setAdminLookupFailure(status: Int, message: String) {
        state.withLock { $0.adminLookupFailure = (status, message) }
    }
    /// Lookups by `localId` through the Admin API so far.
    public var adminLookups: Int { state.current.adminLookups }
    /// Moves every user's last sign-in `seconds` into the past, so tests need not wait out the window.
    public func ageSignIns(by seconds: Int64) {
        state.withLock { s in for id in s.users.keys { s.users[id]?.authTime -= seconds } }
    }
    /// Deletes a user behind the relay's back (the console, say).
    public func removeUser(_ localId: String) { state.withLock { _ = $0.users.removeValue(forKey: localId) } }
    /// A user of the project that is not the relay's (a shared project's real user); its id.
    public func addProjectUser(
        email: String, emailVerified: Bool = true, appleSub: String? = nil, createdAt: UnixTime = Clock.now() - 86_400
    ) throws -> String {
        let localId = try Self.randomId(21)
        let refresh = try Self.randomId(48)
        TestLogs.register(refresh)
        state.withLock {
            $0.users[localId] = User(
                localId: localId, appleSub: appleSub, email: email, emailVerified: emailVerified,
                refreshToken: refresh, authTime: Clock.now(), createdAt: createdAt)
        }
        return localId
    }
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
        if path.hasSuffix(oauthTokenPath) { return oauthToken(request, state: state) }
        if path.hasPrefix("/v1/projects/"), path.hasSuffix("/accounts:delete") {
            return adminDelete(request, path: path, state: state)
        }
        if path.hasPrefix("/v1/projects/"), path.hasSuffix("/accounts:lookup") {
            return adminLookup(request, path: path, state: state)
        }
        let operations = [
            "/v1/accounts:signInWithIdp", "/v1/accounts:delete", "/v1/token", "/v2/accounts:revokeToken",
            "/v1/accounts:lookup",
        ]
        guard let operation = operations.first(where: { path.hasSuffix($0) }) else { return nil }
        guard request.method == "POST" else { return failure(404, "NOT_FOUND") }
        guard (request.header("x-goog-api-key") ?? query["key"]) == apiKey else {
            return failure(400, "API key not valid. Please pass a valid API key.")
        }
        switch operation {
        case "/v1/accounts:signInWithIdp": return signInWithIdp(request, state: state)
        case "/v1/accounts:delete": return delete(request, state: state)
        case "/v2/accounts:revokeToken": return revokeToken(request, state: state)
        case "/v1/accounts:lookup": return lookup(request, state: state)
        default: return refresh(request, state: state)
        }
    }

    static func randomId(_ bytes: Int) throws -> String { Base64URL.encode(try SecureRandom.bytes(bytes)) }

    /// The real error shape, as captured from Identity Toolkit (capawesome-team/capacitor-firebase#204).
    static func failure(_ status: Int, _ message: String, status text: String? = nil) -> LoopbackHTTPServer.Behaviour {
        var error: [(String, JSONValue)] = [
            ("code", .number(Double(status))), ("message", .string(message)),
            ("errors", .array([.object([
                ("message", .string(message)), ("domain", "global"), ("reason", "invalid"),
            ])])),
        ]
        if let text { error.append(("status", .string(text))) }
        return .respond(.json(JSONValue.object([("error", .object(error))]).serialized, status: status))
    }
}
