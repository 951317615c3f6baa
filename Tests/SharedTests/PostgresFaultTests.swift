import DevSupport
import Shared
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Servers that stop answering, are shut down or are killed mid-query: each gives a typed error
/// within a bound at least ten times below the failure it guards against (a statement that would
/// sleep two minutes), and the client never hangs.
@Suite struct PostgresFaultTests {
    /// `probe`'s first non-nil answer, asking every 20 ms for up to 10 s.
    static func within10Seconds<T>(_ probe: () throws -> T?) rethrows -> T? {
        let deadline = Clock.monotonicMillis() + 10_000
        while Clock.monotonicMillis() < deadline {
            if let answer = try probe() { return answer }
            usleep(20_000)
        }
        return nil
    }

    static let running =
        "FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND strpos(query, $1) > 0"

    /// The pid of the backend running a statement that contains `marker`, once it runs.
    static func backendRunning(_ marker: String, admin: PostgresConnection) throws -> Int32? {
        try within10Seconds { try admin.query("SELECT pid " + running, [.text(marker)]).rows.first?.int(0).map { Int32($0) } }
    }

    /// Whether no statement containing `marker` runs any more, within 10 s.
    static func stopsRunning(_ marker: String, admin: PostgresConnection) throws -> Bool {
        try within10Seconds { try admin.query("SELECT count(*) " + running, [.text(marker)]).rows.first?.int(0) == 0 ? true : nil } ?? false
    }

    static func marker() -> String { "frontdoor-marker-" + Hex.encode((try? SecureRandom.bytes(6)) ?? [1]) }

    @Test(arguments: ["bouncer", "direct"])
    func aStatementPastItsTimeIsCancelledWithinTheBound(_ path: String) throws {
        let servers = try PostgresServers.shared()
        let admin = try PostgresConnection(servers.superuser)
        defer { admin.close() }
        let connection = try PostgresConnection(path == "bouncer" ? servers.bouncer : servers.direct, timeoutSeconds: 1)
        let marker = Self.marker()
        let started = Clock.monotonicMillis()
        do {
            _ = try connection.query("SELECT pg_sleep(120) -- \(marker)")
            Issue.record("a two-minute statement answered within a one-second bound")
        } catch {
            #expect(error.kind == .timedOut)
            #expect(error.frontdoorError.status == 503)
        }
        #expect(Clock.monotonicMillis() - started < 10_000)
        // The server was asked to cancel: the statement is gone long before its two minutes.
        #expect(try Self.stopsRunning(marker, admin: admin))
        #expect {
            try connection.query("SELECT 1")
        } throws: { error in
            (error as? PostgresError)?.kind == .connectionLost
        }
    }

    @Test func aServerThatNeverAnswersTimesOutWhileLoggingIn() throws {
        let dir = PostgresServers.makeTemporaryFolder()
        defer { ChildProcess.removeTree(dir) }
        // A socket that takes connections into its backlog and never says a word.
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let path = Array((dir + "/.s.PGSQL.5432").utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: path + [0]) }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(listener, 8) == 0)
        let url = PostgresURL(address: .unixSocket(directory: dir, port: 5432), user: "u", database: "d", connectTimeoutSeconds: 2)
        let started = Clock.monotonicMillis()
        do {
            _ = try PostgresConnection(url)
            Issue.record("logged in to a socket that never answers")
        } catch {
            #expect(error.kind == .timedOut)
            #expect(error.frontdoorError.status == 503)
        }
        #expect(Clock.monotonicMillis() - started < 20_000)
    }

    @Test func anOperatorsShutdownOfTheBackendIsNamedAndUnavailable() throws {
        let servers = try PostgresServers.shared()
        let admin = try PostgresConnection(servers.superuser)
        defer { admin.close() }
        let connection = try PostgresConnection(servers.direct)
        let pid = try connection.query("SELECT pg_backend_pid()").rows[0][0]
        #expect(try admin.query("SELECT pg_terminate_backend($1::int, 10000)", [pid]).rows[0][0] == .integer(1))
        do {
            _ = try connection.query("SELECT 1")
            Issue.record("a terminated backend answered")
        } catch {
            #expect(error.sqlstate == "57P01")
            #expect(error.isUnavailable)
            #expect(error.frontdoorError.status == 503)
        }
        #expect {
            try connection.query("SELECT 1")
        } throws: { error in
            (error as? PostgresError)?.kind == .connectionLost
        }
    }

    /// Kill -9 of the backend (which makes PostgreSQL restart every backend) and of pgbouncer, on
    /// a pair of the test's own, each in the middle of a two-minute statement.
    @Test func killedServersGiveATypedErrorInBoundedTime() throws {
        let dir = PostgresServers.makeTemporaryFolder()
        let pair = try PostgresServers.start(in: dir)
        defer {
            PostgresServers.stop(dir)
            PostgresServers.recordLogs(dir)
            ChildProcess.removeTree(dir)
        }
        /// Runs a long statement through `url` on one thread while the other kills `victim(pid of
        /// the backend running it)`; the statement's error and how long it took. A statement that
        /// ended before anything was killed never met the fault under test (after PostgreSQL's
        /// crash-restart, pgbouncer can hand out a server connection the restart left dead, once):
        /// it is run again, up to three times.
        func killMidQuery(_ url: PostgresURL, _ victim: @escaping @Sendable (Int32) -> pid_t) -> (PostgresError?, Double) {
            for _ in 0..<3 {
                let marker = Self.marker()
                let outcome = Locked<(PostgresError?, Double)>((nil, -1))
                let killed = Locked(false)
                storeRunThreads(2) { i in
                    if i == 0 {
                        let started = Clock.monotonicMillis()
                        do throws(PostgresError) {
                            let connection = try PostgresConnection(url, timeoutSeconds: 30)
                            _ = try connection.query("SELECT pg_sleep(120) -- \(marker)")
                            outcome.withLock { $0 = (nil, Clock.monotonicMillis() - started) }
                        } catch {
                            outcome.withLock { $0 = (error, Clock.monotonicMillis() - started) }
                        }
                    } else if let admin = try? PostgresConnection(pair.superuser),
                        let backend = try? Self.backendRunning(marker, admin: admin)
                    {
                        admin.close()
                        kill(victim(backend), SIGKILL)
                        killed.withLock { $0 = true }
                    }
                }
                if killed.current { return outcome.current }
            }
            Issue.record("the long statement never ran long enough to be killed")
            return (nil, -1)
        }
        func waitUntilServing(_ url: PostgresURL) -> Bool {
            let deadline = Clock.monotonicMillis() + 30_000
            while Clock.monotonicMillis() < deadline {
                if let c = try? PostgresConnection(url), (try? c.query("SELECT 1")) != nil { return true }
                usleep(100_000)
            }
            return false
        }

        let (direct, directMillis) = killMidQuery(pair.direct) { $0 }
        #expect(direct?.kind == .connectionLost)
        #expect(direct?.frontdoorError.status == 503)
        #expect(directMillis >= 0 && directMillis < 12_000)
        #expect(waitUntilServing(pair.direct))

        let (bounced, bouncedMillis) = killMidQuery(pair.bouncer) { $0 }
        #expect(bounced?.isUnavailable == true, "\(String(describing: bounced))")
        #expect(bounced?.frontdoorError.status == 503)
        #expect(bouncedMillis >= 0 && bouncedMillis < 12_000)
        #expect(waitUntilServing(pair.bouncer))

        let bouncerPid = pid_t(String(decoding: FileIO.readFile(dir + "/pgbouncer.pid") ?? [], as: UTF8.self)
            .prefix { $0.isNumber }) ?? 0
        #expect(bouncerPid > 0)
        let (gone, goneMillis) = killMidQuery(pair.bouncer) { _ in bouncerPid }
        #expect(gone?.kind == .connectionLost)
        #expect(goneMillis >= 0 && goneMillis < 12_000)
        // SIGKILL lands asynchronously: until the process is gone (or a zombie, which has closed its
        // sockets) its listening socket still takes a connection, then drops it (connectionLost).
        let exitDeadline = Clock.monotonicMillis() + 10_000
        while Clock.monotonicMillis() < exitDeadline {
            let stat = String(decoding: FileIO.readFile("/proc/\(bouncerPid)/stat") ?? [], as: UTF8.self)
            guard let close = stat.lastIndex(of: ")") else { break }
            if stat[stat.index(after: close)...].hasPrefix(" Z") { break }
            usleep(10_000)
        }
        do {
            _ = try PostgresConnection(pair.bouncer)
            Issue.record("connected to a killed pgbouncer")
        } catch {
            #expect(error.kind == .connectFailed)
            #expect(error.frontdoorError.status == 503)
        }
    }
}
