#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Two boxes on one PostgreSQL (rule 15): each box its own nginx + fcgiwrap on its own port, its
/// own folder (ledger, key cache, events hint) and its own pgbouncer, both in front of the one
/// PostgreSQL that make test starts. Always on PostgreSQL, whichever pass runs it (the Makefile
/// runs it on the first pass only).
@Suite(.serialized) struct TwoBoxTests {
    final class Boxes {
        let a: Harness
        let b: Harness
        let bouncerB: PostgresServers.Pair
        let stackA: Stack
        let stackB: Stack

        init(config: [(String, JSONValue)] = [], configure: (Harness) throws -> [(String, JSONValue)] = { _ in [] }) throws {
            a = try Harness(config: config, postgres: true)
            try a.writeConfig(config + (try configure(a)))
            bouncerB = try PostgresServers.startBouncer(
                in: PostgresServers.makeTemporaryFolder(), for: try PostgresServers.shared())
            b = try Harness(secondBoxOf: a, through: bouncerB)
            // Off: nginx's per-address limits would count this test's loopback, not the store's.
            stackA = try Stack(a, environment: ["FRONTDOOR_RATE_LIMIT": "off"])
            stackB = try Stack(b, environment: ["FRONTDOOR_RATE_LIMIT": "off"])
        }

        deinit {
            stackA.stop()
            stackB.stop()
            PostgresServers.stop(bouncerB.dir)
            PostgresServers.recordLogs(bouncerB.dir)
            _ = ChildProcess.removeTree(bouncerB.dir)
        }

        func signInGoogle(_ stack: Stack, sub: String, email: String? = nil) throws -> HTTPResponse {
            let token = try a.google.token(sub: sub, email: email)
            return try stack.post("/auth/signin-google", json: JSONValue.object([("idToken", .string(token))]).serialized)
        }
    }

    /// The session check through a box's nginx, as an app route meets it.
    static func check(_ stack: Stack, _ session: String) throws -> Int {
        try RawHTTP.exchange(port: stack.port, path: "/app/whoami", headers: ["Authorization: Bearer \(session)"]).status
    }

    @Test func aSignInOnAIsASessionOnBAndASignOutOnBEndsItOnA() throws {
        let boxes = try Boxes()
        let signIn = try boxes.signInGoogle(boxes.stackA, sub: "g-two-box", email: "two.box@gmail.com")
        #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self)) \(boxes.stackA.errorLog())")
        let session = try #require(signIn.json?["sessionToken"]?.stringValue)
        #expect(try Self.check(boxes.stackB, session) == 200, "\(boxes.stackB.errorLog())")
        #expect(try Self.check(boxes.stackA, session) == 200)
        let out = try boxes.stackB.post("/auth/sign-out", json: "{}", authorization: "Bearer \(session)")
        #expect(out.status == 200, "\(String(decoding: out.body, as: UTF8.self))")
        #expect(try Self.check(boxes.stackA, session) == 401, "signed out on B: refused at once on A")
        #expect(try Self.check(boxes.stackB, session) == 401)
        // The same person again on B is the same account.
        let again = try boxes.signInGoogle(boxes.stackB, sub: "g-two-box", email: "two.box@gmail.com")
        #expect(again.json?["created"] == false && again.json?["accountId"] == signIn.json?["accountId"])
    }

    /// A new person's sign-in on A held inside its transaction (its account, identity and session
    /// written, not committed) while the same person signs in on B: one account, both signed in.
    @Test func theSameNewPersonOnBothBoxesAtOnceMakesOneAccount() throws {
        let boxes = try Boxes()
        // Warm both boxes' key caches so the race is on the account, not on the fetch.
        #expect(try boxes.signInGoogle(boxes.stackA, sub: "g-warm-a").status == 200)
        #expect(try boxes.signInGoogle(boxes.stackB, sub: "g-warm-b").status == 200)
        let held = try HeldRequest.signInGoogle(boxes.a, sub: "g-both", email: "both.boxes@gmail.com", holdAt: "session-created")
        try held.waitUntilHeld()
        // B's sign-in goes through B's nginx meanwhile: it waits on A's uncommitted rows, or
        // makes the account first; either way one of the two finds the other's.
        let token = try boxes.a.google.token(sub: "g-both", email: "both.boxes@gmail.com")
        let body = JSONValue.object([("idToken", .string(token))]).serialized
        Harness.registerSecrets(of: Array(body.utf8), authorization: nil)
        let onB = try ChildProcess.start(
            "/usr/bin/curl",
            arguments: ["-s", "-m", "30", "-H", "Content-Type: application/json", "--data-binary", "@-",
                        boxes.stackB.baseURL + "/auth/signin-google"],
            environment: ["PATH": "/usr/bin:/bin"], stdin: Array(body.utf8), workDir: boxes.b.dir)
        usleep(300_000)
        let answerA = try held.release()
        let resultB = ChildProcess.finish(pid: onB.pid, stdoutPath: onB.stdoutPath, stderrPath: onB.stderrPath)
        let answerB = try JSONParser.parse(Array(resultB.stdoutText.utf8))
        #expect(answerA.status == 200, "\(answerA.rawBody)")
        #expect(answerB["sessionToken"]?.stringValue != nil, "\(resultB.stdoutText) \(boxes.stackB.errorLog())")
        #expect(answerA.body["accountId"] == answerB["accountId"], "\(answerA.rawBody) \(resultB.stdoutText)")
        #expect([answerA.body["created"], answerB["created"]].filter { $0 == true }.count == 1)
        let accounts = try boxes.a.database().query(
            "SELECT count(*) FROM accounts a JOIN identities i ON i.account_id = a.id WHERE i.subject = 'g-both'")
        #expect(accounts.first?.int(0) == 1)
    }

    /// A deletion on A whose event A cannot deliver (the app answers 500): once the app is back,
    /// whichever box's requests come first deliver it, and the app gets it once.
    @Test func aDeletionOnAReachesTheAppOnceWhicheverBoxDeliversIt() throws {
        var events: EventsFixture?
        let boxes = try Boxes(configure: { h in
            let fixture = try EventsFixture(h, settings: EventsFixture.quick)
            events = fixture
            return [fixture.member]
        })
        let receiver = try #require(events).receiver
        let signIn = try boxes.signInGoogle(boxes.stackA, sub: "g-leaving", email: "leaving@gmail.com")
        let session = try #require(signIn.json?["sessionToken"]?.stringValue)
        let accountId = try #require(signIn.json?["accountId"]?.stringValue)
        try receiver.setMode(.fail(status: 500))
        let deleted = try boxes.stackA.post("/auth/delete-account", json: "{}", authorization: "Bearer \(session)")
        #expect(deleted.status == 200, "\(String(decoding: deleted.body, as: UTF8.self)) \(boxes.stackA.errorLog())")
        #expect(try Self.check(boxes.stackB, session) == 401, "deleted on A: refused at once on B")
        try receiver.setMode(.accept)
        func deliveredDeletions() -> Int {
            receiver.accepted.filter { $0.type == "account.deleted" && $0.accountId == accountId }.count
        }
        // Requests that write nothing, on both boxes at once, until it has arrived; then more.
        let started = Clock.monotonicMillis()
        var rounds = 0
        while (deliveredDeletions() == 0 || rounds < 5) && Clock.monotonicMillis() - started < 30_000 {
            if deliveredDeletions() > 0 { rounds += 1 }
            let requests = try [boxes.stackA, boxes.stackB, boxes.stackB, boxes.stackA].map { stack in
                try ChildProcess.start(
                    "/usr/bin/curl", arguments: ["-s", "-m", "20", "-X", "POST", "-H", "Authorization: Bearer nobody",
                                                 stack.baseURL + "/auth/sign-out"],
                    environment: ["PATH": "/usr/bin:/bin"], workDir: boxes.a.dir)
            }
            for r in requests { _ = ChildProcess.finish(pid: r.pid, stdoutPath: r.stdoutPath, stderrPath: r.stderrPath) }
            usleep(100_000)
        }
        #expect(deliveredDeletions() == 1, "\(receiver.accepted.map { "\($0.type ?? "?") \($0.accountId ?? "?")" })")
        #expect(try boxes.a.count("events") == 0)
    }

    /// `limits.loginFailuresPerEmail` counts failures on both boxes: three, alternating, and the
    /// right password is refused on either.
    @Test func thePerAccountLimitCountsRequestsToBothBoxes() throws {
        let limits: (String, JSONValue) = ("limits", .object([("loginFailuresPerEmail", 3), ("loginFailuresPerClient", 50)]))
        let boxes = try Boxes(config: [limits])
        func login(_ stack: Stack, _ password: String) throws -> Int {
            try stack.post("/auth/signin-email", json: JSONValue.object([
                ("action", "login"), ("email", "limited@example.org"), ("password", .string(password)),
            ]).serialized).status
        }
        let made = try boxes.stackA.post("/auth/signin-email", json: JSONValue.object([
            ("action", "register"), ("email", "limited@example.org"), ("password", "the right password"),
        ]).serialized)
        #expect(made.status == 201, "\(String(decoding: made.body, as: UTF8.self))")
        #expect(try login(boxes.stackA, "wrong password") == 401)
        #expect(try login(boxes.stackB, "wrong password") == 401)
        #expect(try login(boxes.stackA, "wrong password") == 401)
        #expect(try login(boxes.stackB, "the right password") == 429)
        #expect(try login(boxes.stackA, "the right password") == 429)
    }
}
