#if canImport(Glibc)
import Glibc
#endif

extension Lifetime {
    /// Seconds left before the ceiling ends the process (`alarm` is the real-time interval timer),
    /// or nil when no ceiling is set (a tool such as `frontdoor-check`).
    public static func remainingSeconds() -> Double? {
        var timer = itimerval()
        guard getitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer) == 0 else { return nil }
        let left = Double(timer.it_value.tv_sec) + Double(timer.it_value.tv_usec) / 1_000_000
        return left > 0 ? left : nil
    }
}
