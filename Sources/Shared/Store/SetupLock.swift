#if canImport(Glibc)
import Glibc
#endif

/// One process at a time makes a store and its session file, or brings them up to date: an
/// exclusive `flock` on their folder, held from the moment a process finds either behind (or not
/// yet there) until both are ready. Without it, twenty first sign-ins on a new store (a new box,
/// or a new version copied onto a busy one) waited on each other's locks across the two files,
/// and most answered 503 after the whole busy time-out (issue 44). The others wait here instead,
/// then find the work done. A process killed while holding it lets go with its last descriptor.
/// The folder, not a file in it: no new file to own, and closing a descriptor of a folder
/// releases none of SQLite's own locks (POSIX locks go with any descriptor of their file).
enum SetupLock {
    static func hold<T>(folderOf path: String, _ body: () throws(FrontdoorError) -> T) throws(FrontdoorError) -> T {
        let folder = Files.directory(of: path)
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .internal("sqlite: set-up: cannot open \(folder) (errno \(errno))") }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .internal("sqlite: set-up: flock of \(folder) failed (errno \(errno))") }
        }
        // Waiting here held a request up: the test holds a second one here (`TestHooks`).
        TestHooks.pause("setup-locked")
        return try body()
    }
}
