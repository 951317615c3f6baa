#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 29: a hostile PostgreSQL (or something listening where it should be) cannot hold a
/// process past its own time-outs and its ceiling (rule 9), nor get a password from it. The
/// programs run against `HostilePostgres` on loopback; only behavioural bounds are asserted, each
/// with a margin of ten.
@Suite struct HostilePostgresTests {
    static let lifetime: Int64 = 5

    /// A folder with a config naming the hostile server as the store.
    static func config(_ server: HostilePostgres, extra: String = "") throws -> (dir: String, path: String) {
        var template = Array("/tmp/frontdoor-hostile-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed") }
        let dir = String(cString: made)
        let key = dir + "/audit-key"
        try write(key, String(repeating: "k", count: 40) + "\n")
        let config = """
            {"postgresUrl": "\(server.uri(extra: extra))", "processLifetimeSeconds": \(lifetime),
             "deletion": {"ledgerFile": "\(dir)/deletions.ledger", "auditKeyFile": "\(key)"},
             "google": {"clientIds": ["client.apps.googleusercontent.com"], "certsUrl": "http://127.0.0.1:9/certs"}}
            """
        try write(dir + "/config.json", config)
        return (dir, dir + "/config.json")
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw HarnessError("cannot write \(path)") }
        FileIO.writeAll(fd, Array(text.utf8))
        close(fd)
    }

    /// The session check against the hostile store: its answer and how long the process lived.
    static func sessionCheck(_ server: HostilePostgres) throws -> (answer: CGIAnswer?, status: Int32, seconds: Double) {
        let (dir, path) = try config(server)
        let started = Clock.monotonicMillis()
        let result = try ChildProcess.run(
            Harness.binDir + "/session",
            environment: [
                "PATH": "/usr/bin:/bin", "AUTH_CONFIG": path, "REQUEST_METHOD": "GET",
                "HTTP_AUTHORIZATION": "Bearer " + String(repeating: "A", count: 43),
            ], stdin: [], workDir: dir)
        return (CGIAnswer.parse(result), result.exitStatus, (Clock.monotonicMillis() - started) / 1000)
    }

    @Test(arguments: ["silent", "trickle", "stallMidMessage", "scram", "trustThenTrickle"])
    func aHostileStoreIsAnsweredWithinTheCeiling(_ name: String) throws {
        let mode: HostilePostgres.Mode = switch name {
        case "silent": .silent
        case "trickle": .trickle
        case "stallMidMessage": .stallMidMessage
        case "scram": .scram(iterations: 10_000_000)
        default: .trustThenTrickle
        }
        let server = try HostilePostgres(mode)
        defer { server.stop() }
        let (answer, status, seconds) = try Self.sessionCheck(server)
        // Answered, not ended by its alarm mid-request (nginx would make that a 502): 503 for a
        // store that does not answer in time, 500 for one that asks what no store of ours may.
        let expected = name == "scram" ? "internal" : "upstream_unavailable"
        #expect(answer?.errorCode == expected, "\(name): exit \(status)")
        #expect(seconds < Double(Self.lifetime) * 10, "\(name): \(seconds) s")
        #expect(server.passwordMessages <= 1, "at most SCRAM's first message")
    }

    /// Rule 9 holds even when whatever started the process blocked SIGALRM (the mask is inherited
    /// across exec; the test runner's threads block it): a process held past its ceiling is
    /// ended by its alarm.
    @Test func theCeilingHoldsWhenTheParentBlockedTheAlarm() throws {
        // Eight seconds: the shortest ceiling the outbound and mail time-outs fit under.
        let h = try Harness(config: RestoreTests.config)
        let me = try h.signedIn("g-ceiling", email: "ceiling@gmail.com")
        let held = try HeldRequest(h, "session", method: "GET", json: nil, holdAt: "session-check", authorization: me.bearer)
        try held.waitUntilHeld()
        // Never released: the pause waits 20 s at most, the ceiling is 8.
        #expect(held.waitForEnd() == 128 + SIGALRM)
    }
}
