#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 8, crash safety: sign-ins and deletions killed with SIGKILL at seeded random moments
/// (start-up, key fetch, hashing, the transaction, the after-answer work), then the store must be
/// whole: SQLite's integrity check, nothing without its account, no half-made or half-deleted
/// account, and everyone can still sign in to exactly one account. With account events (issue 14)
/// on: every committed creation and deletion has its event delivered or waiting, none exists for a
/// change that did not commit, and events whose deliverer was killed mid-attempt arrive later.
/// `FRONTDOOR_KILLS` (default 100; `make crash` runs 600) and `FRONTDOOR_SEED`.
@Suite struct CrashSafetyTests {
    /// What gets killed. `deleteAccount` signs a Google person in unkilled, then kills
    /// `delete-account` with their session; `sessionRenewal` does the same with a session made due
    /// for renewal, and kills the `session` check that renews it. `deliveryKilled` signs a new
    /// person in while the receiver hangs and kills the process once its event is in flight.
    enum Operation: CaseIterable {
        case googleNew, googleReturning, appleRelayNew, appleRelayReturning, emailRegister, emailLogin, deleteAccount
        case sessionRenewal, deliveryKilled
    }

    @Test func killedSignInsLeaveAWholeStore() throws {
        var random = SeededRandom.fromEnvironment("CrashSafetyTests")
        let kills = environmentInt("FRONTDOOR_KILLS", 100)
        // Every request comes from 127.0.0.1, and a login or an Apple sign-in killed before its
        // answer rightly keeps its attempt counted: the limits would refuse the later checks, not
        // the store.
        let world = try AppleWorld(mode: "relay", config: [
            ("limits", .object([
                ("registrationsPerClientPerHour", 100_000), ("loginFailuresPerClient", 100_000),
                ("loginFailuresPerEmail", 1000), ("appleFailuresPerClientPerHour", 100_000),
            ])),
        ])
        let h = world.h
        let events = try EventsFixture(h, settings: EventsFixture.quick)
        try world.writeConfig([
            ("limits", .object([
                ("registrationsPerClientPerHour", 100_000), ("loginFailuresPerClient", 100_000),
                ("loginFailuresPerEmail", 1000), ("appleFailuresPerClientPerHour", 100_000),
            ])),
            events.member,
        ])
        var people = People()

        // How long each whole request takes, unkilled, once the store and key cache exist: its kill
        // window (per operation, as Argon2id makes the email ones several times longer).
        var window: [Operation: Int] = [:]
        for round in 0..<2 {
            for op in Operation.allCases where op != .deliveryKilled {
                let started = Clock.monotonicMillis()
                let answer = try CGIAnswer.parse(run(op, world, &people, &random, killAfter: nil)).unwrapped("warm-up")
                #expect(answer.status < 300, "warm-up \(op): \(answer.rawBody) \(answer.stderr)")
                if round == 1 { window[op] = Int((Clock.monotonicMillis() - started) * 1300) }  // µs, a little past
            }
        }

        var killed = 0, finished = 0
        for _ in 0..<kills {
            let op = Self.weighted.randomElement(using: &random) ?? .googleNew
            let killAfter = Int.random(in: 0...(window[op] ?? 1000), using: &random)
            let result = op == .deliveryKilled
                ? try killMidDelivery(world, events, &people)
                : try run(op, world, &people, &random, killAfter: killAfter)
            if result.exitStatus == 128 + SIGKILL { killed += 1 } else { finished += 1 }
            if result.exitStatus != 128 + SIGKILL {
                let answer = CGIAnswer.parse(result)
                #expect(answer.map { $0.status < 500 } == true, "\(op): \(result.stdoutText) \(result.stderrText)")
            }
        }
        print("CrashSafetyTests: \(kills) runs, \(killed) killed mid-way, \(finished) finished first; "
              + "windows \(window.sorted { $0.value < $1.value }.map { "\($0.key) \($0.value) µs" })")
        #expect(killed >= kills / 5, "the window should catch most runs mid-way")

        let db = try h.database()
        #expect(try StoreInvariants.violations(db) == [])
        #expect(try StoreInvariants.deletionViolations(db, people.deletions, auditKey: auditKey(h)) == [])
        #expect(try StoreInvariants.ledgerViolations(db, people.deletions, ledger: h.ledgerLines) == [])
        // A check killed mid-renewal leaves its session as it was or renewed, never ended.
        for token in people.sessions {
            let answer = try h.check("Bearer \(token)")
            #expect(answer.status == 200, "a session whose check was killed: \(answer.rawBody)")
        }
        // Before anything else is delivered: what was taken and what waits covers every commit.
        let waitingAfterKills = try EventsFixture.waiting(db).count
        #expect(try StoreInvariants.eventViolations(
            db, taken: events.receiver.accepted.compactMap(\.body), deletions: people.deletions.map(\.accountId),
            auditKey: auditKey(h)) == [])
        // The rest goes out (a killed deliverer's lease ends within an attempt's time), and then
        // nothing waits: every event, those killed in flight included, reached the receiver.
        try events.receiver.setMode(.accept)
        let started = Clock.monotonicMillis()
        while try h.count("events") > 0 && Clock.monotonicMillis() - started < 60_000 {
            _ = try ChildProcess.run(
                Harness.binDir + "/frontdoor-check", arguments: ["--config", h.configPath, "--deliver"],
                environment: TestLogs.childEnvironment, workDir: h.dir)
        }
        #expect(try h.count("events") == 0)
        let taken = events.receiver.accepted
        let takenIds = Set(taken.compactMap(\.id))
        #expect(people.inFlight.allSatisfy(takenIds.contains), "events whose deliverer was killed arrived later")
        #expect(try StoreInvariants.eventViolations(
            db, taken: taken.compactMap(\.body), deletions: people.deletions.map(\.accountId), auditKey: auditKey(h)) == [])
        print("CrashSafetyTests: events: \(takenIds.count) delivered (\(taken.count - takenIds.count) twice), "
              + "\(waitingAfterKills) were waiting after the kills, \(people.inFlight.count) killed in flight; "
              + "accounts \(try h.count("accounts")), deletions committed "
              + "\(try h.count("deletion_audit"))")
        // Everyone tried can still sign in, to one account each.
        // (A Google person whose sign-in was killed before its commit, and whose address a password
        // registration then took, meets a typed, never-proven email: rule 3 asks for proof.)
        for (sub, _) in people.google.sorted(by: { $0.key < $1.key }) {
            let email = people.google[sub] ?? nil
            let known = try db.query(
                "SELECT count(*) FROM identities WHERE provider = 'google' AND subject = ?", [.text(sub)]
            ).first?.int(0) == 1
            let typed = try email.map { address throws in
                try db.query(
                    "SELECT count(*) FROM accounts WHERE email_key = ? AND email_verified = 0",
                    [.text(EmailAddress.matchKey(address))]
                ).first?.int(0) == 1
            } ?? false
            let answer = try h.signInGoogle(try h.google.token(sub: sub, email: email))
            let expected = !known && typed ? 409 : 200
            #expect(answer.status == expected, "\(sub): \(answer.rawBody)")
        }
        for sub in people.apple.sorted() {
            let answer = try world.signInNew(sub: sub)
            #expect(answer.status == 200, "\(sub): \(answer.rawBody)")
        }
        // A registration killed before its commit made nobody (or left a Google person's address
        // to Google); one after it, a whole account with its password.
        for (email, password) in people.email.sorted(by: { $0.key < $1.key }) {
            let answer = try h.login(email, password)
            let made = try db.query(
                "SELECT count(*) FROM accounts WHERE email = ? AND password_hash IS NOT NULL", [.text(email)]
            ).first?.int(0)
            #expect(answer.status == (made == 1 ? 200 : 401), "\(email): \(answer.rawBody)")
        }
        let doubled = try db.query(
            "SELECT count(*) FROM (SELECT provider, subject FROM identities GROUP BY 1, 2 HAVING count(*) > 1) AS twice")
        #expect(doubled.first?.int(0) == 0)
        #expect(try StoreInvariants.violations(db) == [])
    }

    /// Operations in the proportions the kills draw them: sign-ins mostly, the Argon2id ones and
    /// deletion a share each, so `make test`'s 100 kills stay a few seconds.
    static let weighted: [Operation] =
        [.googleNew, .googleNew, .googleReturning, .googleReturning, .appleRelayNew, .appleRelayNew,
         .appleRelayReturning, .appleRelayReturning, .emailRegister, .emailLogin, .deleteAccount, .deleteAccount,
         .sessionRenewal, .sessionRenewal, .deliveryKilled]

    struct People {
        var google: [String: String?] = [:]
        var apple: Set<String> = []
        /// Address to password, for everyone a registration was started for.
        var email: [String: String] = [:]
        /// Every account a deletion was started for, and whether it answered 200.
        var deletions: [(accountId: String, answered: Bool)] = []
        /// Every session whose renewing check was started.
        var sessions: [String] = []
        /// Events whose delivering process was killed while the receiver held the request.
        var inFlight: [String] = []
        var next = 0
    }

    /// `delete-account`'s audit key, made beside the database on first use.
    func auditKey(_ h: Harness) -> [UInt8] {
        let dir = String(h.databasePath[..<(h.databasePath.lastIndex(of: "/") ?? h.databasePath.endIndex)])
        let text = String(decoding: FileIO.readFile(dir + "/audit-key") ?? [], as: UTF8.self)
        return Array(text.trimmingWhitespace().utf8)
    }

    /// A new Google person signs in while the receiver hangs; the process is killed once the
    /// receiver holds its event's request (the event must stay waiting, to go out later).
    func killMidDelivery(_ world: AppleWorld, _ events: EventsFixture, _ people: inout People) throws -> ChildProcess.Result {
        let h = world.h
        // (While a deliverer killed earlier holds the lease, this one skips delivery and just exits.)
        people.next += 1
        let sub = "crash-k-\(people.next)"
        people.google[sub] = "crash-k-\(people.next)@gmail.com"
        let bytes = Array(JSONValue.object([
            ("idToken", .string(try h.google.token(sub: sub, email: people.google[sub] ?? nil))),
        ]).serialized.utf8)
        Harness.registerSecrets(of: bytes, authorization: nil)
        let seen = events.receiver.requests.count
        try events.receiver.setMode(.hang)
        defer { try? events.receiver.setMode(.accept) }
        let env = h.environment(
            method: "POST", contentType: "application/json", contentLength: bytes.count, authorization: nil, extra: [:])
        let started = try ChildProcess.start(Harness.binDir + "/signin-google", environment: env, stdin: bytes, workDir: h.dir)
        var status: Int32 = 0
        var exited = false
        let deadline = Clock.monotonicMillis() + 10_000
        while events.receiver.requests.count == seen && Clock.monotonicMillis() < deadline {
            if waitpid(started.pid, &status, WNOHANG) == started.pid {
                exited = true
                break
            }
            usleep(1000)
        }
        if !exited { kill(started.pid, SIGKILL) }
        if let request = events.receiver.requests.dropFirst(seen).first, let id = request.id, !exited {
            people.inFlight.append(id)
        }
        // (Already reaped when it exited by itself: finish then reads what it wrote, exit status 0.)
        return ChildProcess.finish(pid: started.pid, stdoutPath: started.stdoutPath, stderrPath: started.stderrPath)
    }

    /// Starts one sign-in; SIGKILLs it `killAfter` µs later (nil: lets it finish).
    func run(
        _ op: Operation, _ world: AppleWorld, _ people: inout People, _ random: inout SeededRandom, killAfter: Int?
    ) throws -> ChildProcess.Result {
        let h = world.h
        let program: String, body: String
        var authorization: String?
        switch op {
        case .googleNew, .googleReturning:
            let sub: String
            if op == .googleReturning, let known = people.google.keys.sorted().randomElement(using: &random) {
                sub = known
            } else {
                people.next += 1
                sub = "crash-g-\(people.next)"
                // Every third new person has no email; the rest a gmail address (joined by Apple below).
                people.google[sub] = people.next % 3 == 0 ? nil : "crash\(people.next)@gmail.com"
            }
            program = "signin-google"
            let token = try h.google.token(sub: sub, email: people.google[sub] ?? nil)
            body = JSONValue.object([("idToken", .string(token))]).serialized
        case .appleRelayNew, .appleRelayReturning:
            let sub: String
            if op == .appleRelayReturning, let known = people.apple.sorted().randomElement(using: &random) {
                sub = known
            } else {
                people.next += 1
                sub = "crash-a-\(people.next)"
                people.apple.insert(sub)
            }
            let nonce = AppleWorld.nonce()
            // Some Apple people share a Google person's address: the join runs under the kills too.
            let email = "crash\(people.next - 1)@gmail.com"
            program = "signin-apple"
            body = AppleWorld.body(try world.apple.token(sub: sub, rawNonce: nonce, email: email), nonce: nonce)
        case .emailRegister, .emailLogin:
            let email: String
            if op == .emailLogin, let known = people.email.keys.sorted().randomElement(using: &random) {
                email = known
            } else {
                people.next += 1
                // Every fourth takes a Google person's address: refused as taken, or made first.
                email = people.next % 4 == 0
                    ? "crash\(people.next - 1)@gmail.com" : "crash-e-\(people.next)@example.org"
                people.email[email] = people.email[email] ?? "crash password \(people.next)"
            }
            let password = people.email[email] ?? ""
            program = "signin-email"
            body = JSONValue.object([
                ("action", .string(op == .emailLogin ? "login" : "register")), ("email", .string(email)),
                ("password", .string(password)),
            ]).serialized
        case .sessionRenewal:
            // Someone new each time, signed in unkilled, their session two days past its renewal
            // interval (a day by default): the check that renews it is what gets killed.
            people.next += 1
            let signedIn = try h.signedIn("crash-s-\(people.next)", email: "crash-s-\(people.next)@gmail.com")
            try h.age(signedIn.sessionId, by: 2 * 86_400)
            program = "session"
            body = ""
            authorization = signedIn.bearer
            people.sessions.append(signedIn.token)
        case .deliveryKilled:
            throw HarnessError("deliveryKilled runs through killMidDelivery")
        case .deleteAccount:
            // Someone new each time, signed in unkilled: the deletion is what gets killed.
            people.next += 1
            let sub = "crash-d-\(people.next)"
            let signedIn = try h.signInGoogle(try h.google.token(sub: sub, email: "crash-d-\(people.next)@gmail.com"))
            let session = try (signedIn.body["sessionToken"]?.stringValue).unwrapped("\(sub): \(signedIn.rawBody)")
            let accountId = try (signedIn.body["accountId"]?.stringValue).unwrapped("\(sub)")
            program = "delete-account"
            body = "{}"
            authorization = "Bearer \(session)"
            people.deletions.append((accountId, false))
        }
        let bytes = Array(body.utf8)
        Harness.registerSecrets(of: bytes, authorization: authorization)
        let env = h.environment(
            method: "POST", contentType: "application/json", contentLength: bytes.count, authorization: authorization,
            extra: [:])
        let started = try ChildProcess.start(
            Harness.binDir + "/" + program, environment: env, stdin: bytes, workDir: h.dir)
        if let killAfter {
            usleep(UInt32(killAfter))
            kill(started.pid, SIGKILL)
        }
        let result = ChildProcess.finish(
            pid: started.pid, stdoutPath: started.stdoutPath, stderrPath: started.stderrPath)
        if op == .deleteAccount, CGIAnswer.parse(result)?.status == 200, let last = people.deletions.indices.last {
            people.deletions[last].answered = true
        }
        return result
    }
}

extension Optional {
    func unwrapped(_ what: String) throws -> Wrapped {
        guard let self else { throw HarnessError("\(what): no value") }
        return self
    }
}

extension CrashSafetyTests {
    /// The risky moment exactly: a check held between reading a due session and writing its
    /// renewal, killed there. The session is as it was, and the next check renews it.
    @Test func aCheckKilledAtItsRenewalLeavesTheSessionWorking() throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 1000), ("sessions", .object([("renewAfterSeconds", 60)]))])
        let me = try h.signedIn("g-killed-check")
        try h.age(me.sessionId, by: 120)
        let aged = try #require(try h.stored(me.sessionId))
        let held = try HeldRequest(
            h, "session", method: "GET", json: nil, holdAt: "renewal", authorization: me.bearer)
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try h.stored(me.sessionId) == aged)
        #expect(try StoreInvariants.violations(h.database()) == [])
        let answer = try h.check(me.bearer)
        #expect(answer.status == 200)
        #expect(try h.stored(me.sessionId).map { $0.lastUsedAt > aged.lastUsedAt } == true)
    }
}

extension CrashSafetyTests {
    /// Issue 20: a deletion killed between its ledger line and its commit, the person's own and
    /// the operator's. The account is still there, its line is in the ledger (someone asked for
    /// it), and the next re-application deletes it the normal way.
    @Test(arguments: ["person", "operator"])
    func aDeletionKilledBetweenItsLedgerLineAndItsCommitIsReappliedLater(_ who: String) throws {
        let h = try Harness()
        let me = try h.signedIn("g-ledger-killed-\(who)", email: "ledger.killed.\(who)@gmail.com")
        if who == "person" {
            let held = try HeldRequest(
                h, "delete-account", json: "{}", holdAt: "deletion-ledger-written", authorization: me.bearer)
            try held.waitUntilHeld()
            #expect(held.kill() == 128 + SIGKILL)
        } else {
            let held = try h.startAdmin(["delete", me.accountId], holdAt: "deletion-ledger-written")
            try held.waitUntilHeld()
            #expect(held.kill() == 128 + SIGKILL)
        }
        #expect(try h.holds(me.accountId), "the commit never happened")
        #expect(h.ledgerLines.count == 1 && h.ledgerLines.first?.hasSuffix(" \(me.accountId)") == true, "\(h.ledgerLines)")
        #expect(try h.count("deletion_audit") == 0)
        #expect(try StoreInvariants.violations(h.database()) == [])
        let run = try h.admin(["reapply-deletions", h.dir + "/deletions.ledger"])
        #expect(run.json["deletionsReapplied"] == 1, "\(run.stdout)")
        #expect(try !h.holds(me.accountId))
        #expect(try h.count("deletion_audit") == 1)
        #expect(try h.check(me.bearer).status == 401)
        #expect(h.ledgerLines.count == 1, "a re-application appends nothing")
    }
}
