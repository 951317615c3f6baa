#if canImport(Glibc)
import Glibc
#endif
import CSystem
import Shared

/// Runs a program with a given environment and stdin, its stdout and stderr captured through
/// files (no pipe can fill up and deadlock, whatever the sizes). For tests and the benchmark.
public struct ChildProcess {
    public struct Result: Sendable {
        public let exitStatus: Int32        // the exit code, or 128 + signal
        public let stdout: [UInt8]
        public let stderr: [UInt8]
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }

        public init(exitStatus: Int32, stdout: [UInt8], stderr: [UInt8]) {
            self.exitStatus = exitStatus
            self.stdout = stdout
            self.stderr = stderr
        }
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `path` and returns its pid; stdin from `stdin` bytes, output into files in `workDir`.
    public static func start(
        _ path: String, arguments: [String] = [], environment: [String: String], stdin: [UInt8] = [],
        workDir: String
    ) throws -> (pid: pid_t, stdoutPath: String, stderrPath: String) {
        let tag = "\(getpid())-\(nextTag())"
        let inPath = "\(workDir)/in-\(tag)", outPath = "\(workDir)/out-\(tag)", errPath = "\(workDir)/err-\(tag)"
        guard writeFile(inPath, stdin) else { throw SpawnError(description: "cannot write \(inPath)") }
        defer { unlink(inPath) }
        let pid = try spawn(
            path, arguments: arguments, environment: environment, stdinPath: inPath, stdout: .file(outPath),
            stderrPath: errPath)
        return (pid, outPath, errPath)
    }

    /// Like `start`, but stdout is a pipe whose read end is returned: `readToEnd` on it returns as
    /// soon as the program closes its stdout (a CGI answer is complete then), while it lives on.
    public static func startPiped(
        _ path: String, environment: [String: String], stdin: [UInt8] = [], workDir: String
    ) throws -> (pid: pid_t, stdout: Int32, stderrPath: String) {
        let tag = "\(getpid())-\(nextTag())"
        let inPath = "\(workDir)/in-\(tag)", errPath = "\(workDir)/err-\(tag)"
        guard writeFile(inPath, stdin) else { throw SpawnError(description: "cannot write \(inPath)") }
        defer { unlink(inPath) }
        // Close-on-exec, so children other threads spawn do not hold the write end open.
        var fds: [Int32] = [-1, -1]
        guard pipe2(&fds, O_CLOEXEC) == 0 else { throw SpawnError(description: "pipe2: errno \(errno)") }
        defer { close(fds[1]) }
        do {
            let pid = try spawn(
                path, arguments: [], environment: environment, stdinPath: inPath, stdout: .descriptor(fds[1]),
                stderrPath: errPath)
            return (pid, fds[0], errPath)
        } catch {
            close(fds[0])
            throw error
        }
    }

    private enum Output {
        case file(String)
        case descriptor(Int32)
    }

    /// posix_spawn with stdin from a file, stdout to a file or a descriptor, stderr to a file.
    private static func spawn(
        _ path: String, arguments: [String], environment: [String: String], stdinPath: String, stdout: Output,
        stderrPath: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        switch stdout {
        case .file(let outPath):
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        case .descriptor(let fd):
            posix_spawn_file_actions_adddup2(&actions, fd, 1)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard rc == 0 else { throw SpawnError(description: "posix_spawn \(path): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Everything until the writer closes its end; closes `fd`.
    public static func readToEnd(_ fd: Int32) -> [UInt8] {
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Waits for `pid`; its exit code, or 128 + signal.
    public static func wait(pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Waits for `pid` and collects what it wrote.
    public static func finish(pid: pid_t, stdoutPath: String, stderrPath: String) -> Result {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let out = FileIO.readFile(stdoutPath, limit: 64 << 20) ?? []
        let err = FileIO.readFile(stderrPath, limit: 64 << 20) ?? []
        TestLogs.appendOutput(err)
        unlink(stdoutPath)
        unlink(stderrPath)
        return Result(exitStatus: code, stdout: out, stderr: err)
    }

    public static func run(
        _ path: String, arguments: [String] = [], environment: [String: String], stdin: [UInt8] = [],
        workDir: String
    ) throws -> Result {
        let started = try start(path, arguments: arguments, environment: environment, stdin: stdin, workDir: workDir)
        return finish(pid: started.pid, stdoutPath: started.stdoutPath, stderrPath: started.stderrPath)
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        FileIO.writeAll(fd, bytes)
        return true
    }

    private static let counter = Locked(0)
    private static func nextTag() -> Int { counter.withLock { $0 += 1; return $0 } }
}

/// A value behind a lock, for state the fakes share between their threads and the test.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private var lock = pthread_mutex_t()

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&lock, nil)
    }

    deinit { pthread_mutex_destroy(&lock) }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return try body(&value)
    }

    public var current: Value { withLock { $0 } }
}

extension ChildProcess {
    /// `rm -rf` for a test's temporary folder.
    @discardableResult
    public static func removeTree(_ path: String) -> Bool {
        guard path.hasPrefix("/tmp/") else { return false }
        guard let result = try? run("/bin/rm", arguments: ["-rf", path], environment: [:], workDir: "/tmp") else {
            return false
        }
        return result.exitStatus == 0
    }
}
