/// The `events` table (the outbox): one row per event, written in the transaction of the change,
/// deleted once the receiver has taken it. Rows are ordered by `seq`, the order they were written
/// in. An account's events go out strictly in that order: only its oldest waiting row, its `head`,
/// may be sent, so one account's `deleted` can never overtake its `created`, even while the
/// receiver refuses the older one. Across accounts the head due longest goes first (never-tried
/// rows are due from when they were written, so that is the oldest first).
///
/// Every query here is an index search, never a scan of the table: each runs inside the store's
/// write lock, and a receiver that was down for days leaves hundreds of thousands of rows
/// (`OutboxQueryPlanTests` reads their plans).
public enum EventOutbox {
    struct Pending: Sendable {
        let seq: Int64
        let id: String
        let type: String
        let accountId: String
        let body: String
        let attempts: Int64
        let createdAt: UnixTime
    }

    /// The new row is its account's head when the account has no other waiting.
    public static let insertSQL = """
        INSERT INTO events (id, type, account_id, body, created_at, next_attempt_at, head)
        VALUES (?, ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM events WHERE account_id = ?) THEN 0 ELSE 1 END)
        """

    static func insert(_ event: Event, _ db: Database) throws(FrontdoorError) {
        try db.run(
            insertSQL,
            [
                .text(event.id), .text(event.kind.rawValue), .text(event.accountId), .text(event.body),
                .integer(event.occurredAt), .integer(event.occurredAt), .text(event.accountId),
            ])
    }

    public static let nextDueSQL = """
        SELECT seq, id, type, account_id, body, attempts, created_at FROM events
        WHERE head = 1 AND next_attempt_at <= ? ORDER BY next_attempt_at, seq LIMIT 1
        """

    /// The head due longest, by `now`.
    static func nextDue(_ db: Database, now: UnixTime) throws(FrontdoorError) -> Pending? {
        try db.query(nextDueSQL, [.integer(now)]).first.flatMap(pending)
    }

    public static let nextAttemptAtSQL = "SELECT min(next_attempt_at) FROM events WHERE head = 1"

    /// The earliest time a head is due; nil: none waits.
    static func nextAttemptAt(_ db: Database) throws(FrontdoorError) -> UnixTime? {
        try db.query(nextAttemptAtSQL).first?.int(0)
    }

    public static let removeSQL = "DELETE FROM events WHERE seq = ? RETURNING account_id, head"
    public static let promoteSQL = """
        UPDATE events SET head = 1 WHERE seq = (SELECT min(seq) FROM events WHERE account_id = ?)
        """

    /// Deletes the row; a head's account's next row becomes its head. False when it was gone.
    static func remove(seq: Int64, _ db: Database) throws(FrontdoorError) -> Bool {
        guard let removed = try db.query(removeSQL, [.integer(seq)]).first else { return false }
        if removed.int(1) == 1, let account = removed.text(0) {
            try db.run(promoteSQL, [.text(account)])
        }
        return true
    }

    static func retryLater(seq: Int64, attempts: Int64, at: UnixTime, error: String, _ db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE events SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?",
            [.integer(attempts), .integer(at), .text(String(error.prefix(200))), .integer(seq)])
    }

    public static let expiredSQL = """
        SELECT seq, id, type, account_id, body, attempts, created_at FROM events
        WHERE created_at <= ? ORDER BY created_at LIMIT ?
        """

    /// Rows written at or before `before`, oldest first.
    static func expired(_ db: Database, before: UnixTime, limit: Int) throws(FrontdoorError) -> [Pending] {
        try db.query(expiredSQL, [.integer(before), .integer(Int64(limit))]).compactMap(pending)
    }

    public static let retryNowSQL = "UPDATE events SET next_attempt_at = ? WHERE head = 1 AND next_attempt_at > ?"

    /// Every head waiting for its next retry is due at `now`; how many were waiting longer. (The
    /// other rows were never tried: they are due from when they were written.)
    static func retryNow(_ db: Database, now: UnixTime) throws(FrontdoorError) -> Int {
        try db.run(retryNowSQL, [.integer(now), .integer(now)])
    }

    struct Status: Sendable {
        var waiting: Int64
        var oldestCreatedAt: UnixTime?
        var lastError: String?
    }

    /// How many wait, since when, and why the oldest one has not gone (its last failure). For the
    /// operator, outside any write transaction: the count is the one scan of the table.
    static func status(_ db: Database) throws(FrontdoorError) -> Status {
        let count = try db.query("SELECT count(*) FROM events").first?.int(0) ?? 0
        let oldest = try db.query("SELECT min(created_at) FROM events").first?.int(0)
        let lastError = try db.query("SELECT last_error FROM events ORDER BY seq LIMIT 1").first?.text(0)
        return Status(waiting: count, oldestCreatedAt: oldest, lastError: lastError)
    }

    private static func pending(_ row: Row) -> Pending? {
        guard let seq = row.int(0), let id = row.text(1), let type = row.text(2), let account = row.text(3),
            let body = row.text(4), let attempts = row.int(5), let created = row.int(6)
        else { return nil }
        return Pending(seq: seq, id: id, type: type, accountId: account, body: body, attempts: attempts, createdAt: created)
    }
}
