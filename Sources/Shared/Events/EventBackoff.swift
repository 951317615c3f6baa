/// When a failed event is tried again: `events.retryAfterSeconds` after the first failure,
/// doubling with each further one, never more than `events.retryMaxSeconds`.
public enum EventBackoff {
    /// The wait after the `failures`-th failed attempt (1 for the first).
    public static func delay(afterFailures failures: Int64, first: Int64, max longest: Int64) -> Int64 {
        var wait = Swift.max(first, 1)
        var n: Int64 = 1
        while n < failures && wait < longest {
            wait = wait > longest / 2 ? longest : wait * 2
            n += 1
        }
        return Swift.min(wait, longest)
    }
}
