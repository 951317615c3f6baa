#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `frontdoor-admin backup` (rule 13): a checked, synced snapshot of the live store under its own
/// name, mode 0600, taken without stopping the door; killed, it leaves no file under that name.
@Suite struct BackupTests {
    /// The account ids a snapshot holds (read from a copy: opening the file itself would change it).
    static func accounts(in snapshot: String, _ h: Harness) throws -> Set<String> {
        let copy = h.dir + "/read-\(Clock.monotonicMillis()).sqlite3"
        let result = try ChildProcess.run("/bin/cp", arguments: [snapshot, copy], environment: [:], workDir: h.dir)
        guard result.exitStatus == 0 else { throw HarnessError("cp \(snapshot): \(result.stderrText)") }
        let db = try Database(path: copy)
        defer { db.close() }
        #expect(try db.query("PRAGMA integrity_check").first?.text(0) == "ok")
        return Set(try db.query("SELECT id FROM accounts").compactMap { $0.text(0) })
    }

    static func backups(in dir: String) throws -> [String] {
        try Files.list(dir).filter { $0.hasPrefix("frontdoor-") }.sorted()
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test func aBackupIsACheckedSnapshotAtMode0600UnderItsOwnName() throws {
        let h = try Harness()
        let a = try h.signedIn("g-backup-a", email: "backup.a@gmail.com")
        let b = try h.signedIn("g-backup-b")
        let dir = h.dir + "/backups"
        mkdir(dir, 0o755)
        let started = Clock.now()
        let run = try h.admin(["backup", dir])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let path = try #require(run.json["path"]?.stringValue)
        #expect(Files.directory(of: path) == dir)
        #expect(Files.name(of: path).hasPrefix("frontdoor-") && path.hasSuffix("Z.sqlite3"), "\(path)")
        #expect(Self.mode(path) == 0o600)
        #expect(run.json["bytes"] == .number(Double(FileIO.readFile(path, limit: 64 << 20)?.count ?? -1)))
        let takenAt = try #require(run.json["takenAt"]?.stringValue)
        #expect(takenAt >= Clock.rfc3339(started) && takenAt <= Clock.rfc3339(Clock.now()))
        #expect(try Self.backups(in: dir) == [Files.name(of: path), Files.name(of: path) + ".mac"], "no temporary file is left")
        #expect(Self.mode(path + ".mac") == 0o600)
        // Whole by itself: no WAL beside it, the accounts in it, and what came after not.
        #expect(!Files.exists(path + "-wal") && !Files.exists(path + "-journal"))
        let later = try h.signedIn("g-backup-later")
        #expect(try Self.accounts(in: path, h) == [a.accountId, b.accountId])
        #expect(try h.holds(later.accountId))
        #expect(run.audit == ["frontdoor-admin action=backup account=- uid=\(getuid()) sudoUser=ops-person result=ok"])
    }

    @Test func keepLeavesTheNewestBackupsAndNothingElseIsTouched() throws {
        let h = try Harness()
        _ = try h.signedIn("g-keep")
        let dir = h.dir + "/backups"
        mkdir(dir, 0o700)
        try h.writeText(dir + "/notes.txt", "the operator's own file\n")
        var made: [String] = []
        for _ in 0..<4 {
            let run = try h.admin(["backup", dir, "--keep", "2"])
            #expect(run.status == 0, "\(run.stdout)")
            made.append(Files.name(of: try #require(run.json["path"]?.stringValue)))
        }
        // Taken within the same second they are told apart by .1, .2, …, and still kept newest first.
        #expect(Set(made).count == 4)
        #expect(try Self.backups(in: dir) == Array(made.suffix(2)).flatMap { [$0, $0 + ".mac"] }.sorted(), "\(made)")
        #expect(Files.exists(dir + "/notes.txt"))
    }

    /// Killed after `VACUUM INTO`, after the check and sync, and with its `.mac` made: no file
    /// under a backup's name; the next backup removes what the killed one left and succeeds.
    @Test(arguments: ["backup-vacuumed", "backup-checked", "backup-sealed"])
    func aKilledBackupLeavesNoFileUnderTheFinalName(_ point: String) throws {
        let h = try Harness()
        let me = try h.signedIn("g-killed-backup")
        let dir = h.dir + "/backups"
        mkdir(dir, 0o700)
        let held = try h.startAdmin(["backup", dir], holdAt: point)
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try Self.backups(in: dir).isEmpty)
        #expect(try Files.list(dir).contains { $0.hasPrefix(".frontdoor-") && $0.contains(".partial-") })
        let run = try h.admin(["backup", dir])
        #expect(run.status == 0)
        let name = Files.name(of: try #require(run.json["path"]?.stringValue))
        #expect(try Files.list(dir).sorted() == [name, name + ".mac"])
        #expect(try h.check(me.bearer).status == 200)
    }

    /// Killed between its `.mac` taking the name and the snapshot's link: a `.mac` with no
    /// snapshot, which a later backup leaves while it may be a live backup's (a minute) and
    /// removes after; the backup made before is untouched.
    @Test func aBackupKilledBetweenItsTwoNamesLeavesOnlyItsMac() throws {
        let h = try Harness()
        let me = try h.signedIn("g-killed-named")
        let dir = h.dir + "/backups"
        mkdir(dir, 0o700)
        let before = try h.admin(["backup", dir])
        #expect(before.status == 0, "\(before.stdout)")
        let kept = Files.name(of: try #require(before.json["path"]?.stringValue))
        let held = try h.startAdmin(["backup", dir], holdAt: "backup-mac-placed")
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        let left = try Self.backups(in: dir).filter { $0 != kept && $0 != kept + ".mac" }
        #expect(left.count == 1 && left.allSatisfy { $0.hasSuffix(".sqlite3.mac") }, "\(left)")
        let orphan = dir + "/" + (left.first ?? "")
        #expect(try h.check(me.bearer).status == 200)

        let young = try h.admin(["backup", dir])
        #expect(young.status == 0)
        #expect(Files.exists(orphan), "a minute-young .mac may be a live backup's")
        let twoMinutesAgo = timeval(tv_sec: Int(Clock.now() - 120), tv_usec: 0)
        var old = [twoMinutesAgo, twoMinutesAgo]
        #expect(utimes(orphan, &old) == 0)
        let later = try h.admin(["backup", dir])
        #expect(later.status == 0)
        #expect(!Files.exists(orphan))
        let made = try [young, later].map { Files.name(of: try #require($0.json["path"]?.stringValue)) }
        #expect(try Files.list(dir).sorted() == ([kept] + made).flatMap { [$0, $0 + ".mac"] }.sorted())
    }

    /// The door stays open: a backup finishes while a sign-in holds the store's write lock, and
    /// holds what was committed before it, not what was still uncommitted.
    @Test func aBackupDoesNotWaitForAWriterAndHoldsOnlyWhatWasCommitted() throws {
        let h = try Harness()
        let before = try h.signedIn("g-committed", email: "committed@gmail.com")
        let held = try HeldRequest.signInGoogle(
            h, sub: "g-in-flight", email: "in.flight@gmail.com", holdAt: "session-created")
        try held.waitUntilHeld()
        let dir = h.dir + "/backups"
        mkdir(dir, 0o700)
        let run = try h.admin(["backup", dir])
        #expect(run.status == 0, "\(run.stdout)")
        let answer = try held.release()
        #expect(answer.status == 200)
        let inFlight = try #require(answer.body["accountId"]?.stringValue)
        #expect(try Self.accounts(in: try #require(run.json["path"]?.stringValue), h) == [before.accountId])
        #expect(try h.holds(inFlight))
    }
}
