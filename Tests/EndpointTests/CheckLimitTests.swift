#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 19, item 5, through real nginx: requests to the app's protected routes start session
/// checks, so they have a per-client limit of their own (429 in JSON), and the checks run in an
/// fcgiwrap pool of their own, so however many wait, sign-ins still go through.
@Suite(.serialized) struct CheckLimitTests {
    /// A well-formed bearer token of no session: nginx lets it through to the check.
    static func randomBearer() throws -> String {
        "Bearer " + Base64URL.encode(try SecureRandom.bytes(32))
    }

    /// The limit's burst as installed would take a hundred checks to use up; 5 here, and a rate
    /// of one a minute, so nothing refills while the test runs.
    @Test func aBurstPastTheChecksLimitIs429InJSONWhileSignInsGoOn() throws {
        let h = try Harness()
        let stack = try Stack(h, environment: ["FRONTDOOR_CHECK_RATE": "1r/m", "FRONTDOOR_CHECK_BURST": "5"])
        defer { stack.stop() }
        let me = try h.signedIn("g-limited")
        var statuses: [Int] = []
        var refused: RawHTTP?
        for _ in 0..<10 {
            let answer = try RawHTTP.exchange(
                port: stack.port, path: "/app/whoami", headers: ["Authorization: \(try Self.randomBearer())"])
            statuses.append(answer.status)
            if answer.status == 429, refused == nil { refused = answer }
        }
        #expect(statuses == [401, 401, 401, 401, 401, 401, 429, 429, 429, 429], "\(statuses)")
        let limited = try #require(refused)
        #expect(limited.json?["error"] == "rate_limited", "\(limited.body)")
        #expect(limited.header("content-type") == "application/json")
        #expect(limited.header("retry-after") == "1")
        #expect(limited.header("cache-control") == "no-store")
        // The refused ones started no process: six checks in all.
        #expect(stack.errorLog().components("endpoint=session ") == 6, "\(stack.errorLog().suffix(2000))")
        // The same client's own session is limited on the app's routes too...
        Harness.registerSecrets(of: [], authorization: me.bearer)
        #expect(try RawHTTP.exchange(port: stack.port, path: "/app/whoami", headers: ["Authorization: \(me.bearer)"]).status == 429)
        // ...but signs in and asks the phone's check as ever: those have their own limit.
        let token = try h.google.token(sub: "g-limited-2", email: "limited.two@gmail.com")
        let signIn = try stack.post("/auth/signin-google", json: #"{"idToken":"\#(token)"}"#)
        #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self))")
        let phone = try RawHTTP.exchange(port: stack.port, path: "/auth/session", headers: ["Authorization: \(me.bearer)"])
        #expect(phone.status == 200 && phone.json?["accountId"]?.stringValue == me.accountId, "\(phone.body)")
    }

    /// Both pools two processes wide; two checks held in their processes (`session-check`). With
    /// one shared pool the sign-in would wait for them; with the checks' own it answers while they
    /// are still held.
    @Test func heldChecksNeverHoldUpASignIn() throws {
        let h = try Harness()
        let hold = h.dir + "/hold"
        mkdir(hold, 0o755)
        let stack = try Stack(h, environment: [
            "FRONTDOOR_FCGIWRAP_CHILDREN": "2", "FRONTDOOR_CHECK_CHILDREN": "2", "FRONTDOOR_CHECK_HOLD": hold,
        ])
        defer { stack.stop() }
        var clients: [(pid: pid_t, stdoutPath: String, stderrPath: String)] = []
        for _ in 0..<2 {
            clients.append(try ChildProcess.start(
                "/usr/bin/curl",
                arguments: ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: \(try Self.randomBearer())",
                            stack.baseURL + "/app/whoami"],
                environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir))
        }
        /// The checks standing at their point: `<hold>/<request id>.waiting` each.
        func waiting() -> [String] {
            guard let dir = opendir(hold) else { return [] }
            defer { closedir(dir) }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasSuffix(".waiting") { names.append(hold + "/" + name) }
            }
            return names
        }
        let deadline = Clock.monotonicMillis() + 30_000
        while waiting().count < 2 && Clock.monotonicMillis() < deadline { usleep(5_000) }
        let held = waiting()
        try #require(held.count == 2, "the checks were never held: \(held) \(stack.errorLog().suffix(2000))")
        let token = try h.google.token(sub: "g-not-starved", email: "not.starved@gmail.com")
        let signIn = try stack.post("/auth/signin-google", json: #"{"idToken":"\#(token)"}"#)
        #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self))")
        // The checks were still where they were held when the sign-in answered.
        for client in clients {
            var status: Int32 = 0
            #expect(waitpid(client.pid, &status, WNOHANG) == 0, "a held check's client ended before the sign-in")
        }
        for file in held {
            let go = open(String(file.dropLast(".waiting".count)) + ".go", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            if go >= 0 { close(go) }
        }
        for client in clients {
            let result = ChildProcess.finish(pid: client.pid, stdoutPath: client.stdoutPath, stderrPath: client.stderrPath)
            #expect(result.stdoutText == "401", "\(result.stdoutText) \(result.stderrText)")
        }
    }
}
