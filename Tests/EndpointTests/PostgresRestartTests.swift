#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// PostgreSQL stopped under a box that keeps serving, then started again: while it is down every
/// request that needs the store answers 503 `upstream_unavailable` (never a 401 for a good session,
/// never a second account), and once it is back the box serves again with nobody's help
/// (pgbouncer logs in again after `server_login_retry`). On servers of the test's own, since it
/// stops one. Always on PostgreSQL; the Makefile runs it on the first pass only.
@Suite(.serialized) struct PostgresRestartTests {
    /// A request's answer: its status and, for the error, the code.
    struct Answer: CustomStringConvertible {
        let status: Int
        let error: String?
        let accountId: String?
        var description: String { "\(status) \(error ?? accountId ?? "")" }
    }

    static func answer(_ response: HTTPResponse) -> Answer {
        Answer(
            status: response.status, error: response.json?["error"]?.stringValue,
            accountId: response.json?["accountId"]?.stringValue)
    }

    /// Right or 503 `upstream_unavailable`; nothing else is allowed while the store comes and goes.
    static func rightOrUnavailable(_ answer: Answer, accountId: String) -> Bool {
        (answer.status == 200 && (answer.accountId == nil || answer.accountId == accountId))
            || (answer.status == 503 && answer.error == "upstream_unavailable")
    }

    /// An app route behind auth_request: nginx passes on only a 2xx, 401 or 403 from the check and
    /// makes anything else its own 500, but frontdoor-protect.conf gives the check's 503 back to
    /// the client as 503 `upstream_unavailable`.
    static func rightOrFailedCheck(_ answer: Answer) -> Bool {
        answer.status == 200 || (answer.status == 503 && answer.error == "upstream_unavailable")
    }

    @Test(arguments: ["fast", "immediate"])
    func aRestartIs503ForAWhileNeverAWrongAnswerAndRecoversAlone(_ mode: String) throws {
        // Durable: an immediate stop is a crash, and synchronous_commit off would lose the last
        // answered commits (a session answered 200 then refused: a wrong answer the test saw).
        let pair = try PostgresServers.start(in: PostgresServers.makeTemporaryFolder(), durable: true)
        defer {
            PostgresServers.stop(pair.dir)
            PostgresServers.recordLogs(pair.dir)
            _ = ChildProcess.removeTree(pair.dir)
        }
        let h = try Harness(pair: pair)
        let stack = try Stack(h, environment: ["FRONTDOOR_RATE_LIMIT": "off"])
        defer { stack.stop() }
        let token = try h.google.token(sub: "g-restart", email: "restart@gmail.com")
        let signInBody = JSONValue.object([("idToken", .string(token))]).serialized
        let first = try stack.post("/auth/signin-google", json: signInBody)
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self)) \(stack.errorLog())")
        let session = try #require(first.json?["sessionToken"]?.stringValue)
        let accountId = try #require(first.json?["accountId"]?.stringValue)
        func check() throws -> Answer {
            Self.answer(try CurlHTTPClient(totalTimeoutSeconds: 30).send(HTTPRequest(
                method: "GET", url: stack.baseURL + "/auth/session", headers: [("Authorization", "Bearer \(session)")],
                body: [])))
        }
        func signIn() throws -> Answer { Self.answer(try stack.post("/auth/signin-google", json: signInBody)) }
        #expect(try check().status == 200)

        // Load in flight across the stop: checks and sign-ins as child processes.
        let inFlight = try (0..<8).map { i in
            try ChildProcess.start(
                "/usr/bin/curl",
                arguments: ["-s", "-m", "30", "-H", "Authorization: Bearer \(session)", "-w", "\n%{http_code}",
                            stack.baseURL + (i % 2 == 0 ? "/auth/session" : "/app/whoami")],
                environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        }
        try PostgresServers.stopPostgres(pair, mode: mode)
        var down: [Answer] = []
        var appRoute: [HTTPResponse] = []
        for _ in 0..<3 {
            down.append(try check())
            down.append(try signIn())
            appRoute.append(try CurlHTTPClient(totalTimeoutSeconds: 30).send(HTTPRequest(
                method: "GET", url: stack.baseURL + "/app/whoami", headers: [("Authorization", "Bearer \(session)")],
                body: [])))
        }
        #expect(down.allSatisfy { $0.status == 503 && $0.error == "upstream_unavailable" }, "\(down)")
        // The app's route too: the check's 503 and its Retry-After, not auth_request's 500.
        #expect(appRoute.allSatisfy {
            Self.answer($0).status == 503 && Self.answer($0).error == "upstream_unavailable" && $0.header("retry-after") == "1"
        }, "\(appRoute.map { "\($0.status) \(String(decoding: $0.body, as: UTF8.self)) \($0.headers)" })")
        for (index, started) in inFlight.enumerated() {
            let result = ChildProcess.finish(pid: started.pid, stdoutPath: started.stdoutPath, stderrPath: started.stderrPath)
            let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
            let status = Int(lines.last ?? "") ?? 0
            let json = try? JSONParser.parse(Array(lines.dropLast().joined(separator: "\n").utf8))
            let answer = Answer(status: status, error: json?["error"]?.stringValue, accountId: json?["accountId"]?.stringValue)
            let appRoute = index % 2 == 1
            #expect(
                appRoute ? Self.rightOrFailedCheck(answer) : Self.rightOrUnavailable(answer, accountId: accountId),
                "in flight: \(answer) \(result.stdoutText)")
        }

        try PostgresServers.startPostgres(pair)
        // Back without an operator: each answer right or 503 until the first 200s, bounded.
        let deadline = Clock.monotonicMillis() + 30_000
        var after: [Answer] = []
        var served = false
        while !served && Clock.monotonicMillis() < deadline {
            let answers = [try check(), try signIn()]
            after += answers
            served = answers.allSatisfy { $0.status == 200 }
            if !served { usleep(200_000) }
        }
        #expect(served, "\(Set(after.map(\.description)).sorted()) \(stack.errorLog().suffix(3000))")
        #expect(after.allSatisfy { Self.rightOrUnavailable($0, accountId: accountId) }, "\(after)")
        print("PostgresRestartTests (\(mode)): \(after.count) answers after the start, \(after.filter { $0.status == 503 }.count) of them 503")
        #expect(try h.database().query("SELECT count(*) FROM accounts").first?.int(0) == 1)
    }
}
