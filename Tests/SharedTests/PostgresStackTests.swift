import DevSupport
import Shared
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `scripts/pg-stack` as an ordinary user: the path a developer without root takes. Started by
/// root (CI), the test runs the script as `nobody`, and lets its own user in through pgbouncer
/// with `FRONTDOOR_PG_PEERS`.
@Suite struct PostgresStackTests {
    @Test func startsAndStopsAsAnOrdinaryUser() throws {
        let dir = PostgresServers.makeTemporaryFolder()
        defer { ChildProcess.removeTree(dir) }
        var prefix: [String] = []
        var script = PostgresServers.root + "/scripts/pg-stack"
        let copy = PostgresServers.makeTemporaryFolder()
        defer { ChildProcess.removeTree(copy) }
        if geteuid() == 0 {
            // A clone in a folder only root can enter (root's home) is closed to `nobody`: it runs
            // a copy, as a developer's own user runs the one in their own clone.
            script = copy + "/pg-stack"
            let text = try #require(FileIO.readFile(PostgresServers.root + "/scripts/pg-stack"), "cannot read scripts/pg-stack")
            let fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0o755)
            try #require(fd >= 0)
            FileIO.writeAll(fd, text)
            close(fd)
            #expect(chmod(copy, 0o755) == 0 && chmod(script, 0o755) == 0)
            let nobody = getpwnam("nobody")
            #expect(nobody != nil)
            guard let nobody else { return }
            #expect(chown(dir, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0)
            prefix = ["/usr/sbin/runuser", "-u", "nobody", "--"]
        }
        func stack(_ command: String) throws -> ChildProcess.Result {
            try ChildProcess.run(
                prefix.first ?? "/bin/bash",
                arguments: Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : ["/bin/bash"])
                    + [script, command, dir],
                environment: [
                    "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "FRONTDOOR_PG_FSYNC": "off",
                    "FRONTDOOR_PG_PEERS": PostgresServers.osUser,
                ],
                workDir: "/tmp")
        }
        let started = try stack("start")
        #expect(started.exitStatus == 0, "\(started.stderrText)")
        let pair = PostgresServers.Pair(dir: dir)
        do {
            let connection = try PostgresConnection(pair.bouncer)
            #expect(try connection.query("SELECT current_user").rows[0][0] == .text("frontdoor"))
            connection.close()
            #expect(PostgresPoolMode.of(pair.bouncer) == .pgbouncer("transaction"))
        } catch {
            Issue.record("through the ordinary user's pgbouncer: \(error)")
        }
        let stopped = try stack("stop")
        #expect(stopped.exitStatus == 0, "\(stopped.stderrText)")
        PostgresServers.recordLogs(dir)
        #expect(access(dir + "/pgbouncer.pid", F_OK) != 0)
        #expect(access(dir + "/data/postmaster.pid", F_OK) != 0)
        #expect {
            try PostgresConnection(pair.bouncer)
        } throws: { error in
            (error as? PostgresError)?.kind == .connectFailed
        }
    }
}
