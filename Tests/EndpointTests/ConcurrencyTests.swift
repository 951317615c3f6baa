#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

@Suite struct ConcurrencyTests {
    /// Twenty processes signing in the same new person at once make exactly one account.
    @Test func twentyProcessesOneNewPersonOneAccount() throws {
        let h = try Harness()
        // Warm the key cache so the race is on the account, not on the fetch.
        #expect(try h.signInGoogle(try h.google.token(sub: "g-warm")).status == 200)
        let token = try h.google.token(sub: "g-crowd", email: "crowd@gmail.com")
        let body = Array(JSONValue.object([("idToken", .string(token))]).serialized.utf8)
        Harness.registerSecrets(of: body, authorization: nil)
        var started: [(pid: Int32, stdoutPath: String, stderrPath: String)] = []
        for _ in 0..<20 {
            let env = h.environment(
                method: "POST", contentType: "application/json", contentLength: body.count, authorization: nil, extra: [:])
            started.append(try ChildProcess.start(Harness.binDir + "/signin-google", environment: env, stdin: body, workDir: h.dir))
        }
        let answers = started.compactMap { CGIAnswer.parse(ChildProcess.finish(pid: $0.pid, stdoutPath: $0.stdoutPath, stderrPath: $0.stderrPath)) }
        #expect(answers.count == 20)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map { $0.status })")
        #expect(Set(answers.compactMap { $0.body["accountId"]?.stringValue }).count == 1)
        #expect(answers.filter { $0.body["created"] == true }.count == 1)
        let accounts = try h.database().query(
            "SELECT count(*) FROM accounts a JOIN identities i ON i.account_id = a.id WHERE i.subject = 'g-crowd'")
        #expect(accounts.first?.int(0) == 1)
        #expect(try h.count("sessions") == 21)
    }

    /// Starts `count` session checks of `bearer` at once and collects their answers.
    static func checksAtOnce(
        _ h: Harness, _ bearer: String, count: Int, extra: [String: String] = [:], while other: () throws -> Void = {}
    ) throws -> [CGIAnswer] {
        Harness.registerSecrets(of: [], authorization: bearer)
        var started: [(pid: Int32, stdoutPath: String, stderrPath: String)] = []
        for _ in 0..<count {
            let env = h.environment(method: "GET", contentType: nil, contentLength: nil, authorization: bearer, extra: extra)
            started.append(try ChildProcess.start(Harness.binDir + "/session", environment: env, workDir: h.dir))
        }
        try other()
        return started.compactMap {
            CGIAnswer.parse(ChildProcess.finish(pid: $0.pid, stdoutPath: $0.stdoutPath, stderrPath: $0.stderrPath))
        }
    }

    /// Twenty processes find one session due at once: all answer it, exactly one writes the renewal,
    /// and none meets a locked store.
    @Test func twentyChecksOfADueSessionRenewItOnce() throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 1000), ("sessions", .object([("renewAfterSeconds", 60)]))])
        let me = try h.signedIn("g-crowd-check")
        try h.age(me.sessionId, by: 120)
        let notes = h.dir + "/renewals"
        let answers = try Self.checksAtOnce(h, me.bearer, count: 20, extra: ["FRONTDOOR_TEST_NOTES": notes])
        #expect(answers.count == 20)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map { "\($0.status) \($0.stderr)" })")
        #expect(answers.allSatisfy { !$0.stderr.contains("locked") && !$0.stderr.contains("busy") })
        // (PostgreSQL's renewal also notes the setting it ran with: PostgresRenewalTests.)
        let written = String(decoding: FileIO.readFile(notes) ?? [], as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("renewal synchronous_commit=") }
        #expect(written == ["renewed"], "renewals: \(written.count)")
        let stored = try #require(try h.stored(me.sessionId))
        #expect(stored.lastUsedAt >= Clock.now() - 60)
        #expect(Set(answers.compactMap { $0.body["sessionExpiresAt"]?.stringValue }) == [Clock.rfc3339(stored.expiresAt)])
    }

    /// Every check renews (renewAfterSeconds 0), so twenty write at once while a sign-out runs in
    /// their midst: the sign-out always wins, and nothing brings the session back.
    @Test func aSignOutAmongRenewingChecksWins() throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 1000), ("sessions", .object([("renewAfterSeconds", 0)]))])
        for round in 0..<3 {
            let me = try h.signedIn("g-crowd-out-\(round)")
            let answers = try Self.checksAtOnce(h, me.bearer, count: 20) {
                let out = try h.run("sign-out", body: [], contentType: nil, authorization: me.bearer)
                #expect(out.status == 200 && out.body["ended"] == 1, "\(out.rawBody)")
            }
            #expect(answers.count == 20)
            #expect(answers.allSatisfy { $0.status == 200 || $0.status == 401 }, "\(answers.map { $0.rawBody })")
            #expect(answers.allSatisfy { !$0.stderr.contains("locked") && !$0.stderr.contains("busy") })
            #expect(try h.stored(me.sessionId) == nil)
            #expect(try h.check(me.bearer).status == 401)
        }
    }
}

/// `frontdoor-admin disable` against sign-ins of the same account (issue 20), each sign-in held
/// at its risky point: whichever commits first, no session of a disabled account survives.
extension ConcurrencyTests {
    /// Held after its token is verified, before its transaction: the disable commits first, and the
    /// sign-in then finds the account disabled.
    @Test func aSignInHeldBeforeItsTransactionMeetsTheDisable() throws {
        let h = try Harness()
        let me = try h.signedIn("g-race-before", email: "race.before@gmail.com")
        let held = try HeldRequest.signInGoogle(
            h, sub: "g-race-before", email: "race.before@gmail.com", holdAt: "identity-verified")
        try held.waitUntilHeld()
        let disabled = try h.admin(["disable", me.accountId])
        #expect(disabled.json["ended"] == 1, "\(disabled.stdout)")
        let answer = try held.release()
        #expect(answer.status == 403 && answer.errorCode == "account_disabled", "\(answer.rawBody)")
        #expect(try h.count("sessions") == 0)
    }

    /// Held inside its transaction with its session written. On SQLite (the store's write lock
    /// held) the disable waits for that commit; the session is then written in the session file's
    /// own transaction, and whichever of the two takes the lock next decides: the session first,
    /// and the disable ends it with the others; the disable first, and the session never begins
    /// (503, as `SessionFileTests` shows with the sign-in held there). On PostgreSQL nothing waits
    /// for a lock the disable does not need: one of the two serializable transactions loses and
    /// runs again, so either the sign-in commits first and the disable ends its session, or the
    /// disable commits first and the sign-in's second run finds the account disabled. Either way no
    /// session is left.
    @Test func aSignInHeldInsideItsTransactionIsEndedByTheDisable() throws {
        let h = try Harness()
        let me = try h.signedIn("g-race-inside", email: "race.inside@gmail.com")
        let held = try HeldRequest.signInGoogle(
            h, sub: "g-race-inside", email: "race.inside@gmail.com", holdAt: "session-created")
        try held.waitUntilHeld()
        let disable = try h.startAdmin(["disable", me.accountId])
        usleep(300_000)
        let answer = try held.release()
        let done = disable.finish()
        if answer.status == 200 {
            #expect(done.status == 0 && done.json["ended"] == 2, "\(done.json)")
            let late = try #require(answer.body["sessionToken"]?.stringValue)
            #expect(try h.check("Bearer \(late)").status == 401)
        } else if h.postgres == nil {
            #expect(answer.status == 503 && answer.errorCode == "upstream_unavailable", "\(answer.rawBody)")
            #expect(done.status == 0 && done.json["ended"] == 1, "\(done.json)")
        } else {
            #expect(answer.status == 403 && answer.errorCode == "account_disabled", "\(answer.rawBody)")
            #expect(done.status == 0 && done.json["ended"] == 1, "\(done.json)")
        }
        #expect(try h.check(me.bearer).status == 401)
        #expect(try h.count("sessions") == 0)
    }

    /// A password login held between its Argon2id check and its transaction: the right password,
    /// and still no session once the account is disabled.
    @Test func aLoginHeldAfterItsPasswordCheckMeetsTheDisable() throws {
        let h = try Harness()
        let made = try h.register("race.login@example.org", "the racing password")
        let accountId = try #require(made.body["accountId"]?.stringValue)
        let body = JSONValue.object([
            ("action", "login"), ("email", "race.login@example.org"), ("password", "the racing password"),
        ]).serialized
        let held = try HeldRequest(h, "signin-email", json: body, holdAt: "login-verified")
        try held.waitUntilHeld()
        #expect(try h.admin(["disable", accountId]).status == 0)
        let answer = try held.release()
        #expect(answer.status == 403 && answer.errorCode == "account_disabled", "\(answer.rawBody)")
        #expect(try h.count("sessions") == 0)
    }
}
