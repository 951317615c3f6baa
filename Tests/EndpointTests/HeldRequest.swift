#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared

/// A CGI request started and held at a `TestHooks.pause` point (debug builds), so a test can run
/// another request through the race window and then let this one finish: races tested by
/// construction, not by luck.
final class HeldRequest {
    let point: String
    let folder: String
    private let pid: pid_t
    private let stdoutPath: String
    private let stderrPath: String
    private var finished: CGIAnswer?
    private var killed = false

    /// A POST with `json` (its body, of `contentType`), or with `json` nil a bodiless request of `method` (the session check's GET).
    /// `tag` names the hold's folder when two requests hold at the same point at once.
    init(
        _ h: Harness, _ endpoint: String, method: String = "POST", json: String?, holdAt point: String,
        authorization: String? = nil, contentType: String = "application/json", tag: String? = nil
    ) throws {
        self.point = point
        folder = h.dir + "/hold-\(tag ?? point)"
        mkdir(folder, 0o700)
        let body = Array((json ?? "").utf8)
        Harness.registerSecrets(of: body, authorization: authorization)
        let env = h.environment(
            method: method, contentType: json == nil ? nil : contentType,
            contentLength: json == nil ? nil : body.count, authorization: authorization,
            extra: ["FRONTDOOR_TEST_PAUSE_AT": point, "FRONTDOOR_TEST_PAUSE_FILE": "\(folder)/\(point)"])
        let started = try ChildProcess.start(
            Harness.binDir + "/" + endpoint, environment: env, stdin: body, workDir: h.dir)
        (pid, stdoutPath, stderrPath) = (started.pid, started.stdoutPath, started.stderrPath)
    }

    /// A Google sign-in of `sub`, held at `point`.
    static func signInGoogle(_ h: Harness, sub: String, email: String?, holdAt point: String) throws -> HeldRequest {
        let token = try h.google.token(sub: sub, email: email)
        return try HeldRequest(
            h, "signin-google", json: JSONValue.object([("idToken", .string(token))]).serialized, holdAt: point)
    }

    /// Waits until the process stands at its point. Throws if it ended without getting there.
    func waitUntilHeld() throws {
        try Self.waitUntilHeld(pid: pid, at: "\(folder)/\(point)", stdoutPath: stdoutPath)
    }

    /// Waits for `<pause file>.waiting`, made by `TestHooks.pause` in the process `pid`.
    static func waitUntilHeld(pid: pid_t, at pauseFile: String, stdoutPath: String) throws {
        let point = pauseFile.split(separator: "/").last.map(String.init) ?? pauseFile
        let deadline = Clock.monotonicMillis() + 60_000
        while access(pauseFile + ".waiting", F_OK) != 0 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let out = FileIO.readFile(stdoutPath, limit: 1 << 20) ?? []
                throw HarnessError("ended before \(point): \(String(decoding: out, as: UTF8.self))")
            }
            guard Clock.monotonicMillis() < deadline else { throw HarnessError("never reached \(point)") }
            usleep(2000)
        }
    }

    /// Kills the held process where it stands (SIGKILL); its exit status.
    func kill() -> Int32 {
        _ = Glibc.kill(pid, SIGKILL)
        let result = ChildProcess.finish(pid: pid, stdoutPath: stdoutPath, stderrPath: stderrPath)
        finished = CGIAnswer.parse(result)
        killed = true
        return result.exitStatus
    }

    /// Waits for the process to end where it stands, without letting it go on; its exit status.
    func waitForEnd() -> Int32 {
        let result = ChildProcess.finish(pid: pid, stdoutPath: stdoutPath, stderrPath: stderrPath)
        finished = CGIAnswer.parse(result)
        killed = true
        return result.exitStatus
    }

    /// Lets the process go on without waiting for it (it may then wait for a lock another held
    /// request has); `release()` collects its answer later.
    func letGo() {
        let go = open("\(folder)/\(point).go", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if go >= 0 { close(go) }
    }

    /// Lets the process go on and returns its answer.
    func release() throws -> CGIAnswer {
        if let finished { return finished }
        letGo()
        let result = ChildProcess.finish(pid: pid, stdoutPath: stdoutPath, stderrPath: stderrPath)
        guard let answer = CGIAnswer.parse(result) else {
            throw HarnessError("no CGI answer after \(point) (exit \(result.exitStatus)): \(result.stderrText)")
        }
        finished = answer
        return answer
    }

    deinit {
        if finished == nil && !killed { _ = try? release() }
    }
}
