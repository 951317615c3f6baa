/// Short-lived keyed state: one table, `ephemeral`, for every kind of it, so that a new kind costs
/// no schema object (every process parses the whole schema before its first statement: see
/// docs/performance.md, "Adding a table without taxing every request"). Every row has a kind, a
/// key, and an expiry after which housekeeping prunes it (`Housekeeping`, one statement for all
/// kinds, through `ephemeral_expiry`). What the other columns hold depends on the kind:
///
/// | kind | key | `number` | `since` | `value` | `note` |
/// | --- | --- | --- | --- | --- | --- |
/// | `nonce` (rule 5) | SHA-256 of the raw nonce | | | | |
/// | `rateLimit` | HMAC of `<limit>/<window>:<value>` (`RateLimits.Limit`) | hits in the window | the window's start | | |
/// | `oauthToken` | the cache key's UTF-8 (token URL, account, scope) | | | the token, sealed (`GoogleOAuth`) | |
/// | `emailCode` | the ticket's hash | tries | when mailed | HMAC-SHA256(code key, ticket hash ‖ code) (`Codes`) | |
/// | `relayAttempt` | nonce hash ‖ Apple token hash | | leased until | the ID token, sealed (`RelayAttempts`) | the relay uid |
/// | `relaySend` | subject key ‖ nonce hash (`RelaySends`) | | when sent | | |
/// | `providerEvent` (rule 16) | `<provider>:<jti>` in UTF-8 | repeats | when received | its types, UTF-8 | its outcome |
/// | `passkeyCeremony` (rule 17) | SHA-256 of the ceremony id | 1 registration, 2 sign-in | when begun | the challenge | the registering session's id |
/// | `noticeLink` (rule 18) | the account's tag ‖ SHA-256 of the link's secret (`NoticeLink`) | 1 once used | when mailed | | the account |
///
/// A key of two hashes puts the one searched by first, so its rows are a range of the primary
/// key. All access goes through this file, in SQL that PostgreSQL takes as written (`ON CONFLICT
/// … DO UPDATE`, `RETURNING`, row values; the target table named where a column could be read
/// either way).
public enum Ephemeral {
    public enum Kind: Int64, CaseIterable, Sendable {
        case nonce = 1
        case rateLimit = 2
        case oauthToken = 3
        case emailCode = 4
        case relayAttempt = 5
        case relaySend = 6
        case providerEvent = 7
        case passkeyCeremony = 8
        case noticeLink = 9

        /// The table each kind was before `Migrations.ephemeralKinds`.
        public var name: String {
            switch self {
            case .nonce: "nonces"
            case .rateLimit: "rate_limits"
            case .oauthToken: "oauth_tokens"
            case .emailCode: "email_codes"
            case .relayAttempt: "relay_attempts"
            case .relaySend: "relay_sends"
            case .providerEvent: "provider_events"
            case .passkeyCeremony: "passkey_ceremonies"
            case .noticeLink: "notice_links"
            }
        }
    }

    /// A row's values, expired or not.
    public struct Entry: Sendable {
        public let number: Int64
        public let since: Int64
        public let value: [UInt8]?
        public let note: String?
        public let expiresAt: Int64
    }

    static let pruneSQL = """
        DELETE FROM ephemeral WHERE (kind, key) IN (SELECT kind, key FROM ephemeral WHERE expires_at <= ? LIMIT ?)
        """

    // MARK: - Rows by key

    /// True when the row is new: the first to claim this key (an existing row is left alone).
    static func claim(
        _ kind: Kind, key: [UInt8], number: Int64 = 0, since: Int64 = 0, value: [UInt8]? = nil, note: String? = nil,
        until expiresAt: UnixTime, db: Database
    ) throws(FrontdoorError) -> Bool {
        try db.run(
            """
            INSERT INTO ephemeral (kind, key, number, since, value, note, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """,
            [.integer(kind.rawValue), .blob(key), .integer(number), .integer(since), value.map { .blob($0) } ?? .null,
             note.map { .text($0) } ?? .null, .integer(expiresAt)]) == 1
    }

    /// Makes or replaces the row: every column takes the values given (or the defaults).
    static func keep(
        _ kind: Kind, key: [UInt8], value: [UInt8], number: Int64 = 0, since: Int64 = 0,
        until expiresAt: UnixTime, db: Database
    ) throws(FrontdoorError) {
        try db.run(
            """
            INSERT INTO ephemeral (kind, key, number, since, value, expires_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (kind, key) DO UPDATE SET number = excluded.number, since = excluded.since,
              value = excluded.value, note = NULL, expires_at = excluded.expires_at
            """,
            [.integer(kind.rawValue), .blob(key), .integer(number), .integer(since), .blob(value), .integer(expiresAt)])
    }

    /// The value kept under the key, unless it has expired by `now`.
    static func value(_ kind: Kind, key: [UInt8], now: UnixTime, db: Database) throws(FrontdoorError) -> [UInt8]? {
        try db.query(
            "SELECT value FROM ephemeral WHERE kind = ? AND key = ? AND expires_at > ?",
            [.integer(kind.rawValue), .blob(key), .integer(now)]
        ).first?.blob(0)
    }

    static func entry(_ kind: Kind, key: [UInt8], db: Database) throws(FrontdoorError) -> Entry? {
        try db.query(
            "SELECT number, since, value, note, expires_at FROM ephemeral WHERE kind = ? AND key = ?",
            [.integer(kind.rawValue), .blob(key)]
        ).first.map(entry)
    }

    /// Removes the row and gives its values: a row taken once, whoever asks again.
    static func take(_ kind: Kind, key: [UInt8], db: Database) throws(FrontdoorError) -> Entry? {
        try db.query(
            "DELETE FROM ephemeral WHERE kind = ? AND key = ? RETURNING number, since, value, note, expires_at",
            [.integer(kind.rawValue), .blob(key)]
        ).first.map(entry)
    }

    static func remove(_ kind: Kind, key: [UInt8], db: Database) throws(FrontdoorError) {
        try db.run("DELETE FROM ephemeral WHERE kind = ? AND key = ?", [.integer(kind.rawValue), .blob(key)])
    }

    /// One more on `number`, whatever the window.
    static func bump(_ kind: Kind, key: [UInt8], db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE ephemeral SET number = number + 1 WHERE kind = ? AND key = ?", [.integer(kind.rawValue), .blob(key)])
    }

    static func setValue(_ kind: Kind, key: [UInt8], _ value: [UInt8], db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE ephemeral SET value = ? WHERE kind = ? AND key = ?", [.blob(value), .integer(kind.rawValue), .blob(key)])
    }

    static func setNote(_ kind: Kind, key: [UInt8], _ note: String, db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE ephemeral SET note = ? WHERE kind = ? AND key = ?", [.text(note), .integer(kind.rawValue), .blob(key)])
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

    // MARK: - Leases (`since` is when the lease ends; 0 for none)

    /// Takes the live row for `lease` seconds unless someone holds it: its value and note, or nil.
    static func lease(_ kind: Kind, key: [UInt8], until leaseEnd: UnixTime, now: UnixTime, db: Database)
        throws(FrontdoorError) -> Entry?
    {
        try db.query(
            """
            UPDATE ephemeral SET since = ? WHERE kind = ? AND key = ? AND expires_at > ? AND since <= ?
            RETURNING number, since, value, note, expires_at
            """,
            [.integer(leaseEnd), .integer(kind.rawValue), .blob(key), .integer(now), .integer(now)]
        ).first.map(entry)
    }

    static func endLease(_ kind: Kind, key: [UInt8], db: Database) throws(FrontdoorError) {
        try db.run("UPDATE ephemeral SET since = 0 WHERE kind = ? AND key = ?", [.integer(kind.rawValue), .blob(key)])
    }

    // MARK: - Keys of two hashes, by the first

    /// The earliest `since` among the rows whose key begins with `prefix`, `besides` one key.
    static func earliestSince(_ kind: Kind, prefix: [UInt8], besides key: [UInt8], db: Database)
        throws(FrontdoorError) -> Int64?
    {
        try db.query(
            "SELECT min(since) FROM ephemeral WHERE kind = ? AND key > ? AND key < ? AND key <> ?",
            [.integer(kind.rawValue), .blob(prefix), .blob(pastPrefix(prefix)), .blob(key)]
        ).first?.int(0)
    }

    static func remove(_ kind: Kind, prefix: [UInt8], db: Database) throws(FrontdoorError) {
        try db.run(
            "DELETE FROM ephemeral WHERE kind = ? AND key > ? AND key < ?",
            [.integer(kind.rawValue), .blob(prefix), .blob(pastPrefix(prefix))])
    }

    /// Above every key that is `prefix` and a 32-byte hash: keys compare byte by byte, then by length.
    static func pastPrefix(_ prefix: [UInt8]) -> [UInt8] { prefix + [UInt8](repeating: 0xFF, count: 33) }

    // MARK: - For the operator's checks, off the requests' path (they read every row of a kind)

    static func count(_ kind: Kind, sinceAtOrBefore time: UnixTime, db: Database) throws(FrontdoorError) -> Int64 {
        try db.query(
            "SELECT count(*) FROM ephemeral WHERE kind = ? AND since <= ?", [.integer(kind.rawValue), .integer(time)]
        ).first?.int(0) ?? 0
    }

    static func remove(_ kind: Kind, sinceAtOrBefore time: UnixTime, db: Database) throws(FrontdoorError) {
        try db.run("DELETE FROM ephemeral WHERE kind = ? AND since <= ?", [.integer(kind.rawValue), .integer(time)])
    }

    /// Every row of the kind whose `since` is after `time`, with its key.
    static func entries(_ kind: Kind, sinceAfter time: UnixTime, db: Database) throws(FrontdoorError)
        -> [(key: [UInt8], entry: Entry)]
    {
        try db.query(
            "SELECT number, since, value, note, expires_at, key FROM ephemeral WHERE kind = ? AND since > ?",
            [.integer(kind.rawValue), .integer(time)]
        ).map { row in (row.blob(5) ?? [], entry(row)) }
    }

    // MARK: - An account's

    /// The mailed codes of an account's tickets (its pending joins and its own-email tickets),
    /// which the tickets' own rows lose by cascade when the account goes.
    static func removeCodes(accountId: String, db: Database) throws(FrontdoorError) {
        try db.run(
            """
            DELETE FROM ephemeral WHERE kind = ? AND key IN
              (SELECT ticket_hash FROM tickets WHERE account_id = ?
               UNION ALL SELECT ticket_hash FROM email_tickets WHERE account_id = ?)
            """,
            [.integer(Kind.emailCode.rawValue), .text(accountId), .text(accountId)])
    }

    private static func entry(_ row: Row) -> Entry {
        Entry(number: row.int(0) ?? 0, since: row.int(1) ?? 0, value: row.blob(2), note: row.text(3),
              expiresAt: row.int(4) ?? 0)
    }
}
