#if canImport(Glibc)
import Glibc
#endif

/// The door (rule 13): while `frontdoor-admin restore` puts a snapshot back, every endpoint
/// answers 503 `upstream_unavailable`. Closed is a marker file beside the database, so a request
/// looks with one `access()`, before it touches the store.
///
/// A request already past that look when the door closes may still commit to the old file, which
/// the restore then moves aside. So a request that wrote takes a shared lock on `<database>-door`
/// before it answers 2xx, and looks again under it: closed by then, it answers 503 instead. The
/// restore, once the marker is there, takes the lock exclusively and lets it go at once: after
/// that, no 2xx can be written for a write the restore would lose. Writes that still land in the
/// old file (answered 503, or work after an answer) end with their processes, whose ceiling
/// (rule 9) the restore waits out before it moves the file.
public enum Door {
    public static func closedPath(_ databasePath: String) -> String { databasePath + "-door-closed" }
    static func lockPath(_ databasePath: String) -> String { databasePath + "-door" }

    public static func isClosed(_ databasePath: String) -> Bool { access(closedPath(databasePath), F_OK) == 0 }

    public static var closedError: FrontdoorError {
        FrontdoorError(
            .upstreamUnavailable, "Sign-in is paused for maintenance. Please try again in a few minutes.",
            detail: "door closed: a restore is under way", retryAfterSeconds: 60)
    }

    /// When the door was closed, as its marker says (nil when open).
    public static func closedAt(_ databasePath: String) -> UnixTime? {
        let path = closedPath(databasePath)
        if let bytes = FileIO.readFile(path, limit: 256),
            let time = Int64(String(decoding: bytes, as: UTF8.self).trimmingWhitespace())
        {
            return time
        }
        // A marker that cannot be read (cut short): its modification time says as much.
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UnixTime(info.st_mtim.tv_sec)
    }

    /// Closes the door, or finds it closed; the time it was closed. The marker is written whole
    /// under a temporary name, synced and linked into place, so it never exists half-written.
    public static func close(_ databasePath: String, now: UnixTime) throws(FrontdoorError) -> UnixTime {
        if let at = closedAt(databasePath) { return at }
        let path = closedPath(databasePath)
        let folder = Files.directory(of: databasePath)
        let temporary = path + ".tmp-\(getpid())"
        let fd = StoreFiles.open(temporary, flags: O_WRONLY | O_TRUNC, databasePath: databasePath)
        guard fd >= 0 else { throw .internal("door: cannot create \(temporary) (errno \(errno))") }
        let written = Files.writeAll(fd, Array("\(now)\n".utf8)) && fsync(fd) == 0
        let code = errno
        Glibc.close(fd)
        defer { unlink(temporary) }
        guard written else { throw .internal("door: cannot write \(temporary) (errno \(code))") }
        guard link(temporary, path) == 0 || errno == EEXIST else {
            throw .internal("door: cannot close \(path) (errno \(errno))")
        }
        try Files.syncDirectory(folder)
        return closedAt(databasePath) ?? now
    }

    /// Waits until every 2xx answer that was being written when the door closed is out.
    public static func waitForAnswersInFlight(_ databasePath: String) throws(FrontdoorError) {
        let fd = try openLock(databasePath)
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .internal("door: flock of \(lockPath(databasePath)) failed (errno \(errno))") }
        }
    }

    /// Opens the door: removes the marker and syncs its folder.
    public static func open(_ databasePath: String) throws(FrontdoorError) {
        guard unlink(closedPath(databasePath)) == 0 || errno == ENOENT else {
            throw .internal("door: cannot remove \(closedPath(databasePath)) (errno \(errno))")
        }
        try Files.syncDirectory(Files.directory(of: databasePath))
    }

    /// Held by a request that wrote, from its second look at the door until its answer is out.
    public struct AnswerPermit: ~Copyable {
        private let fd: Int32
        /// Whether the door closed since the request's first look: it must answer 503.
        public let closed: Bool

        public init(databasePath: String) {
            // A lock that cannot be had (a folder the process cannot write) still leaves the look.
            let fd = (try? Door.openLock(databasePath)) ?? -1
            if fd >= 0 {
                while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
            }
            self.fd = fd
            closed = Door.isClosed(databasePath)
        }

        public consuming func release() {
            if fd >= 0 { Glibc.close(fd) }
        }
    }

    static func openLock(_ databasePath: String) throws(FrontdoorError) -> Int32 {
        let path = lockPath(databasePath)
        var fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { fd = StoreFiles.open(path, flags: O_RDWR, databasePath: databasePath) }
        guard fd >= 0 else { throw .internal("door: cannot open \(path) (errno \(errno))") }
        return fd
    }
}
