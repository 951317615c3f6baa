import Shared
#if canImport(Glibc)
import Glibc
#endif

/// The real PostgreSQL 15 and pgbouncer 1.18 the tests talk to (the client's suites, and the
/// endpoint suites' PostgreSQL pass, `FRONTDOOR_TEST_STORE=postgres`), started by
/// `scripts/pg-stack`: the pair `make test` started (`FRONTDOOR_PG_DIR`), or, in a focused
/// `swift test` run, a pair this process starts in a temporary folder on first use and stops
/// when it exits. Not installed means failed tests, not skipped ones (`make deps` installs them).
public enum PostgresServers {
    public struct Pair: Sendable {
        public let dir: String

        public init(dir: String) { self.dir = dir }

        /// Through pgbouncer, as the test's own OS user (peer authentication).
        public var bouncer: PostgresURL {
            PostgresURL(address: .unixSocket(directory: dir, port: 6432), user: PostgresServers.osUser, database: "frontdoor")
        }

        /// The same database through pgbouncer's pool of two server connections.
        public var bouncerPair: PostgresURL { bouncer.database("frontdoor_pair") }

        /// Straight to PostgreSQL as the database's owner (peer, mapped from the test's user).
        public var direct: PostgresURL {
            PostgresURL(address: .unixSocket(directory: dir, port: 5432), user: "frontdoor", database: "frontdoor")
        }

        /// Straight to PostgreSQL as its superuser, for what only it may do (roles, killing backends).
        public var superuser: PostgresURL {
            PostgresURL(address: .unixSocket(directory: dir, port: 5432), user: "postgres", database: "frontdoor")
        }
    }

    public static let root: String = {
        if let root = getenv("FRONTDOOR_ROOT").map({ String(cString: $0) }), !root.isEmpty { return root }
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    public static let osUser: String = {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }()

    /// The shared pair, started once.
    public static func shared() throws -> Pair {
        switch started {
        case .success(let pair): return pair
        case .failure(let error): throw error
        }
    }

    private static let started: Result<Pair, ServersError> = {
        if let dir = getenv("FRONTDOOR_PG_DIR").map({ String(cString: $0) }), !dir.isEmpty {
            return .success(Pair(dir: dir))
        }
        do {
            let pair = try start(in: makeTemporaryFolder())
            ownedFolder.withLock { $0 = pair.dir }
            atexit {
                if let dir = PostgresServers.ownedFolder.withLock({ $0 }) {
                    PostgresServers.stop(dir)
                    PostgresServers.recordLogs(dir)
                    ChildProcess.removeTree(dir)
                }
            }
            return .success(pair)
        } catch let error as ServersError {
            return .failure(error)
        } catch {
            return .failure(ServersError(description: "\(error)"))
        }
    }()

    private static let ownedFolder = Locked<String?>(nil)

    public struct ServersError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A pair of its own, for a test that kills or stops a server; stop it with `stop`.
    /// `durable`: fsync and synchronous commits on, as in production, for a test that crashes the
    /// server and expects every answered commit back (the default, off, can lose the last ones).
    public static func start(in dir: String, durable: Bool = false) throws -> Pair {
        let result = try ChildProcess.run(
            "/bin/bash", arguments: [root + "/scripts/pg-stack", "start", dir],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "FRONTDOOR_PG_FSYNC": durable ? "on" : "off"],
            workDir: "/tmp")
        guard result.exitStatus == 0 else {
            throw ServersError(
                description: "scripts/pg-stack start \(dir) failed (\(result.exitStatus)): \(result.stderrText)")
        }
        return Pair(dir: dir)
    }

    public static func stop(_ dir: String) {
        _ = try? ChildProcess.run(
            "/bin/bash", arguments: [root + "/scripts/pg-stack", "stop", dir],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], workDir: "/tmp")
    }

    /// PostgreSQL's and pgbouncer's logs into the record the log scan reads (make test does this
    /// for the pair it started).
    public static func recordLogs(_ dir: String) {
        for name in ["postgres.log", "pgbouncer.log"] {
            if let log = FileIO.readFile(dir + "/" + name, limit: 64 << 20) { TestLogs.appendOutput(log) }
        }
    }

    public static func makeTemporaryFolder() -> String {
        var template = Array("/tmp/frontdoor-pg-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: errno \(errno)")
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A table name no other test uses.
    public static func tableName(_ prefix: String) -> String {
        let suffix = (try? SecureRandom.bytes(6)).map { Hex.encode($0) } ?? String(getpid())
        return "\(prefix)_\(suffix)"
    }

    /// PostgreSQL alone stopped (`mode` as pg_ctl's: `immediate` is a crash) or started again,
    /// pgbouncer left running: a restart as the boxes meet it.
    public static func stopPostgres(_ pair: Pair, mode: String = "fast") throws {
        try pgStack(["stop-postgres", pair.dir, mode])
    }

    public static func startPostgres(_ pair: Pair) throws {
        try pgStack(["start-postgres", pair.dir])
    }

    private static func pgStack(_ arguments: [String]) throws {
        let result = try ChildProcess.run(
            "/bin/bash", arguments: [root + "/scripts/pg-stack"] + arguments,
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], workDir: "/tmp")
        guard result.exitStatus == 0 else {
            throw ServersError(
                description: "scripts/pg-stack \(arguments.joined(separator: " ")) failed (\(result.exitStatus)): \(result.stderrText)")
        }
    }

    /// A second box's own pgbouncer under `dir`, in front of `pair`'s PostgreSQL
    /// (`scripts/pg-stack bouncer`); stop it with `stop(dir)`.
    public static func startBouncer(in dir: String, for pair: Pair) throws -> Pair {
        let result = try ChildProcess.run(
            "/bin/bash", arguments: [root + "/scripts/pg-stack", "bouncer", dir, pair.dir],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], workDir: "/tmp")
        guard result.exitStatus == 0 else {
            throw ServersError(
                description: "scripts/pg-stack bouncer \(dir) failed (\(result.exitStatus)): \(result.stderrText)")
        }
        return Pair(dir: dir)
    }

    /// A new, empty database owned by `frontdoor`, for one test's store; pgbouncer passes any
    /// database name through (`*` in scripts/pg-stack). Drop it with `dropDatabase`.
    public static func createDatabase(_ pair: Pair, prefix: String = "fd") throws -> String {
        let name = tableName(prefix)
        do {
            let admin = try PostgresConnection(pair.superuser.database("postgres"))
            defer { admin.close() }
            // Names are ours (hex), never input: CREATE DATABASE takes no parameters.
            _ = try admin.run("CREATE DATABASE \(name) OWNER frontdoor")
        } catch {
            throw ServersError(description: "CREATE DATABASE \(name): \(error)")
        }
        return name
    }

    /// Drops a test's database, ending any connection still in it (pgbouncer's idle ones).
    public static func dropDatabase(_ pair: Pair, _ name: String) {
        guard let admin = try? PostgresConnection(pair.superuser.database("postgres")) else { return }
        defer { admin.close() }
        _ = try? admin.run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}
