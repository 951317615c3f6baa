#if canImport(Glibc)
import Glibc
#endif

/// "Is any event due?" asked by every request of every endpoint, answered without the store: a
/// file beside the database whose modification time is the earliest moment a request should look.
/// No file, or the time `never`: nothing is waiting. One `stat` (about a microsecond) instead of
/// opening the database (which some requests never do) or a query on it.
///
/// The file is only a hint; the outbox is the truth. A writer lowers it inside the transaction
/// that writes an event and again after its commit; a deliverer works it out after its write
/// transactions (`EventDelivery.refreshHint`, never inside the write lock), again when another
/// connection committed meanwhile, so it cannot miss a row a concurrent commit adds. When it says
/// "due" wrongly, one request looks, finds nothing, and moves it on. `frontdoor-check --deliver`
/// ignores it. Once made it stays, so a sign-in that writes an event only moves its time (creating
/// and removing a file each time costs more).
public enum EventHint {
    /// "Nothing waits": 2100-01-01.
    public static let never: UnixTime = 4_102_444_800

    public static func path(databasePath: String) -> String { databasePath + "-events" }

    /// Whether a request should look for due events now.
    public static func isDue(databasePath: String, now: UnixTime) -> Bool {
        guard let at = time(databasePath: databasePath) else { return false }
        return at <= now
    }

    /// The time the hint says (`never` included), or nil when there is no file.
    public static func time(databasePath: String) -> UnixTime? {
        var info = stat()
        guard stat(path(databasePath: databasePath), &info) == 0 else { return nil }
        return UnixTime(info.st_mtim.tv_sec)
    }

    /// Whether the hint says something waits (no file and `never` both say nothing does).
    public static func saysWaiting(databasePath: String) -> Bool {
        guard let at = time(databasePath: databasePath) else { return false }
        return at < never
    }

    /// At most `at`: an earlier hint stays (a new event must not delay an older one's pick-up).
    static func lower(to at: UnixTime, databasePath: String) {
        if let current = time(databasePath: databasePath), current <= at { return }
        set(at, databasePath: databasePath)
    }

    /// Exactly `at`, or `never` (`nil`: the outbox is empty).
    static func set(_ at: UnixTime?, databasePath: String) {
        let file = path(databasePath: databasePath)
        let seconds = Int(at ?? never)
        let times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        if utimensat(AT_FDCWD, file, times, 0) == 0 { return }
        guard errno == ENOENT, at != nil else { return }
        let fd = StoreFiles.open(file, flags: O_WRONLY, databasePath: databasePath)
        guard fd >= 0 else { return }
        _ = futimens(fd, times)
        close(fd)
    }
}
