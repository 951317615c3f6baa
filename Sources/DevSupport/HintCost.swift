#if canImport(Glibc)
import Glibc
#endif
import Shared

/// `frontdoor-dev hint-cost --database PATH`, for `make bench`: what the events hint costs every
/// request (a `stat` of `<databasePath>-events`, with and without the file) against what it
/// stands in for: the indexed SELECT for due events on a connection that prepared it before, the
/// same as a connection's first statement (what a process asking once would pay), and opening
/// the store. Medians in microseconds. PATH should be a scratch store: its hint file is replaced.
public enum HintCost {
    public struct Figures: Sendable {
        public let statMissing: Double
        public let statPresent: Double
        public let selectPrepared: Double
        public let selectFirst: Double
        public let open: Double
    }

    static let due = "SELECT 1 FROM events WHERE head = 1 AND next_attempt_at <= ? LIMIT 1"

    public static func measure(databasePath: String, rounds: Int = 200, repeats: Int = 2000) throws -> Figures {
        let now = Clock.now()
        let hint = EventHint.path(databasePath: databasePath)
        let db = try Database(path: databasePath)
        unlink(hint)
        let statMissing = medianOfBatches(rounds: 15, repeats: repeats) { _ = EventHint.isDue(databasePath: databasePath, now: now) }
        let fd = open(hint, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw FrontdoorError.internal("hint-cost: cannot make \(hint)") }
        Glibc.close(fd)
        let statPresent = medianOfBatches(rounds: 15, repeats: repeats) { _ = EventHint.isDue(databasePath: databasePath, now: now) }
        unlink(hint)
        var failure: FrontdoorError?
        let selectPrepared = medianOfBatches(rounds: 15, repeats: repeats) {
            do throws(FrontdoorError) { _ = try db.query(due, [.integer(now)]) } catch { failure = error }
        }
        var firsts: [Double] = [], opens: [Double] = []
        for _ in 0..<rounds {
            let opening = Clock.monotonicMillis()
            let fresh = try Database(path: databasePath)
            let asking = Clock.monotonicMillis()
            _ = try fresh.query(due, [.integer(now)])
            firsts.append((Clock.monotonicMillis() - asking) * 1000)
            opens.append((asking - opening) * 1000)
        }
        if let failure { throw failure }
        return Figures(
            statMissing: statMissing, statPresent: statPresent, selectPrepared: selectPrepared,
            selectFirst: median(firsts), open: median(opens))
    }

    /// The median over `rounds` batches of each batch's time per call, in microseconds.
    static func medianOfBatches(rounds: Int, repeats: Int, _ body: () -> Void) -> Double {
        var perCall: [Double] = []
        for _ in 0..<rounds {
            let start = Clock.monotonicMillis()
            for _ in 0..<repeats { body() }
            perCall.append((Clock.monotonicMillis() - start) * 1000 / Double(repeats))
        }
        return median(perCall)
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
