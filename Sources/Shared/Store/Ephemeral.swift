/// Short-lived keyed state: one table, `ephemeral`, for every kind of it, so that a new kind costs
/// no schema object (every process parses the whole schema before its first statement: see
/// docs/performance.md, "Adding a table without taxing every request"). Every row has a kind, a
/// key, and an expiry after which housekeeping prunes it (`Housekeeping`, one statement for all
/// kinds, through `ephemeral_expiry`). What the other columns hold depends on the kind:
///
/// | kind | key | `number` | `since` | `value` |
/// | --- | --- | --- | --- | --- |
/// | `nonce` (rule 5) | SHA-256 of the raw nonce | | | |
/// | `rateLimit` | HMAC of `<limit>/<window>:<value>` (`RateLimits.Limit`) | hits in the window | the window's start | |
/// | `oauthToken` | the cache key's UTF-8 (token URL, account, scope) | | | the token, sealed (`GoogleOAuth`) |
///
/// All access goes through this file, in SQL that PostgreSQL takes as written (`ON CONFLICT …
/// DO UPDATE`, the target table named where a column could be read either way).
public enum Ephemeral {
    public enum Kind: Int64, CaseIterable, Sendable {
        case nonce = 1
        case rateLimit = 2
        case oauthToken = 3

        /// The table each kind was before `Migrations.ephemeralKinds` (and the name housekeeping
        /// reports it under).
        public var name: String {
            switch self {
            case .nonce: "nonces"
            case .rateLimit: "rate_limits"
            case .oauthToken: "oauth_tokens"
            }
        }
    }

    static let pruneSQL = """
        DELETE FROM ephemeral WHERE (kind, key) IN (SELECT kind, key FROM ephemeral WHERE expires_at <= ? LIMIT ?)
        """

    // MARK: - Nonces

    /// True when the row is new: the first to claim this key.
    static func claim(_ kind: Kind, key: [UInt8], until expiresAt: UnixTime, db: Database) throws(FrontdoorError) -> Bool {
        try db.run(
            "INSERT INTO ephemeral (kind, key, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [.integer(kind.rawValue), .blob(key), .integer(expiresAt)]) == 1
    }

    static func remove(_ kind: Kind, key: [UInt8], db: Database) throws(FrontdoorError) {
        try db.run("DELETE FROM ephemeral WHERE kind = ? AND key = ?", [.integer(kind.rawValue), .blob(key)])
    }

    // MARK: - Counters (one window a key: a hit in a new window starts it again at one)

    /// The count in the window starting at `window`; 0 when the key's row is of another window.
    static func count(_ kind: Kind, key: [UInt8], window: UnixTime, db: Database) throws(FrontdoorError) -> Int64 {
        try db.query(
            "SELECT number FROM ephemeral WHERE kind = ? AND key = ? AND since = ?",
            [.integer(kind.rawValue), .blob(key), .integer(window)]
        ).first?.int(0) ?? 0
    }

    static func increment(_ kind: Kind, key: [UInt8], window: UnixTime, until expiresAt: UnixTime, db: Database)
        throws(FrontdoorError)
    {
        try db.run(
            """
            INSERT INTO ephemeral (kind, key, number, since, expires_at) VALUES (?, ?, 1, ?, ?)
            ON CONFLICT (kind, key) DO UPDATE SET
              number = CASE WHEN ephemeral.since = excluded.since THEN ephemeral.number + 1 ELSE 1 END,
              since = excluded.since, expires_at = excluded.expires_at
            """,
            [.integer(kind.rawValue), .blob(key), .integer(window), .integer(expiresAt)])
    }

    static func decrement(_ kind: Kind, key: [UInt8], window: UnixTime, db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE ephemeral SET number = number - 1 WHERE kind = ? AND key = ? AND since = ? AND number > 0",
            [.integer(kind.rawValue), .blob(key), .integer(window)])
    }

    // MARK: - Kept values

    /// The value kept under the key, unless it has expired by `now`.
    static func value(_ kind: Kind, key: [UInt8], now: UnixTime, db: Database) throws(FrontdoorError) -> [UInt8]? {
        try db.query(
            "SELECT value FROM ephemeral WHERE kind = ? AND key = ? AND expires_at > ?",
            [.integer(kind.rawValue), .blob(key), .integer(now)]
        ).first?.blob(0)
    }

    static func keep(_ kind: Kind, key: [UInt8], value: [UInt8], until expiresAt: UnixTime, db: Database)
        throws(FrontdoorError)
    {
        try db.run(
            """
            INSERT INTO ephemeral (kind, key, value, expires_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
            """,
            [.integer(kind.rawValue), .blob(key), .blob(value), .integer(expiresAt)])
    }
}
