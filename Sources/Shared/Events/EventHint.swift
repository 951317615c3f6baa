#if canImport(Glibc)
import Glibc
#endif

/// "Is any event due?" asked by every request of every endpoint, answered without the store: a
/// file beside the database whose modification time is the earliest moment a request should look.
/// No file: nothing is waiting. One `stat` (about a microsecond) instead of opening the database
/// (which many requests never do) or a query on it.
///
/// The file is only a hint; the outbox is the truth. It is changed only under the store's write
/// lock (inside the transactions that write events or deliver them), so it cannot miss a row that
/// a concurrent commit adds; when it says "due" wrongly, one request looks, finds nothing, and
/// moves it on. `frontdoor-check --deliver` ignores it.
public enum EventHint {
    public static func path(databasePath: String) -> String { databasePath + "-events" }

    /// Whether a request should look for due events now.
    public static func isDue(databasePath: String, now: UnixTime) -> Bool {
        guard let at = time(databasePath: databasePath) else { return false }
        return at <= now
    }

    /// The time the hint says, or nil when there is none.
    public static func time(databasePath: String) -> UnixTime? {
        var info = stat()
        guard stat(path(databasePath: databasePath), &info) == 0 else { return nil }
        return UnixTime(info.st_mtim.tv_sec)
    }

    /// At most `at`: an earlier hint stays (a new event must not delay an older one's pick-up).
    static func lower(to at: UnixTime, databasePath: String) {
        if let current = time(databasePath: databasePath), current <= at { return }
        set(at, databasePath: databasePath)
    }

    /// Exactly `at`, or no hint at all (`nil`: the outbox is empty).
    static func set(_ at: UnixTime?, databasePath: String) {
        let file = path(databasePath: databasePath)
        guard let at else {
            unlink(file)
            return
        }
        let fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let times = [timespec(tv_sec: Int(at), tv_nsec: 0), timespec(tv_sec: Int(at), tv_nsec: 0)]
        _ = futimens(fd, times)
    }
}
