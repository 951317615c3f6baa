#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `frontdoor-check` and events: the receiver takes a signed ping, the secret file is private,
/// the backlog is reported (✗ past an hour), and `--deliver` sends what is due.
@Suite struct EventsCheckTests {
    func check(_ h: Harness, _ arguments: [String] = ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "3"]) throws
        -> ChildProcess.Result
    {
        try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--config", h.configPath] + arguments,
            environment: ["PATH": "/usr/bin:/bin"].merging(TestLogs.childEnvironment) { $1 }, workDir: h.dir)
    }

    @Test func theReceiverTakesASignedPingAndTheBacklogIsReported() throws {
        let h = try Harness()
        let events = try EventsFixture(h)
        try h.writeConfig([events.member])
        let result = try check(h)
        let out = result.stdoutText
        #expect(result.exitStatus == 0, "\(out)")
        #expect(out.contains("✓ secret events.secretFile \(events.secretPath): mode 0600"), "\(out)")
        #expect(out.contains("✓ events: none waiting"), "\(out)")
        #expect(out.contains("✓ events receiver 127.0.0.1: took a signed ping (HTTP 200"), "\(out)")
        let ping = try #require(events.receiver.requests.last)
        #expect(ping.type == "frontdoor.ping" && ping.refusal == nil && ping.idHeader == ping.id)

        // A receiver holding another secret refuses it, and the check says what to look at.
        let stranger = try FakeEventReceiver(secret: Array("a-different-secret-of-more-than-32-bytes".utf8))
        try h.writeConfig([("events", .object([("url", .string(stranger.url)), ("secretFile", .string(events.secretPath))]))])
        let refused = try check(h)
        #expect(refused.exitStatus == 1)
        #expect(refused.stdoutText.contains("✗ events receiver 127.0.0.1: answered a signed ping with HTTP 401: does the app hold the secret of events.secretFile?"), "\(refused.stdoutText)")
        stranger.stop()

        // A secret others can read is flagged like every secret file; an old backlog fails the check.
        try h.writeConfig([events.member])
        chmod(events.secretPath, 0o644)
        let db = try h.database()
        try db.run(
            "INSERT INTO events (id, type, account_id, body, created_at, attempts, next_attempt_at, last_error, head) VALUES ('x', 'account.deleted', 'acc', '{}', ?, 9, ?, 'HTTP 503', 1)",
            [.integer(Clock.now() - 7300), .integer(Clock.now() + 3600)])
        let old = try check(h)
        #expect(old.exitStatus == 1)
        #expect(old.stdoutText.contains("✗ secret events.secretFile \(events.secretPath): mode 0644, readable by every user"))
        #expect(old.stdoutText.contains("✗ events: 1 waiting, the oldest 2 h old (last attempt: HTTP 503) — past an hour"), "\(old.stdoutText)")
    }

    @Test func deliverSendsWhatIsDueAndSaysWhenItStops() throws {
        let h = try Harness()
        let events = try EventsFixture(h, settings: EventsFixture.quick)
        try h.writeConfig([events.member])
        try events.receiver.setMode(.fail(status: 503))
        let made = try h.signInGoogle(try h.google.token(sub: "g-cron", email: "cron@gmail.com"))
        let id = try #require(made.body["accountId"]?.stringValue)
        #expect(try h.count("events") == 1)

        sleep(1)  // its first retry is a second after the failure
        let failing = try check(h, ["--deliver"])
        #expect(failing.exitStatus == 1)
        #expect(failing.stdoutText.contains("✗ events: delivered 0, then stopped: HTTP 503; 1 waiting"), "\(failing.stdoutText)")

        try events.receiver.setMode(.accept)
        // Its next retry is two seconds off: --deliver alone leaves it, --retry-now sends it.
        #expect(try check(h, ["--deliver"]).stdoutText.contains("✓ events: delivered 0; 1 waiting"))
        let delivered = try check(h, ["--deliver", "--retry-now"])
        #expect(delivered.exitStatus == 0, "\(delivered.stdoutText)")
        #expect(delivered.stdoutText.contains("✓ events: delivered 1; none waiting"), "\(delivered.stdoutText)")
        #expect(events.taken == ["account.created \(id) [google]"])

        try h.writeConfig()
        #expect(try check(h, ["--deliver"]).stdoutText.contains("✗ deliver: events is not configured"))
    }
}
