#if canImport(Glibc)
import Glibc
#endif
import Shared

/// `frontdoor-dev outbox-cost --database PATH [--events N]`, for `make bench`: what a delivery run
/// costs with N events waiting (default 200,000, two for each of N/2 accounts, written over the
/// last six days; issue 19 found such a backlog held the write lock 0.27 s a run: nextDue 0.05 s,
/// nextAttemptAt 0.21 s). The queries a run makes inside the write lock, each alone (medians of
/// 200); a whole run that finds the receiver failing (503) and one that delivers five, against a
/// receiver that answers at once, so the time is the store's, commits' syncs included; and the
/// hint, worked out after their write transactions (no lock held). Medians of `rounds` runs, in
/// milliseconds. PATH should be a scratch store.
public enum OutboxCost {
    public struct Figures: Sendable {
        public let events: Int
        /// The queries a run makes inside the write lock, each on its own (prepared before).
        public let nextDue: Double
        public let nextAttemptAt: Double
        public let expired: Double
        public let failingRun: Double
        public let deliveringRun: Double
        public let hint: Double
    }

    /// Answers every request at once with `status`.
    final class InstantReceiver: HTTPClient {
        let status: Int
        init(status: Int) { self.status = status }
        func send(_ request: HTTPRequest) throws(FrontdoorError) -> HTTPResponse {
            HTTPResponse(status: status, headers: [], body: [])
        }
    }

    public static func measure(databasePath: String, events: Int = 200_000, rounds: Int = 21) throws -> Figures {
        let now = Clock.now()
        let secretPath = databasePath + "-bench-secret"
        let fd = open(secretPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FrontdoorError.internal("outbox-cost: cannot write \(secretPath)") }
        FileIO.writeAll(fd, Array("outbox-cost-secret-of-at-least-32-bytes\n".utf8))
        close(fd)
        let config = try Config.parse(Array(JSONValue.object([
            ("databasePath", .string(databasePath)),
            ("events", .object([("url", "https://receiver.invalid/events"), ("secretFile", .string(secretPath))])),
        ]).serialized.utf8))
        guard let settings = config.events else { throw FrontdoorError.internal("outbox-cost: no events section") }
        let db = try Database(path: databasePath)
        try fill(db, events: events, now: now)
        func delivery(_ status: Int) throws -> EventDelivery {
            try EventDelivery(
                settings: settings, db: db, databasePath: databasePath, remainingSeconds: { nil },
                makeClient: { _ in InstantReceiver(status: status) })
        }
        func cost(_ sql: String, _ params: [SQLValue]) throws -> Double {
            var times: [Double] = []
            for _ in 0..<200 {
                let started = Clock.monotonicMillis()
                _ = try db.query(sql, params)
                times.append(Clock.monotonicMillis() - started)
            }
            return HintCost.median(times)
        }
        let nextDue = try cost(EventOutbox.nextDueSQL, [.integer(now)])
        let nextAttemptAt = try cost(EventOutbox.nextAttemptAtSQL, [])
        let expired = try cost(EventOutbox.expiredSQL, [.integer(now - settings.retainSeconds), .integer(100)])
        var failing: [Double] = [], delivering: [Double] = [], hints: [Double] = []
        for _ in 0..<rounds {
            try db.run("UPDATE event_delivery SET paused_until = 0, owner = NULL, lease_until = 0 WHERE id = 1")
            let down = try delivery(503)
            var started = Clock.monotonicMillis()
            _ = down.run(.pickUp(limit: EventDelivery.pickUpLimit))
            failing.append(Clock.monotonicMillis() - started)
            started = Clock.monotonicMillis()
            down.refreshHint()
            hints.append(Clock.monotonicMillis() - started)
            try db.run("UPDATE event_delivery SET paused_until = 0 WHERE id = 1")
            started = Clock.monotonicMillis()
            _ = try delivery(200).run(.pickUp(limit: EventDelivery.pickUpLimit))
            delivering.append(Clock.monotonicMillis() - started)
        }
        return Figures(
            events: events, nextDue: nextDue, nextAttemptAt: nextAttemptAt, expired: expired,
            failingRun: HintCost.median(failing), deliveringRun: HintCost.median(delivering), hint: HintCost.median(hints))
    }

    /// `events` rows for `events / 2` accounts, never tried, the oldest six days old; each
    /// account's first is its head, as `EventOutbox.insert` marks it.
    static func fill(_ db: Database, events: Int, now: UnixTime) throws {
        try db.transaction { () throws(FrontdoorError) in
            try db.run("DELETE FROM events")
            try db.run(
                """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
                INSERT INTO events (id, type, account_id, body, created_at, next_attempt_at, head)
                SELECT printf('bench-%d', i), 'account.created', printf('bench-account-%d', i / 2), '{}',
                  ? + i * 518400 / ?, ? + i * 518400 / ?, i % 2 = 0
                FROM n
                """,
                [.integer(Int64(events)), .integer(now - 518_400), .integer(Int64(events)), .integer(now - 518_400),
                 .integer(Int64(events))])
        }
    }
}
