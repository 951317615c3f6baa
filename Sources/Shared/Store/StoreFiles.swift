#if canImport(Glibc)
import Glibc
#endif

/// The files we make beside the database (the database itself, the events hint, the checkpoint
/// marker, the server key) belong to the database's owner, or, before there is a database, its
/// folder's: the user the programs run as. A process run as root (the operator's
/// `frontdoor-check` as the last install step, a cron line) would otherwise leave files that the
/// programs can neither open nor change, and every request would answer 500. SQLite gives its
/// own `-wal` and `-shm` the database's owner when it runs as root (`robustFchown` in os_unix.c),
/// so the database's owner decides theirs too.
public enum StoreFiles {
    public struct Owner: Equatable, Sendable {
        public let uid: uid_t
        public let gid: gid_t
    }

    /// Who files beside `databasePath` belong to: the database's owner, or its folder's while the
    /// database does not exist.
    public static func owner(databasePath: String) -> Owner? {
        owner(of: databasePath) ?? owner(of: Files.directory(of: databasePath))
    }

    static func owner(of path: String) -> Owner? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Owner(uid: info.st_uid, gid: info.st_gid)
    }

    /// Opens `path` with `flags | O_CREAT`, mode 0600, and when this process is root gives the
    /// file to `owner(databasePath:)` as it was before the open. -1 with `errno` set when either
    /// fails (the file is then closed, and removed when this call made it).
    public static func open(_ path: String, flags: Int32, databasePath: String) -> Int32 {
        let owner = owner(databasePath: databasePath)
        let existed = access(path, F_OK) == 0
        let fd = Glibc.open(path, flags | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return -1 }
        guard give(fd, to: owner) else {
            let code = errno
            Glibc.close(fd)
            if !existed { unlink(path) }
            errno = code
            return -1
        }
        return fd
    }

    /// When this process is root, gives `fd` to `owner` (nothing to do when it has it already).
    /// Nobody else can give a file away, nor make one another user then cannot change.
    static func give(_ fd: Int32, to owner: Owner?) -> Bool {
        guard geteuid() == 0 else { return true }
        guard let owner else {
            errno = ENOENT
            return false
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        if info.st_uid == owner.uid && info.st_gid == owner.gid { return true }
        return fchown(fd, owner.uid, owner.gid) == 0
    }

    /// The files beside `databasePath` that exist, by what they are: the store's own, the session file's, the events
    /// hint, the checkpoint marker, the door's lock, the deletion ledger in its default place, and
    /// the server key when it lives there.
    public static func companions(databasePath: String, serverKeyPath: String?) -> [(what: String, path: String)] {
        var all = [
            ("its WAL", databasePath + "-wal"), ("its shared memory", databasePath + "-shm"),
            ("the session file", SessionFile.path(databasePath)),
            ("the session file's WAL", SessionFile.path(databasePath) + "-wal"),
            ("the session file's shared memory", SessionFile.path(databasePath) + "-shm"),
            ("the events hint", EventHint.path(databasePath: databasePath)),
            ("the checkpoint marker", Database.checkpointOwedPath(databasePath)),
            ("the door's lock", Door.lockPath(databasePath)),
            ("the deletion ledger", Files.directory(of: databasePath) + "/" + LedgerFile.defaultName),
        ]
        if let serverKeyPath { all.append(("the server key", serverKeyPath)) }
        return all.filter { access($0.1, F_OK) == 0 }
    }
}
