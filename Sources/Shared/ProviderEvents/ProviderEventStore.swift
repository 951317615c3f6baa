/// Every statement the providers' events use (rule 16), in one place: the `provider_events` rows
/// by `jti`, and what the events change on identities, sessions and revocations. Each call runs
/// inside the caller's transaction.
public enum ProviderEventStore {
    public enum Provider: String, Sendable { case apple, google }

    /// What an event's row records it did.
    public enum Outcome: String, Sendable, CaseIterable {
        case applied
        case ignored
        case noAccount = "no_account"
        /// Apple's `consent-revoked` for the `sub` of a deletion we revoked: its confirmation.
        case echo
    }

    /// Rows are kept this long: far past either sender's retries (Apple's `exp` is a day, Google's
    /// retries are "limited"), and the self-check counts the last 30 days.
    public static let keptSeconds: Int64 = 90 * 86_400

    /// Records the event's `jti` before anything it causes; false when it was there already (a
    /// repeat, which then only counts itself).
    static func claim(
        _ provider: Provider, jti: String, types: String, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> Bool {
        let inserted = try db.run(
            """
            INSERT INTO provider_events (provider, jti, type, outcome, received_at) VALUES (?, ?, ?, 'applied', ?)
            ON CONFLICT (provider, jti) DO NOTHING
            """,
            [.text(provider.rawValue), .text(jti), .text(types), .integer(now)])
        if inserted == 1 { return true }
        try db.run(
            "UPDATE provider_events SET repeats = repeats + 1 WHERE provider = ? AND jti = ?",
            [.text(provider.rawValue), .text(jti)])
        return false
    }

    static func settle(_ provider: Provider, jti: String, outcome: Outcome, db: Database) throws(FrontdoorError) {
        guard outcome != .applied else { return }
        try db.run(
            "UPDATE provider_events SET outcome = ? WHERE provider = ? AND jti = ?",
            [.text(outcome.rawValue), .text(provider.rawValue), .text(jti)])
    }

    /// The account of the provider's `sub`, or nil.
    static func account(_ provider: Provider, subject: String, db: Database) throws(FrontdoorError) -> String? {
        try db.query(
            "SELECT account_id FROM identities WHERE provider = ? AND subject = ?",
            [.text(provider.rawValue), .text(subject)]
        ).first?.text(0)
    }

    /// Ends the account's sessions made at or before `time` (RFC 8417's timing: a sign-in after
    /// the event keeps its session); how many.
    static func endSessions(of accountId: String, madeBy time: UnixTime, db: Database) throws(FrontdoorError) -> Int {
        try db.run(
            "DELETE FROM sessions WHERE account_id = ? AND created_at <= ?", [.text(accountId), .integer(time)])
    }

    static func removeIdentity(_ provider: Provider, subject: String, db: Database) throws(FrontdoorError) {
        try db.run(
            "DELETE FROM identities WHERE provider = ? AND subject = ?", [.text(provider.rawValue), .text(subject)])
    }

    /// Google's `account-disabled`: the identity is blocked from `time` on. A block seen after a
    /// newer lifting (a retry out of order) blocks again: when in doubt, blocked.
    static func block(googleSubject subject: String, at time: UnixTime, db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE identities SET blocked_at = max(coalesce(blocked_at, 0), ?) WHERE provider = 'google' AND subject = ?",
            [.integer(time), .text(subject)])
    }

    /// Google's `account-enabled`: lifts a block no newer than the event.
    static func unblock(googleSubject subject: String, at time: UnixTime, db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE identities SET blocked_at = NULL WHERE provider = 'google' AND subject = ? AND blocked_at <= ?",
            [.text(subject), .integer(time)])
    }

    /// Apple's `email-disabled` (`on` false) and `email-enabled` on the identity's relay address,
    /// ordered by the events' times as `block` and `unblock` are.
    static func setRelayMail(appleSubject subject: String, on: Bool, at time: UnixTime, db: Database) throws(FrontdoorError) {
        if on {
            try db.run(
                "UPDATE identities SET mail_off_at = NULL WHERE provider = 'apple' AND subject = ? AND mail_off_at <= ?",
                [.text(subject), .integer(time)])
        } else {
            try db.run(
                "UPDATE identities SET mail_off_at = max(coalesce(mail_off_at, 0), ?) WHERE provider = 'apple' AND subject = ?",
                [.integer(time), .text(subject)])
        }
    }

    /// The account's email key, or nil when it has none.
    static func emailKey(of accountId: String, db: Database) throws(FrontdoorError) -> String? {
        try db.query("SELECT email_key FROM accounts WHERE id = ?", [.text(accountId)]).first?.text(0)
    }

    /// Whether a provider stopped mail to the account's address: a blocked Google identity (its
    /// address is the account's, which it joined by), or Apple's relay forwarding turned off.
    /// Codes and resets are then not mailed, and every answer stays what it would have been.
    public static func mailStopped(_ accountId: String, db: Database) throws(FrontdoorError) -> Bool {
        try !db.query(
            "SELECT 1 FROM identities WHERE account_id = ? AND (blocked_at IS NOT NULL OR mail_off_at IS NOT NULL) LIMIT 1",
            [.text(accountId)]
        ).isEmpty
    }

    /// Marks the revocations of the Apple `sub` behind `subjectHash` confirmed by Apple's echo; a
    /// settled one then forgets the hash, which it kept only for this. Whether there was one.
    static func confirmRevocation(subjectHash: [UInt8], now: UnixTime, db: Database) throws(FrontdoorError) -> Bool {
        try db.run(
            """
            UPDATE apple_revocations SET confirmed_at = coalesce(confirmed_at, ?),
              subject_hash = CASE WHEN state IN ('scheduled', 'retry') THEN subject_hash ELSE NULL END
            WHERE subject_hash = ?
            """,
            [.integer(now), .blob(subjectHash)]) > 0
    }

    /// One provider's events of one outcome since a time, and the repeats among them.
    public struct Count: Sendable, Equatable {
        public let provider: String
        public let outcome: String
        public let events: Int64
        public let repeats: Int64
    }

    public static func counts(since: UnixTime, db: Database) throws(FrontdoorError) -> [Count] {
        try db.query(
            """
            SELECT provider, outcome, count(*), sum(repeats) FROM provider_events WHERE received_at > ?
            GROUP BY provider, outcome ORDER BY provider, outcome
            """,
            [.integer(since)]
        ).compactMap { row in
            guard let provider = row.text(0), let outcome = row.text(1) else { return nil }
            return Count(provider: provider, outcome: outcome, events: row.int(2) ?? 0, repeats: row.int(3) ?? 0)
        }
    }

    /// `Housekeeping`'s statement: rows past `keptSeconds`, a bounded batch.
    static let pruneStatement = (
        table: "provider_events",
        sql: """
            DELETE FROM provider_events WHERE (provider, jti) IN
              (SELECT provider, jti FROM provider_events WHERE received_at <= ? - \(keptSeconds) LIMIT ?)
            """
    )
}
