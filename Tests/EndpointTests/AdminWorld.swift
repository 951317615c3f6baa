#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// One run of `frontdoor-admin`: its exit status, its one JSON object, its stderr, and the syslog
/// lines it wrote.
struct AdminRun {
    let status: Int32
    let json: JSONValue
    let stdout: String
    let stderr: String
    /// Its `frontdoor-admin` lines (the audit); other syslog lines (events delivered) left out.
    let audit: [String]

    var error: String? { json["error"]?.stringValue }
}

extension Harness {
    /// Runs the built `frontdoor-admin --config <this config> <arguments>`, as `sudo -u` would
    /// (SUDO_USER set). Its syslog lines go to a file of this test, then into the log scan's record.
    func admin(_ arguments: [String], config: String? = nil, environment extra: [String: String] = [:]) throws -> AdminRun {
        let syslog = dir + "/admin-syslog-\(Clock.monotonicMillis()).log"
        var env = [
            "PATH": "/usr/bin:/bin", "SUDO_USER": "ops-person", "FRONTDOOR_SYSLOG_FILE": syslog, "FRONTDOOR_TEST_STRICT_VIEWS": "1",
        ]
        for (k, v) in extra { env[k] = v }
        let result = try ChildProcess.run(
            Harness.binDir + "/frontdoor-admin", arguments: ["--config", config ?? configPath] + arguments,
            environment: env, workDir: dir)
        let lines = FileIO.readFile(syslog) ?? []
        TestLogs.appendSyslog(lines)
        unlink(syslog)
        let json = (try? JSONParser.parse(result.stdout)) ?? .null
        return AdminRun(
            status: result.exitStatus, json: json, stdout: result.stdoutText, stderr: result.stderrText,
            audit: String(decoding: lines, as: UTF8.self).split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix("frontdoor-admin ") })
    }

    /// `frontdoor-admin` started in the background, held at a `TestHooks.pause` point (or not).
    func startAdmin(_ arguments: [String], holdAt point: String? = nil) throws -> HeldAdmin {
        try HeldAdmin(self, arguments, holdAt: point)
    }

    /// The deletion ledger beside the database, line by line.
    var ledgerLines: [String] {
        String(decoding: FileIO.readFile(dir + "/deletions.ledger") ?? [], as: UTF8.self)
            .split(separator: "\n").map(String.init)
    }

    /// The ledger's deletion lines (`<time> <attempt> deleted <accountId>`).
    var deletionLines: [String] {
        ledgerLines.filter { $0.split(separator: " ").dropFirst(2).first == "deleted" }
    }

    /// Whether the store holds the account.
    func holds(_ accountId: String) throws -> Bool {
        try database().query("SELECT count(*) FROM accounts WHERE id = ?", [.text(accountId)]).first?.int(0) == 1
    }
}

/// A `frontdoor-admin` process, held at a pause point like `HeldRequest`, or just running.
final class HeldAdmin {
    let point: String?
    let folder: String
    private let pid: pid_t
    private let stdoutPath: String
    private let stderrPath: String
    private var result: ChildProcess.Result?

    init(_ h: Harness, _ arguments: [String], holdAt point: String?) throws {
        self.point = point
        folder = h.dir + "/hold-admin-\(point ?? "none")-\(Clock.monotonicMillis())"
        mkdir(folder, 0o700)
        var env = ["PATH": "/usr/bin:/bin", "SUDO_USER": "ops-person"]
        for (k, v) in TestLogs.childEnvironment { env[k] = v }
        if let point {
            env["FRONTDOOR_TEST_PAUSE_AT"] = point
            env["FRONTDOOR_TEST_PAUSE_FILE"] = "\(folder)/\(point)"
        }
        let started = try ChildProcess.start(
            Harness.binDir + "/frontdoor-admin", arguments: ["--config", h.configPath] + arguments, environment: env,
            workDir: h.dir)
        (pid, stdoutPath, stderrPath) = (started.pid, started.stdoutPath, started.stderrPath)
    }

    func waitUntilHeld() throws {
        guard let point else { return }
        try HeldRequest.waitUntilHeld(pid: pid, at: "\(folder)/\(point)", stdoutPath: stdoutPath)
    }

    /// SIGKILL where it stands; its exit status.
    func kill() -> Int32 {
        _ = Glibc.kill(pid, SIGKILL)
        let finished = ChildProcess.finish(pid: pid, stdoutPath: stdoutPath, stderrPath: stderrPath)
        result = finished
        return finished.exitStatus
    }

    /// Lets it go on (when held) and waits for its end.
    func finish() -> (status: Int32, json: JSONValue) {
        if result == nil {
            if let point {
                let go = open("\(folder)/\(point).go", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
                if go >= 0 { close(go) }
            }
            result = ChildProcess.finish(pid: pid, stdoutPath: stdoutPath, stderrPath: stderrPath)
        }
        let out = result?.stdout ?? []
        return (result?.exitStatus ?? -1, (try? JSONParser.parse(out)) ?? .null)
    }

    deinit { if result == nil { _ = finish() } }
}
