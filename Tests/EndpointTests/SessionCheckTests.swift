#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `session`: the check nginx makes for the app's routes, and the phone's "am I still signed in".
@Suite struct SessionCheckTests {
    static let contractMembers = ["accountId", "sessionId", "sessionExpiresAt", "email", "emailVerified", "providers"]

    @Test func aLiveSessionAnswersItsAccountInTheBodyAndTheHeaders() throws {
        let h = try Harness()
        let me = try h.signedIn("g-check", email: "check@gmail.com")
        let answer = try h.check(me.bearer)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.body.objectValue?.map(\.0) == Self.contractMembers)
        #expect(answer.body["accountId"]?.stringValue == me.accountId)
        #expect(answer.body["sessionId"]?.stringValue == me.sessionId)
        #expect(answer.body["email"] == "check@gmail.com")
        #expect(answer.body["emailVerified"] == true)
        #expect(answer.body["providers"] == .array(["google"]))
        #expect(answer.header("X-Frontdoor-Account") == me.accountId)
        #expect(answer.header("X-Frontdoor-Session") == me.sessionId)
        #expect(answer.header("Cache-Control") == "no-store")
        let stored = try #require(try h.stored(me.sessionId))
        #expect(answer.body["sessionExpiresAt"]?.stringValue == Clock.rfc3339(stored.expiresAt))
    }

    @Test(arguments: ["GET", "POST", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func anyMethodIsChecked(_ method: String) throws {
        let h = try Harness()
        let me = try h.signedIn("g-method-\(method)")
        #expect(try h.check(me.bearer, method: method).status == 200)
        #expect(try h.check(nil, method: method).status == 401)
    }

    /// An auth_request subrequest has no body but may announce the original's length; the phone's
    /// POST may have one. Neither is read, and neither blocks.
    @Test func noBodyIsRead() throws {
        let h = try Harness()
        let me = try h.signedIn("g-nobody")
        let announced = try h.check(me.bearer, method: "POST", contentLength: 5000)
        #expect(announced.status == 200, "\(announced.rawBody)")
        let garbage = try h.check(me.bearer, method: "POST", body: Array("not json at all".utf8))
        #expect(garbage.status == 200)
        let huge = try h.check(me.bearer, method: "POST", body: [UInt8](repeating: 0x7B, count: 100_000))
        #expect(huge.status == 200)
        #expect(try h.check(me.bearer, contentLength: -1, extraEnvironment: ["CONTENT_LENGTH": "nonsense"]).status == 200)
    }

    @Test(arguments: [
        nil, "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer not-a-session", "Bearer a b",
        "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "Bearer " + String(repeating: "A", count: 44),
        "Bearer " + String(repeating: "é", count: 22), "Bearer ../../sessions/check-path",
    ])
    func missingMalformedAndUnknownSessionsAre401WithoutHeaders(_ authorization: String?) throws {
        let h = try Harness()
        _ = try h.signedIn("g-someone")
        let before = try h.sessionRows()
        let answer = try h.check(authorization)
        #expect(answer.status == 401)
        #expect(answer.errorCode == "unauthorized")
        #expect(answer.exitStatus == 0)
        #expect(answer.header("X-Frontdoor-Account") == nil && answer.header("X-Frontdoor-Session") == nil)
        #expect(try h.sessionRows() == before)
    }

    /// The refusal every anonymous request to a protected route meets costs no config and no store.
    @Test func noBearerIsRefusedBeforeTheConfigIsRead() throws {
        let h = try Harness()
        let broken = ["AUTH_CONFIG": h.dir + "/no-such-config.json"]
        let refused = try h.check(nil, extraEnvironment: broken)
        #expect(refused.status == 401 && refused.exitStatus == 0, "\(refused.rawBody)")
        #expect(try h.check("Bearer short", extraEnvironment: broken).status == 401)
        #expect(access(h.databasePath, F_OK) != 0, "the store was opened")
        let checked = try h.check("Bearer " + String(repeating: "A", count: 43), extraEnvironment: broken)
        #expect(checked.status == 500 && checked.exitStatus == 1)
    }

    /// nginx's internal check location says `FRONTDOOR_ANSWER=headers`: auth_request reads the
    /// headers and drops the body, so the check answers the session alone. Any other value (the
    /// phone's /auth/session sets none) gets DESIGN.md's whole body.
    @Test func theAuthRequestAnswerIsTheHeadersAndTheSessionAlone() throws {
        let h = try Harness()
        let me = try h.signedIn("g-headers", email: "headers@gmail.com")
        let answer = try h.check(me.bearer, extraEnvironment: Self.headersOnly)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.header("X-Frontdoor-Account") == me.accountId)
        #expect(answer.header("X-Frontdoor-Session") == me.sessionId)
        #expect(answer.body.objectValue?.map(\.0) == ["accountId", "sessionId", "sessionExpiresAt"])
        let stored = try #require(try h.stored(me.sessionId))
        #expect(answer.body["sessionExpiresAt"]?.stringValue == Clock.rfc3339(stored.expiresAt))
        for other in ["", "body", "HEADERS", "headers "] {
            let whole = try h.check(me.bearer, extraEnvironment: ["FRONTDOOR_ANSWER": other])
            #expect(whole.body.objectValue?.map(\.0) == Self.contractMembers, "FRONTDOOR_ANSWER=\(other)")
        }
    }

    static let headersOnly = ["FRONTDOOR_ANSWER": "headers"]

    /// The check reads only its own settings (Config.Scope.sessionCheck): a broken provider
    /// section stops the sign-ins, not the people already signed in.
    @Test func aBrokenProviderSectionLeavesTheDoorOpen() throws {
        let h = try Harness()
        let me = try h.signedIn("g-broken-google")
        try h.writeConfig([("google", .object([("clientIds", .array([]))]))])
        let signIn = try h.run("signin-google", body: Array(#"{"idToken": "x"}"#.utf8))
        #expect(signIn.status == 500 && signIn.exitStatus == 1, "\(signIn.rawBody)")
        #expect(signIn.stderr.contains("google.clientIds"))
        let checked = try h.check(me.bearer)
        #expect(checked.status == 200, "\(checked.rawBody) \(checked.stderr)")
        #expect(checked.body["email"] != nil && checked.header("X-Frontdoor-Account") == me.accountId)
        // Its own settings it still refuses.
        try h.writeConfig([("sessions", .object([("renewEvery", 5)]))])
        let refused = try h.check(me.bearer)
        #expect(refused.status == 500 && refused.exitStatus == 1 && refused.stderr.contains("sessions.renewEvery"))
    }

    /// A deletion ends the account's sessions first; a session row whose account was removed by
    /// hand (the sqlite3 shell) still opens nothing to the phone's check, which reads the account.
    /// nginx's check reads the session file alone and trusts it (docs/sqlite.md, "The session
    /// file": a hand-made removal must end the sessions too).
    @Test func aSessionWithoutItsAccountIs401() throws {
        let h = try Harness()
        let me = try h.signedIn("g-orphan")
        let db = try h.database()
        _ = try db.run("PRAGMA foreign_keys = OFF", [])
        #expect(try db.run("DELETE FROM accounts WHERE id = ?", [.text(me.accountId)]) == 1)
        #expect(try h.stored(me.sessionId) != nil, "the session row should outlive its account here")
        let answer = try h.check(me.bearer)
        #expect(answer.status == 401, "\(answer.rawBody)")
        #expect(answer.header("X-Frontdoor-Account") == nil && answer.header("X-Frontdoor-Session") == nil)
    }

    @Test(arguments: [false, true])
    func expiredSignedOutAndDeletedAre401(_ headersOnly: Bool) throws {
        let environment = headersOnly ? Self.headersOnly : [:]
        let h = try Harness()
        let expired = try h.signedIn("g-expired")
        try h.database().run("UPDATE sessions SET expires_at = ? WHERE session_id = ?",
                             [.integer(Clock.now() - 1), .text(expired.sessionId)])
        let signedOut = try h.signedIn("g-left")
        #expect(try h.run("sign-out", body: [], contentType: nil, authorization: signedOut.bearer).status == 200)
        let deleted = try h.signedIn("g-deleted")
        #expect(try h.run("delete-account", body: [], contentType: nil, authorization: deleted.bearer).status == 200)
        for person in [expired, signedOut, deleted] {
            let answer = try h.check(person.bearer, extraEnvironment: environment)
            #expect(answer.status == 401, "\(answer.rawBody)")
            #expect(answer.errorCode == "unauthorized")
            #expect(answer.header("X-Frontdoor-Account") == nil)
        }
        // The refused expired session is not renewed back to life (or already pruned).
        #expect(try h.stored(expired.sessionId).map { $0.expiresAt < Clock.now() } ?? true)
    }

    @Test func theBodyListsEveryProviderAndThePassword() throws {
        let h = try Harness()
        #expect(try h.register("both@gmail.com", "a good long password").status == 201)
        let login = try h.login("both@gmail.com", "a good long password")
        let token = try #require(login.body["sessionToken"]?.stringValue)
        let answer = try h.check("Bearer \(token)")
        #expect(answer.body["providers"] == .array(["password"]))
        #expect(answer.body["emailVerified"] == false)
        let none = try h.signedIn("g-no-email")
        #expect(try h.check(none.bearer).body["email"] == .null)
    }

    // MARK: - Renewal (rule 11), with the stored times moved instead of waiting

    @Test func withinTheIntervalACheckWritesNothing() throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 100), ("sessions", .object([("renewAfterSeconds", 10)]))])
        let me = try h.signedIn("g-read")
        let before = try #require(try h.stored(me.sessionId))
        // The first check after a write empties the WAL the sign-in left (after its answer), so
        // the checks after it open an empty one; none of them writes anything.
        #expect(h.walBytes > 0)
        #expect(try h.check(me.bearer).status == 200)
        #expect(h.walBytes == 0)
        for _ in 0..<3 { #expect(try h.check(me.bearer).status == 200) }
        #expect(try h.stored(me.sessionId) == before)
        #expect(h.walBytes == 0, "a plain read wrote to the WAL")
    }

    @Test(arguments: [false, true])
    func aDueCheckMovesTheExpiryOnceAndRecordsTheUse(_ headersOnly: Bool) throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 100), ("sessions", .object([("renewAfterSeconds", 10)]))])
        let me = try h.signedIn("g-renew-\(headersOnly)")
        try h.age(me.sessionId, by: 30)
        let aged = try #require(try h.stored(me.sessionId))
        let started = Clock.now()
        let answer = try h.check(me.bearer, extraEnvironment: headersOnly ? Self.headersOnly : [:])
        let ended = Clock.now()
        #expect(answer.status == 200)
        let renewed = try #require(try h.stored(me.sessionId))
        #expect(renewed.createdAt == aged.createdAt)
        #expect((started...ended).contains(renewed.lastUsedAt))
        #expect((started + 100...ended + 100).contains(renewed.expiresAt))
        #expect(answer.body["sessionExpiresAt"]?.stringValue == Clock.rfc3339(renewed.expiresAt))
        // Renewed: the next checks within the interval read only.
        let wal = h.walBytes
        #expect(try h.check(me.bearer, extraEnvironment: headersOnly ? Self.headersOnly : [:]).status == 200)
        #expect(try h.stored(me.sessionId) == renewed)
        #expect(h.walBytes == wal)
    }

    @Test func aSessionInUseOutlivesItsLifetime() throws {
        // A lifetime of seconds (any whole number from 1 is allowed), lived through by moving the
        // stored clock back 15 s before each check: 5 s of margin for the machine to be slow.
        let h = try Harness(config: [("sessionLifetimeSeconds", 20), ("sessions", .object([("renewAfterSeconds", 1)]))])
        let me = try h.signedIn("g-daily")
        for _ in 0..<5 {
            try h.age(me.sessionId, by: 15)
            #expect(try h.check(me.bearer).status == 200)
        }
        // In all, 75 s of use on a 20 s lifetime; left alone past it, it ends.
        try h.age(me.sessionId, by: 25)
        #expect(try h.check(me.bearer).status == 401)
    }

    @Test func zeroRenewsAtEveryCheck() throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 60), ("sessions", .object([("renewAfterSeconds", 0)]))])
        let me = try h.signedIn("g-zero")
        for _ in 0..<2 {
            try h.age(me.sessionId, by: 5)
            let started = Clock.now()
            #expect(try h.check(me.bearer).status == 200)
            let renewed = try #require(try h.stored(me.sessionId))
            #expect(renewed.lastUsedAt >= started && renewed.expiresAt >= started + 60)
        }
    }

    @Test func theCapBoundsTheFirstExpiryAndEveryRenewal() throws {
        let h = try Harness(config: [
            ("sessionLifetimeSeconds", 1000), ("sessions", .object([("renewAfterSeconds", 10), ("maxLifetimeSeconds", 300)])),
        ])
        let me = try h.signedIn("g-capped")
        let first = try #require(try h.stored(me.sessionId))
        #expect(first.expiresAt == first.createdAt + 300)
        try h.age(me.sessionId, by: 250)
        #expect(try h.check(me.bearer).status == 200)
        let renewed = try #require(try h.stored(me.sessionId))
        #expect(renewed.expiresAt == renewed.createdAt + 300)
        #expect(renewed.lastUsedAt > renewed.createdAt + 240)
        // Past the cap, with an expiry from before the cap was set: the next check ends it.
        try h.database().run(
            "UPDATE sessions SET created_at = ?, expires_at = ? WHERE session_id = ?",
            [.integer(Clock.now() - 400), .integer(Clock.now() + 500), .text(me.sessionId)])
        #expect(try h.check(me.bearer).status == 401)
        #expect(try h.stored(me.sessionId).map { $0.expiresAt <= Clock.now() } == true)
        #expect(try h.run("sign-out", body: [], contentType: nil, authorization: me.bearer).status == 401)
    }

    @Test func aRenewalRacingASignOutNeverBringsTheSessionBack() throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 100), ("sessions", .object([("renewAfterSeconds", 10)]))])
        let me = try h.signedIn("g-race")
        try h.age(me.sessionId, by: 30)
        // Hold the check between its read and its write, sign out meanwhile, then let it go on.
        let held = try HeldRequest(
            h, "session", method: "GET", json: nil, holdAt: "renewal", authorization: me.bearer)
        try held.waitUntilHeld()
        #expect(try h.run("sign-out", body: [], contentType: nil, authorization: me.bearer).body["ended"] == 1)
        let answer = try held.release()
        #expect(answer.status == 401, "\(answer.rawBody)")
        #expect(answer.header("X-Frontdoor-Account") == nil)
        #expect(try h.stored(me.sessionId) == nil)
        #expect(try h.check(me.bearer).status == 401)
    }
}
