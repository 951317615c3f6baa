#if canImport(Glibc)
import Glibc
#endif

/// Seconds since the Unix epoch. Time is passed into everything that checks it, so tests
/// choose the clock instead of sleeping.
public typealias UnixTime = Int64

public enum Clock {
    public static func now() -> UnixTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UnixTime(ts.tv_sec)
    }

    /// Monotonic milliseconds, for durations in logs and benchmarks.
    public static func monotonicMillis() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
    }

    /// RFC 3339 in UTC with a `Z`, e.g. `2026-11-30T08:45:29Z`.
    public static func rfc3339(_ t: UnixTime) -> String {
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secs = t - days * 86_400
        // Civil-from-days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secs / 3600, 2)):\(pad(secs % 3600 / 60, 2)):\(pad(secs % 60, 2))Z"
    }
}
