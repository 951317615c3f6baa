#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-admin restore SNAPSHOT` (rule 13). In order:
/// 1. the snapshot is copied beside the store and checked, its MAC under the server key included
///    (`BackupSeal`; door still open: a bad or forged one changes nothing);
/// 2. the door closes (every endpoint answers 503) and the 2xx answers being written finish (`Door`);
/// 3. rule 9's ceiling is waited out from the closing, so no process that passed the door lives;
/// 4. the store and its -wal and -shm, and the session file (`SessionFile`) and its own, move aside
///    together into `<store>.before-restore-<time>/`;
/// 5. the checked copy is renamed into place (its sessions go to a new session file at its first open);
/// 6. every ledger deletion the snapshot still holds is done again, the normal way, and every
///    other security action of the ledger (`Reapply`);
/// 7. the door opens.
/// Killed anywhere, the door stays closed (from 2 on) and the next `restore` finishes the work:
/// the store moved aside in 4 is never touched again, and whatever stands in its place then is
/// only an earlier attempt's copy of a snapshot, replaced by a fresh one.
enum Restore {
    static func run(snapshot: String, session: AdminSession) throws -> JSONValue {
        let config = session.config
        let live = config.databasePath
        guard Files.exists(snapshot) else { throw AdminError(.notFound, "There is no snapshot at \(snapshot).") }
        // The restored store goes to whoever the live one belonged to (its folder's, if none).
        let owner = StoreFiles.owner(databasePath: live)
        let lock = try exclusive(live + "-restore-lock")
        defer { close(lock) }
        let staged = live + ".restoring"
        let takenAt = try stage(
            snapshot, to: staged, macKey: BackupSeal.key(serverKey: try DeletionAudit.key(config: config)))
        TestHooks.pause("restore-staged")

        let closedAt = try Door.close(live, now: Clock.now())
        try Door.waitForAnswersInFlight(live)
        TestHooks.pause("restore-door-closed")
        // Whole seconds: the marker's time is rounded down, and each process's alarm ends it within
        // its ceiling of its look at the door, which came before the closing.
        let safe = closedAt + config.processLifetimeSeconds + 2
        while Clock.now() < safe { usleep(100_000) }

        let aside = try moveAside(live, closedAt: closedAt)
        guard rename(staged, live) == 0 else { throw AdminError(.failed, "Cannot put \(staged) in place (errno \(errno)).") }
        try give(live, to: owner)
        try Files.syncDirectory(Files.directory(of: live))
        TestHooks.pause("restore-placed")

        let context = RequestContext(
            config: config, request: CGIRequest.withoutBody(environment: CGIEnvironment()), body: .object([]),
            now: Clock.now())
        let outcome = try Reapply.run(ledgers: [LedgerFile.path(config: config)], context: context, missingIsEmpty: true)
        try settle(try context.database(), databasePath: live)
        TestHooks.pause("restore-reapplied")
        try Door.open(live)
        return .object([
            ("restored", .string(snapshot)), ("takenAt", takenAt.map { .string(Clock.rfc3339($0)) } ?? .null),
            ("deletionsReapplied", .number(Double(outcome.reapplied))),
        ] + outcome.json + [
            ("doorClosedAt", .string(Clock.rfc3339(closedAt))), ("movedAside", .string(aside)),
        ])
    }

    static func give(_ path: String, to owner: StoreFiles.Owner?) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        guard fd >= 0, StoreFiles.give(fd, to: owner) else {
            throw AdminError(.failed, "Cannot give \(path) to the store's owner (errno \(errno)).")
        }
    }

    /// One restore at a time; a killed one lets go of it with its process.
    static func exclusive(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AdminError(.failed, "Cannot open \(path) (errno \(errno)).") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw AdminError(.unavailable, "Another restore is running.")
        }
        return fd
    }

    /// Copies the snapshot to `staged` and checks the copy: SQLite's integrity check, a frontdoor
    /// store, of a schema this program knows. The backup's own time record is read and dropped.
    /// Returns when the snapshot was taken (its record, else the file's modification time).
    static func stage(_ snapshot: String, to staged: String, macKey: [UInt8]) throws -> UnixTime? {
        let temporary = staged + ".tmp-\(getpid())"
        unlink(temporary)
        try Files.copy(snapshot, to: temporary)
        var takenAt: UnixTime?
        do {
            // The MAC first, over the copy's bytes (what goes in place): SQLite, run as root, parses
            // only a file this box's server key sealed (the fourth review's T5-12).
            try BackupSeal.check(temporary, named: snapshot, key: macKey)
            let file = try SnapshotFile(path: temporary)
            takenAt = try check(file, named: snapshot)
            try file.execute("DROP TABLE IF EXISTS \(Backup.takenTable); PRAGMA journal_mode = DELETE")
            file.close()
            try Files.sync(temporary)
            guard rename(temporary, staged) == 0 else {
                throw AdminError(.failed, "Cannot rename \(temporary) (errno \(errno)).")
            }
            try Files.syncDirectory(Files.directory(of: staged))
        } catch {
            unlink(temporary)
            unlink(temporary + "-journal")
            throw error
        }
        if let takenAt { return takenAt }
        var info = stat()
        return stat(snapshot, &info) == 0 ? UnixTime(info.st_mtim.tv_sec) : nil
    }

    /// The refusals (69) come before the door closes, so a wrong file costs nothing.
    static func check(_ file: SnapshotFile, named snapshot: String) throws -> UnixTime? {
        let intact: Bool
        do {
            intact = try file.isIntact()
        } catch {
            throw refusal(snapshot, "is not a database (\(error.detail ?? error.message))")
        }
        guard intact else { throw refusal(snapshot, "fails SQLite's integrity check") }
        let tables = Set(try file.rows("SELECT name FROM sqlite_schema WHERE type = 'table'").compactMap { $0.text(0) })
        guard tables.isSuperset(of: ["accounts", "identities", "sessions"]) else {
            throw refusal(snapshot, "is not a frontdoor store")
        }
        let version = try file.rows("PRAGMA user_version").first?.int(0) ?? 0
        guard version >= 1 && version <= Int64(Database.schemaVersion) else {
            throw refusal(snapshot, "has schema version \(version), which this program (\(Database.schemaVersion)) cannot open")
        }
        guard tables.contains(Backup.takenTable) else { return nil }
        return try file.rows("SELECT taken_at FROM \(Backup.takenTable)").first?.int(0)
    }

    static func refusal(_ snapshot: String, _ why: String) -> AdminError {
        AdminError(.unavailable, "Refused: \(snapshot) \(why); nothing was changed.")
    }

    /// Moves the store and its -wal and -shm into the folder of this closing, the WAL first and the
    /// file last: a -wal left beside another file would be read into it. Once the file is there,
    /// an earlier attempt got this far, and what stands in the store's place is its copy of a
    /// snapshot, which goes.
    /// What goes aside with the store, in order: each WAL before its file, the store's file last.
    static let companions = ["-wal", "-shm", "-sessions-wal", "-sessions-shm", "-sessions"]

    static func moveAside(_ live: String, closedAt: UnixTime) throws -> String {
        let folder = live + ".before-restore-" + Backup.stamp(closedAt)
        guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
            throw AdminError(.failed, "Cannot make \(folder) (errno \(errno)).")
        }
        let kept = folder + "/" + Files.name(of: live)
        // A box that had no store yet: said so, so a later attempt knows the file it finds is its own.
        let none = kept + ".none"
        if Files.exists(kept) || Files.exists(none) {
            for suffix in companions + [""] where unlink(live + suffix) != 0 && errno != ENOENT {
                throw AdminError(.failed, "Cannot remove \(live + suffix) (errno \(errno)).")
            }
        } else {
            for suffix in companions where Files.exists(live + suffix) {
                guard rename(live + suffix, kept + suffix) == 0 else {
                    throw AdminError(.failed, "Cannot move \(live + suffix) aside (errno \(errno)).")
                }
            }
            TestHooks.pause("restore-moving")
            if Files.exists(live) {
                guard rename(live, kept) == 0 else { throw AdminError(.failed, "Cannot move \(live) aside (errno \(errno)).") }
            } else {
                let fd = open(none, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw AdminError(.failed, "Cannot create \(none) (errno \(errno)).") }
                close(fd)
            }
        }
        try Files.syncDirectory(folder)
        try Files.syncDirectory(Files.directory(of: live))
        return folder
    }

    /// The restored store checkpointed into its file (and the rows the re-application deleted out
    /// of the WAL), and the events hint set by what now waits in the outbox.
    static func settle(_ db: Database, databasePath: String) throws {
        try db.checkpoint()
        let waiting = try db.query("SELECT count(*) FROM events").first?.int(0) ?? 0
        EventHint.set(waiting > 0 ? Clock.now() : nil, databasePath: databasePath)
        db.close()
    }
}
