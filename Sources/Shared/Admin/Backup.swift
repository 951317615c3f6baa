#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-admin backup DIR [--keep N]` (rule 13): a consistent snapshot of the live store
/// without stopping the door. `VACUUM INTO` reads the store in one read transaction, which WAL
/// lets writers go on beside (the online backup API would restart at each of their commits). It
/// writes a temporary name in DIR, which is checked, synced and only then renamed, so a backup
/// killed at any point leaves no snapshot under a backup's name; the next backup removes its remains.
/// Beside it goes `<name>.mac`, its MAC under the server key (`BackupSeal`), which `restore` checks.
/// On SQLite the sessions live in their own file (`SessionFile`): the backup is still one file,
/// the store's snapshot with the session file's copied in after it (`addSessions`).
enum Backup {
    static let prefix = "frontdoor-"
    static let suffix = ".sqlite3"
    /// The snapshot's own record of when it was taken, read back (and dropped) by a restore.
    static let takenTable = "frontdoor_snapshot"

    static func run(directory: String, keep: Int?, session: AdminSession) throws -> JSONValue {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw AdminError(.notFound, "There is no folder \(directory) to put the backup in.")
        }
        let db = try session.database()
        removeRemains(in: directory)
        let takenAt = Clock.now()
        let temporary = directory + "/." + prefix + stamp(takenAt) + suffix + ".partial-\(getpid())"
        // VACUUM INTO fills an empty file it finds: made here, so it is 0600 from the start.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AdminError(.failed, "Cannot create \(temporary) (errno \(errno)).") }
        close(fd)
        let sessions = temporary + "-sessions"
        do {
            if db.isPostgres || db.isSessionFileOnly {
                try db.run("VACUUM INTO ?", [.text(temporary)])
            } else {
                try db.run("VACUUM store INTO ?", [.text(temporary)])
                TestHooks.pause("backup-store-taken")
                let fd = open(sessions, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw AdminError(.failed, "Cannot create \(sessions) (errno \(errno)).") }
                close(fd)
                try db.run("VACUUM main INTO ?", [.text(sessions)])
                try addSessions(from: sessions, to: temporary)
                unlink(sessions)
            }
            TestHooks.pause("backup-vacuumed")
            try check(temporary, takenAt: takenAt)
            try Files.sync(temporary)
            TestHooks.pause("backup-checked")
            // Its proof of origin (`BackupSeal`), made before the snapshot takes its name and put in
            // place first, so no snapshot is ever under a backup's name without it.
            try BackupSeal.write(
                for: temporary, to: temporary + BackupSeal.suffix,
                key: BackupSeal.key(serverKey: try DeletionAudit.key(config: session.config)))
            TestHooks.pause("backup-sealed")
            let path = try place(temporary, in: directory, takenAt: takenAt)
            try Files.syncDirectory(directory)
            let removed = try keep.map { try prune(directory, keep: $0) } ?? []
            return .object([
                ("path", .string(path)), ("bytes", .number(Double(AdminStats.size(path)))),
                ("takenAt", .string(Clock.rfc3339(takenAt))), ("removed", .array(removed.map(JSONValue.string))),
            ])
        } catch {
            unlink(temporary)
            unlink(temporary + BackupSeal.suffix)
            unlink(temporary + "-journal")
            unlink(sessions)
            unlink(sessions + "-journal")
            throw error
        }
    }

    /// Puts the session file's snapshot, taken after the store's, into the store's as its
    /// `sessions` table, the layout before `SessionFile` (which a restore takes apart again).
    /// Taken after, it may hold sessions of accounts the store's snapshot has not, or has disabled,
    /// made or changed between the two: those go. A session ended between is not in it; an account
    /// deleted or disabled between is in the ledger, which the restore re-applies.
    static func addSessions(from sessions: String, to snapshot: String) throws {
        let file = try SnapshotFile(path: snapshot)
        defer { file.close() }
        _ = try file.rows("ATTACH ? AS taken", [.text(sessions)])
        try file.execute(
            SessionFile.schema + """
                INSERT INTO main.sessions (\(SessionFile.columns)) SELECT \(SessionFile.columns) FROM taken.sessions
                  WHERE account_id IN (SELECT id FROM main.accounts WHERE disabled_at IS NULL);
                DETACH taken;
                """)
    }

    /// Records when the snapshot was taken, then has SQLite check every page of it. `VACUUM INTO`
    /// writes a rollback-journal file, whole without a WAL beside it.
    static func check(_ path: String, takenAt: UnixTime) throws {
        let file = try SnapshotFile(path: path)
        defer { file.close() }
        try file.execute("CREATE TABLE \(takenTable) (taken_at INTEGER NOT NULL) STRICT")
        _ = try file.rows("INSERT INTO \(takenTable) (taken_at) VALUES (?)", [.integer(takenAt)])
        guard try file.isIntact() else {
            throw AdminError(.failed, "The snapshot \(path) failed SQLite's integrity check; no backup was made.")
        }
    }

    /// Links the checked file in under its name (a later backup in the same second gets `.1`,
    /// `.2`, …, past every one there: nothing is replaced, and names sort as the backups were
    /// taken), its `.mac` first: that link takes the name, and a backup killed between the two
    /// leaves only a `.mac` with no snapshot, which no restore reads and the next backup removes.
    /// Then drops the temporary names.
    static func place(_ temporary: String, in directory: String, takenAt: UnixTime) throws -> String {
        let time = stamp(takenAt)
        let base = directory + "/" + prefix + time
        let taken = try Files.list(directory).compactMap(order).filter { $0.0 == time }.map(\.1)
        let first = taken.max().map { $0 + 1 } ?? 0
        let sealTemporary = temporary + BackupSeal.suffix
        for n in first..<(first + 100) {
            let path = base + (n == 0 ? "" : ".\(n)") + suffix
            guard link(sealTemporary, path + BackupSeal.suffix) == 0 else {
                guard errno == EEXIST else { throw AdminError(.failed, "Cannot name the backup \(path) (errno \(errno)).") }
                continue
            }
            TestHooks.pause("backup-mac-placed")
            if link(temporary, path) == 0 {
                unlink(temporary)
                unlink(sealTemporary)
                return path
            }
            let code = errno
            unlink(path + BackupSeal.suffix)
            guard code == EEXIST else { throw AdminError(.failed, "Cannot name the backup \(path) (errno \(code)).") }
        }
        throw AdminError(.failed, "Too many backups named \(base)….")
    }

    /// `20261130T084529Z`: sorts as the time does.
    static func stamp(_ time: UnixTime) -> String {
        String(Clock.rfc3339(time).filter { $0 != "-" && $0 != ":" })
    }

    /// The time and the same-second number a backup's name says, nil for any other file.
    static func order(_ name: String) -> (String, Int)? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        let parts = middle.split(separator: ".", omittingEmptySubsequences: false)
        guard let time = parts.first, time.count == 16, time.hasSuffix("Z"), parts.count <= 2 else { return nil }
        guard parts.count == 2 else { return (String(time), 0) }
        guard let n = Int(parts[1]), n > 0 else { return nil }
        return (String(time), n)
    }

    /// `--keep N`: the newest N backups in the folder stay, the older ones go. Other files stay.
    static func prune(_ directory: String, keep: Int) throws -> [String] {
        let backups = try Files.list(directory).compactMap { name in order(name).map { (name, $0) } }
            .sorted { $0.1.0 != $1.1.0 ? $0.1.0 < $1.1.0 : $0.1.1 < $1.1.1 }
        let old = backups.dropLast(keep).map { directory + "/" + $0.0 }
        for path in old { unlink(path + BackupSeal.suffix) }
        for path in old where unlink(path) != 0 {
            throw AdminError(.failed, "Cannot remove the old backup \(path) (errno \(errno)).")
        }
        if !old.isEmpty { try Files.syncDirectory(directory) }
        return old
    }

    /// What killed backups left: temporary files whose process is gone, and a `.mac` whose
    /// snapshot never took its name (older than a minute: a live backup links the snapshot
    /// right after it).
    static func removeRemains(in directory: String) {
        let names = (try? Files.list(directory)) ?? []
        for name in names where name.hasPrefix("." + prefix) {
            guard let mark = name.split(separator: ".").last(where: { $0.hasPrefix("partial-") }) else { continue }
            let digits = mark.dropFirst("partial-".count).prefix { $0.isNumber }
            guard let pid = Int32(digits), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(directory + "/" + name)
        }
        let present = Set(names)
        for name in names where name.hasSuffix(suffix + BackupSeal.suffix) {
            let snapshot = String(name.dropLast(BackupSeal.suffix.count))
            guard order(snapshot) != nil, !present.contains(snapshot) else { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0, Int64(info.st_mtim.tv_sec) < Clock.now() - 60 else { continue }
            unlink(directory + "/" + name)
        }
    }
}
