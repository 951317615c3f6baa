import DevSupport
import Shared
import Testing

/// Issue 15, points 1 and 4: Firebase deletes a user by its own ID token only within a few
/// minutes of its sign-in. Inside that window the relay retries; past it a service account
/// deletes by `localId` through the Admin API, or, without one, the record is kept without its
/// refresh token for the operator and nothing loops. Gone means gone; every failure is bounded.
@Suite struct AppleRelayCleanupTests {
    /// A relay user whose deletions failed, its record moved past the window; the fake's sign-in
    /// aged to match (so a deletion by token would answer CREDENTIAL_TOO_OLD_LOGIN_AGAIN).
    static func strandedRelayUser(_ w: AppleWorld, sub: String) throws {
        w.firebase.setFailDeletions(true)
        #expect(try w.signInNew(sub: sub).status == 200)
        w.firebase.setFailDeletions(false)
        w.firebase.ageSignIns(by: 600)
        try w.h.database().run("UPDATE relay_cleanups SET delete_by_token_until = 0, next_attempt_at = 0")
    }

    @Test func pastTheWindowWithoutAServiceAccountTheRecordWaitsForTheOperator() throws {
        let w = try AppleWorld()
        try Self.strandedRelayUser(w, sub: "apple-stranded")
        w.firebase.resetLog()
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        let db = try w.h.database()
        let row = try #require(try db.query("SELECT state, refresh_token, relay_uid FROM relay_cleanups").first)
        #expect(row.text(0) == "admin")
        #expect(row[1] == .null)
        #expect(w.firebase.userCount == 1)
        // Past the window nothing is tried again: no refresh, no delete, by any later request.
        try db.run("UPDATE relay_cleanups SET next_attempt_at = 0")
        w.firebase.resetLog()
        for _ in 0..<3 { _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce()) }
        #expect(w.firebase.requests.isEmpty)
    }

    /// Firebase itself says the sign-in is too old (our clock thought it was inside the window).
    @Test func credentialTooOldMovesTheRecordPastTheWindow() throws {
        let w = try AppleWorld()
        w.firebase.setFailDeletions(true)
        #expect(try w.signInNew(sub: "apple-too-old").status == 200)
        w.firebase.setFailDeletions(false)
        w.firebase.ageSignIns(by: 600)
        try w.h.database().run("UPDATE relay_cleanups SET next_attempt_at = 0")
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        let row = try #require(try w.h.database().query("SELECT state, detail FROM relay_cleanups").first)
        #expect(row.text(0) == "admin")
        #expect(row.text(1)?.contains("CREDENTIAL_TOO_OLD_LOGIN_AGAIN") == true)
    }

    @Test func pastTheWindowAServiceAccountDeletesByLocalIdWithACachedToken() throws {
        let w = try AppleWorld()
        try w.useServiceAccount()
        try Self.strandedRelayUser(w, sub: "apple-admin-1")
        try Self.strandedRelayUser(w, sub: "apple-admin-2")
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(w.firebase.userCount == 0)
        #expect(w.firebase.usersDeletedByAdmin == 2)
        #expect(try w.count("relay_cleanups") == 0)
        // One access token for both, cached in the store for its life (less a margin).
        #expect(w.firebase.accessTokensIssued == 1)
        let db = try w.h.database()
        let cached = try #require(try db.query("SELECT expires_at - ? FROM ephemeral WHERE kind = 3", [.integer(Clock.now())]).first)
        #expect((cached.int(0) ?? 0) > 3000 && (cached.int(0) ?? 0) < 3600)
        let admin = try #require(w.firebase.requests.first { $0.path.hasPrefix("/v1/projects/") })
        #expect(admin.path == "/v1/projects/\(FakeFirebase.projectId)/accounts:delete")
        #expect(admin.header("authorization")?.hasPrefix("Bearer ya29.") == true)
        #expect(try JSONParser.parse(admin.body)["localId"]?.stringValue?.isEmpty == false)

        // A later one uses the cached token; a token the API refuses is dropped and one new one asked.
        try Self.strandedRelayUser(w, sub: "apple-admin-3")
        w.firebase.revokeAccessTokens()
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(w.firebase.userCount == 0)
        #expect(w.firebase.accessTokensIssued == 2)
    }

    /// Issue 19, item 9: the cached access token is sealed under the server key: neither the
    /// database file nor its WAL holds it, and beside another server key it opens nothing (a new
    /// token is asked for instead).
    @Test func theCachedAccessTokenIsSealedUnderTheServerKey() throws {
        let w = try AppleWorld()
        try w.useServiceAccount()
        try Self.strandedRelayUser(w, sub: "apple-sealed-1")
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(w.firebase.usersDeletedByAdmin == 1)
        let admin = try #require(w.firebase.requests.first { $0.path.hasPrefix("/v1/projects/") })
        let bearer = try #require(admin.header("authorization"))
        let token = Array(bearer.dropFirst("Bearer ".count).utf8)
        #expect(token.count > 20)
        #expect(try w.count(.oauthToken) == 1)
        let stored = (FileIO.readFile(w.h.databasePath, limit: 1 << 26) ?? [])
            + (FileIO.readFile(w.h.databasePath + "-wal", limit: 1 << 26) ?? [])
        #expect(!stored.isEmpty)
        #expect(stored.firstRange(of: token) == nil, "the access token is in the store in the clear")

        // The same rows beside another server key: the cached token is of no use, a new one is asked.
        try w.h.writeText(w.h.dir + "/audit-key", Hex.encode(try SecureRandom.bytes(32)) + "\n")
        try Self.strandedRelayUser(w, sub: "apple-sealed-2")
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(w.firebase.usersDeletedByAdmin == 2)
        #expect(w.firebase.accessTokensIssued == 2)
    }

    /// Issue 15, point 4: a refresh answered USER_NOT_FOUND (the REST reference) or
    /// INVALID_REFRESH_TOKEN (Google's Auth emulator) means the user is gone.
    @Test(arguments: [FakeFirebase.DeletedUserRefresh.userNotFound, .invalidRefreshToken], [false, true])
    func aRefreshThatFindsNoUserEndsTheRetries(_ answer: FakeFirebase.DeletedUserRefresh, _ serviceAccount: Bool) throws {
        let w = try AppleWorld()
        if serviceAccount { try w.useServiceAccount() }
        w.firebase.setDeletedUserRefresh(answer)
        w.firebase.setFailDeletions(true)
        #expect(try w.signInNew(sub: "apple-gone").status == 200)
        w.firebase.setFailDeletions(false)
        let db = try w.h.database()
        let uid = try #require(try db.query("SELECT relay_uid FROM relay_cleanups").first?.text(0))
        w.firebase.removeUser(uid)
        w.firebase.expireIssuedTokens()
        try db.run("UPDATE relay_cleanups SET next_attempt_at = 0")
        w.firebase.resetLog()
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(try w.count("relay_cleanups") == 0, "\(answer) \(serviceAccount)")
        // With a service account the gone-ness is confirmed by localId (USER_NOT_FOUND).
        #expect(w.firebase.requests.contains { $0.path.hasPrefix("/v1/projects/") } == serviceAccount)
    }

    /// Every other failure is bounded: the Admin API refusing (a role missing, say) is tried a
    /// fixed number of times, then the record is left to the operator, and nothing more is sent.
    @Test func aFailingAdminAPIGivesUpAfterItsTries() throws {
        let w = try AppleWorld()
        try w.useServiceAccount()
        w.firebase.setAdminFailure(status: 403, message: "PERMISSION_DENIED : Caller does not have required permission")
        try Self.strandedRelayUser(w, sub: "apple-stuck")
        let db = try w.h.database()
        for _ in 0..<(Int(RelayCleanup.adminMaxAttempts) + 2) {
            try db.run("UPDATE relay_cleanups SET next_attempt_at = 0")
            _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        }
        let row = try #require(try db.query("SELECT state, admin_attempts, detail FROM relay_cleanups").first)
        #expect(row.text(0) == "stuck")
        #expect(row.int(1) == RelayCleanup.adminMaxAttempts)
        #expect(row.text(2)?.contains("PERMISSION_DENIED") == true)
        try db.run("UPDATE relay_cleanups SET next_attempt_at = 0")
        w.firebase.resetLog()
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(w.firebase.requests.isEmpty)
        #expect(w.firebase.userCount == 1)
    }

    /// The fake enforces the window as Firebase does, and its refreshes keep `auth_time`.
    @Test func theFakeRefusesALateDeletionByTokenLikeFirebase() throws {
        let w = try AppleWorld()
        w.firebase.setFailDeletions(true)
        #expect(try w.signInNew(sub: "apple-late").status == 200)
        w.firebase.setFailDeletions(false)
        w.firebase.ageSignIns(by: FakeFirebase.recentSignInSeconds + 1)
        let uid = try #require(try w.h.database().query("SELECT relay_uid FROM relay_cleanups").first?.text(0))
        let refresh = try #require(w.firebase.refreshToken(of: uid))
        let firebase = try #require(try Config.load(environment: ["AUTH_CONFIG": w.h.configPath]).firebase)
        let relay = FirebaseRelay(firebase: firebase, client: CurlHTTPClient())
        guard case .fresh(let idToken, _) = try relay.refresh(refreshToken: refresh) else {
            Issue.record("no fresh token")
            return
        }
        guard case .pastWindow(let detail) = relay.deleteUser(idToken: idToken) else {
            Issue.record("deleted past the window")
            return
        }
        #expect(detail.contains("CREDENTIAL_TOO_OLD_LOGIN_AGAIN"))
    }
}
