#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 20: many processes write and checkpoint one WAL store at once, as frontdoor's endpoints
/// do (every commit followed by a checkpoint of some kind, session checks emptying the WAL), and
/// are SIGKILLed at seeded random moments. Afterwards SQLite's integrity check passes, and every
/// write a process answered is there, byte for byte, with its row count consistent across two
/// tables (docs/sqlite.md). `FRONTDOOR_WAL_STRESS_SECONDS` (default 15; `make wal-stress` runs
/// 300) and `FRONTDOOR_SEED`.
@Suite struct WALStressTests {
    struct Running {
        let pid: pid_t
        let stdoutPath: String
        let stderrPath: String
        let killAt: Double?
        let startedAt: Double
    }

    @Test func killedWritersAndCheckpointsLoseNoAnsweredWrite() throws {
        var random = SeededRandom.fromEnvironment("WALStressTests")
        let seconds = environmentInt("FRONTDOOR_WAL_STRESS_SECONDS", 15)
        let parallel = 8
        let h = try Harness()
        let setup = try h.database()
        let tables = WALStress.schema.split(separator: ";").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        for statement in tables { try setup.run(String(statement)) }
        setup.close()

        let program = Harness.binDir + "/frontdoor-dev"
        var running: [Running] = []
        var answered: [String: Set<Int>] = [:]
        var started = 0, killed = 0, readers = 0
        var failures: [String] = []
        // How long a process lives unkilled sets the kill window: first a writer of 10 commits, then
        // the median of the last lifetimes seen, so a loaded box's slow first run (or a quiet box's
        // fast one) does not leave the kills all too late or all too early.
        let warm = Clock.monotonicMillis()
        let warmUp = try ChildProcess.run(
            program, arguments: ["wal-stress", "--database", h.databasePath, "--writer", "warm", "--commits", "10", "--seed", "1"],
            environment: TestLogs.childEnvironment, workDir: h.dir)
        try #require(warmUp.exitStatus == 0, "\(warmUp.stderrText)")
        var lifetimes: [Double] = [Clock.monotonicMillis() - warm]
        var window: Double { max(20, lifetimes.sorted()[lifetimes.count / 2] * 1.3) }
        answered["warm"] = Set(0..<10)

        func collect(_ child: Running, status: Int32) {
            let result = ChildProcess.Result(
                exitStatus: status, stdout: FileIO.readFile(child.stdoutPath, limit: 16 << 20) ?? [],
                stderr: FileIO.readFile(child.stderrPath, limit: 1 << 20) ?? [])
            TestLogs.appendOutput(result.stderr)
            unlink(child.stdoutPath)
            unlink(child.stderrPath)
            if status == 128 + SIGKILL { killed += 1 } else if status != 0 { failures.append(result.stderrText) }
            if status == 0 {
                lifetimes.append(Clock.monotonicMillis() - child.startedAt)
                if lifetimes.count > 31 { lifetimes.removeFirst() }
            }
            for line in result.stdoutText.split(separator: "\n") {
                let parts = line.split(separator: " ")
                // A line cut by the kill is no answer: only whole ones count.
                guard parts.count == 3, parts[0] == "committed", let seq = Int(parts[2]) else { continue }
                answered[String(parts[1]), default: []].insert(seq)
            }
        }

        let deadline = Clock.monotonicMillis() + Double(seconds) * 1000
        while Clock.monotonicMillis() < deadline || !running.isEmpty {
            while Clock.monotonicMillis() < deadline && running.count < parallel {
                started += 1
                let reader = Int.random(in: 0..<4, using: &random) == 0
                if reader { readers += 1 }
                let commits = reader ? 0 : Int.random(in: 1...12, using: &random)
                let seed = UInt64.random(in: 1...UInt64.max, using: &random)
                let child = try ChildProcess.start(
                    program,
                    arguments: ["wal-stress", "--database", h.databasePath, "--writer", "w\(started)",
                                "--commits", String(commits), "--seed", String(seed)],
                    environment: TestLogs.childEnvironment, workDir: h.dir)
                let kill = Int.random(in: 0..<3, using: &random) > 0
                let now = Clock.monotonicMillis()
                let killAt = kill ? now + Double.random(in: 0...window, using: &random) : nil
                running.append(Running(
                    pid: child.pid, stdoutPath: child.stdoutPath, stderrPath: child.stderrPath, killAt: killAt, startedAt: now))
            }
            var still: [Running] = []
            for child in running {
                var status: Int32 = 0
                if waitpid(child.pid, &status, WNOHANG) == child.pid {
                    collect(child, status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
                    continue
                }
                if let at = child.killAt, Clock.monotonicMillis() >= at { Glibc.kill(child.pid, SIGKILL) }
                still.append(child)
            }
            running = still
            usleep(500)
        }

        #expect(failures.isEmpty, "processes that failed: \(failures)")
        let db = try h.database()
        #expect(try db.query("PRAGMA integrity_check").map { $0.text(0) } == ["ok"])
        var missing: [String] = [], wrong: [String] = [], inconsistent: [String] = []
        let counts = Dictionary(
            uniqueKeysWithValues: try db.query("SELECT writer, n FROM wal_stress_counts").compactMap { row in
                row.text(0).map { ($0, Int(row.int(1) ?? -1)) }
            })
        for (writer, seqs) in answered.sorted(by: { $0.key < $1.key }) {
            let stored = try db.query("SELECT seq, data FROM wal_stress WHERE writer = ?", [.text(writer)])
            var found = Set<Int>()
            for row in stored {
                guard let seq = row.int(0).map(Int.init) else { continue }
                found.insert(seq)
                if row.blob(1) != WALStress.payload(writer: writer, seq: seq) { wrong.append("\(writer) \(seq)") }
            }
            missing += seqs.subtracting(found).sorted().map { "\(writer) \($0)" }
            if counts[writer] != stored.count { inconsistent.append("\(writer): \(counts[writer] ?? 0) counted, \(stored.count) rows") }
        }
        #expect(missing.isEmpty, "answered writes missing: \(missing.prefix(20))")
        #expect(wrong.isEmpty, "rows with other bytes: \(wrong.prefix(20))")
        #expect(inconsistent.isEmpty, "\(inconsistent.prefix(20))")
        let total = answered.values.map(\.count).reduce(0, +)
        print("WALStressTests: \(seconds) s, \(started) processes (\(readers) session-check readers), \(killed) killed, "
              + "\(total) answered writes, all present; \(try db.query("SELECT count(*) FROM wal_stress").first?.int(0) ?? -1) "
              + "rows committed; kill window \(Int(window)) ms")
        #expect(killed >= started / 4, "the window should catch many processes mid-way")
        #expect(total >= 100)
    }
}
