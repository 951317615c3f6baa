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
}
