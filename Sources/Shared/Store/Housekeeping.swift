/// Expired rows go without a daemon: ordinary requests prune a bounded amount now and then, after
/// their answer, and `frontdoor-check --prune` (for a timer) prunes everything that has expired.
public enum Housekeeping {
    /// One statement per table, so every one stays a prepared statement with bound parameters.
    static let statements: [(table: String, sql: String)] = [
        ("sessions", "DELETE FROM sessions WHERE token_hash IN (SELECT token_hash FROM sessions WHERE expires_at <= ? LIMIT ?)"),
        ("tickets", "DELETE FROM tickets WHERE ticket_hash IN (SELECT ticket_hash FROM tickets WHERE expires_at <= ? LIMIT ?)"),
        ("email_tickets", """
            DELETE FROM email_tickets WHERE ticket_hash IN
              (SELECT ticket_hash FROM email_tickets WHERE expires_at <= ? LIMIT ?)
            """),
        // Nonces, rate-limit windows, cached tokens, mailed codes, kept relay answers and relay
        // marks: every kind at once.
        ("ephemeral", Ephemeral.pruneSQL),
        // A revocation past its retry window keeps its outcome but loses the code and tokens.
        ("apple_revocations expired", """
            UPDATE apple_revocations SET state = 'expired', detail = 'retry window passed', code = NULL,
              id_token = NULL, refresh_token = NULL, subject_hash = NULL, next_attempt_at = NULL
            WHERE id IN (SELECT id FROM apple_revocations
                         WHERE retry_until <= ? AND state IN ('scheduled', 'retry') LIMIT ?)
            """),
        // Settled outcomes are kept 30 days for the operator, then go.
        ("apple_revocations", """
            DELETE FROM apple_revocations WHERE id IN (SELECT id FROM apple_revocations
              WHERE updated_at <= ? - 2592000 AND state NOT IN ('scheduled', 'retry') LIMIT ?)
            """),
    ]

    /// Removes at most `limit` expired rows from each table; returns how many went, by table.
    @discardableResult
    public static func prune(_ db: Database, now: UnixTime, limit: Int = 50) throws(FrontdoorError) -> [(String, Int)] {
        var removed: [(String, Int)] = []
        for (table, sql) in statements {
            removed.append((table, try db.run(sql, [.integer(now), .integer(Int64(limit))])))
        }
        return removed
    }

    /// The views of accounts left with no session (`AccountView.pruneOrphans`): it reads every
    /// view, so the operator's timer runs it (`frontdoor-check --prune`), never a request.
    public static func pruneViews(_ db: Database) throws(FrontdoorError) -> Int {
        try AccountView.pruneOrphans(db)
    }

    /// About one request in sixteen does the pruning, so its cost is spread thin.
    public static func isDue() -> Bool {
        ((try? SecureRandom.uniform(below: 16)) ?? 1) == 0
    }
}
