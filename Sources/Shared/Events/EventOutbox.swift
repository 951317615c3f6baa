/// The `events` table (the outbox): one row per event, written in the transaction of the change,
/// deleted once the receiver has taken it. Rows are ordered by `seq`, the order they were written
/// in; an account's events go out strictly in that order (a row is sent only when no older row of
/// its account is waiting), so one account's `deleted` can never overtake its `created`.
enum EventOutbox {
    struct Pending: Sendable {
        let seq: Int64
        let id: String
        let type: String
        let accountId: String
        let body: String
        let attempts: Int64
        let createdAt: UnixTime
    }

    static func insert(_ event: Event, _ db: Database) throws(FrontdoorError) {
        try db.run(
            """
            INSERT INTO events (id, type, account_id, body, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(event.id), .text(event.kind.rawValue), .text(event.accountId), .text(event.body),
                .integer(event.occurredAt), .integer(event.occurredAt),
            ])
    }

    /// Its account's oldest row, due by `now`: of those, the oldest of all.
    static func nextDue(_ db: Database, now: UnixTime) throws(FrontdoorError) -> Pending? {
        try db.query(
            """
            SELECT e.seq, e.id, e.type, e.account_id, e.body, e.attempts, e.created_at FROM events e
            WHERE e.next_attempt_at <= ?
              AND NOT EXISTS (SELECT 1 FROM events o WHERE o.account_id = e.account_id AND o.seq < e.seq)
            ORDER BY e.seq LIMIT 1
            """,
            [.integer(now)]
        ).first.flatMap(pending)
    }

    /// The earliest time a row that may go next (its account's oldest) is due; nil: none waits.
    static func nextAttemptAt(_ db: Database) throws(FrontdoorError) -> UnixTime? {
        try db.query(
            """
            SELECT min(e.next_attempt_at) FROM events e
            WHERE NOT EXISTS (SELECT 1 FROM events o WHERE o.account_id = e.account_id AND o.seq < e.seq)
            """
        ).first?.int(0)
    }

    static func remove(seq: Int64, _ db: Database) throws(FrontdoorError) -> Bool {
        try db.run("DELETE FROM events WHERE seq = ?", [.integer(seq)]) == 1
    }

    static func retryLater(seq: Int64, attempts: Int64, at: UnixTime, error: String, _ db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE events SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?",
            [.integer(attempts), .integer(at), .text(String(error.prefix(200))), .integer(seq)])
    }

    /// Rows written at or before `before`, oldest first.
    static func expired(_ db: Database, before: UnixTime, limit: Int) throws(FrontdoorError) -> [Pending] {
        try db.query(
            """
            SELECT seq, id, type, account_id, body, attempts, created_at FROM events
            WHERE created_at <= ? ORDER BY seq LIMIT ?
            """,
            [.integer(before), .integer(Int64(limit))]
        ).compactMap(pending)
    }

    struct Status: Sendable {
        var waiting: Int64
        var oldestCreatedAt: UnixTime?
        var lastError: String?
    }

    /// How many wait, since when, and why the oldest one has not gone (its last failure).
    static func status(_ db: Database) throws(FrontdoorError) -> Status {
        let row = try db.query("SELECT count(*), min(created_at) FROM events").first
        let lastError = try db.query("SELECT last_error FROM events ORDER BY seq LIMIT 1").first?.text(0)
        return Status(waiting: row?.int(0) ?? 0, oldestCreatedAt: row?.int(1), lastError: lastError)
    }

    private static func pending(_ row: Row) -> Pending? {
        guard let seq = row.int(0), let id = row.text(1), let type = row.text(2), let account = row.text(3),
            let body = row.text(4), let attempts = row.int(5), let created = row.int(6)
        else { return nil }
        return Pending(seq: seq, id: id, type: type, accountId: account, body: body, attempts: attempts, createdAt: created)
    }
}
