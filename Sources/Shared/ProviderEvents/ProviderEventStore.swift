/// Every statement the providers' events use (rule 16), in one place: the events' rows by `jti`
/// (`Ephemeral.Kind.providerEvent`, keyed `<provider>:<jti>`, gone after `keptSeconds`), and what
/// the events change on identities, sessions and revocations. Each call runs inside the caller's
/// transaction.
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

    /// The oldest event (by `iat`) the receivers take: 89 days, far past either sender's retries
    /// (Apple's `exp` is a day, Google's retries are "limited").
    public static let maxEventAgeSeconds: Int64 = 89 * 86_400

    /// Rows are kept this long after the event came: a day beyond the oldest event taken, more
    /// than the clock skew a future `iat` is allowed, so any event that could still be taken has
    /// its row while it can (a replay finds it and does nothing). The self-check counts the last
    /// 30 days.
    public static let keptSeconds: Int64 = maxEventAgeSeconds + 86_400

    /// Records the event's `jti` before anything it causes; false when it was there already (a
    /// repeat, which then only counts itself).
    static func claim(
        _ provider: Provider, jti: String, types: String, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> Bool {
        let key = Self.key(provider, jti: jti)
        if try Ephemeral.claim(
            .providerEvent, key: key, since: now, value: Array(types.utf8), note: Outcome.applied.rawValue,
            until: now + keptSeconds, db: db)
        {
            return true
        }
        try Ephemeral.bump(.providerEvent, key: key, db: db)
        return false
    }

    static func settle(_ provider: Provider, jti: String, outcome: Outcome, db: Database) throws(FrontdoorError) {
        guard outcome != .applied else { return }
        try Ephemeral.setNote(.providerEvent, key: key(provider, jti: jti), outcome.rawValue, db: db)
    }

    /// An event's row key: provider names hold no colon, so the first one ends the provider.
    public static func key(_ provider: Provider, jti: String) -> [UInt8] { Array("\(provider.rawValue):\(jti)".utf8) }

    /// A row key's provider and `jti`.
    public static func provider(andJTI key: [UInt8]) -> (provider: String, jti: String)? {
        guard let colon = key.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return (String(decoding: key[..<colon], as: UTF8.self), String(decoding: key[(colon + 1)...], as: UTF8.self))
    }

    /// The account of the provider's `sub`, or nil.
    static func account(_ provider: Provider, subject: String, db: Database) throws(FrontdoorError) -> String? {
        try db.query(
            "SELECT account_id FROM identities WHERE provider = ? AND subject = ?",
            [.text(provider.rawValue), .text(subject)]
        ).first?.text(0)
    }

    /// Ends the account's sessions made at or before `time` (RFC 8417's timing: a sign-in after
    /// the event keeps its session), recorded in the ledger; how many.
    static func endSessions(of accountId: String, madeBy time: UnixTime, db: Database, now: UnixTime)
        throws(FrontdoorError) -> Int
    {
        try SecurityLedger.endSessions(
            "DELETE FROM sessions WHERE account_id = ? AND created_at <= ? RETURNING session_id",
            [.text(accountId), .integer(time)], accountId: accountId, db: db, now: now)
    }

    static func removeIdentity(
        _ provider: Provider, subject: String, accountId: String, db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try db.run(
            "DELETE FROM identities WHERE provider = ? AND subject = ?", [.text(provider.rawValue), .text(subject)])
        try SecurityLedger.identityRemoved(provider.rawValue, accountId: accountId, db: db, now: now)
    }

    /// Google's `account-disabled`: the identity is blocked from `time` on. A block seen after a
    /// newer lifting (a retry out of order) blocks again: when in doubt, blocked.
    static func block(
        googleSubject subject: String, at time: UnixTime, accountId: String, db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try db.run(
            "UPDATE identities SET blocked_at = max(coalesce(blocked_at, 0), ?) WHERE provider = 'google' AND subject = ?",
            [.integer(time), .text(subject)])
        try SecurityLedger.identityBlocked("google", accountId: accountId, db: db, now: now)
    }

    /// Google's `account-enabled`: lifts a block no newer than the event.
    static func unblock(
        googleSubject subject: String, at time: UnixTime, accountId: String, db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        let lifted = try db.run(
            "UPDATE identities SET blocked_at = NULL WHERE provider = 'google' AND subject = ? AND blocked_at <= ?",
            [.text(subject), .integer(time)])
        if lifted > 0 { try SecurityLedger.identityUnblocked("google", accountId: accountId, db: db, now: now) }
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
        // Grouped here, not in SQL: the provider is the key's first part (the operator's check only).
        var counts: [Count] = []
        for (key, entry) in try Ephemeral.entries(.providerEvent, sinceAfter: since, db: db) {
            guard let provider = provider(andJTI: key)?.provider, let outcome = entry.note else { continue }
            if let i = counts.firstIndex(where: { $0.provider == provider && $0.outcome == outcome }) {
                let old = counts[i]
                counts[i] = Count(provider: provider, outcome: outcome, events: old.events + 1, repeats: old.repeats + entry.number)
            } else {
                counts.append(Count(provider: provider, outcome: outcome, events: 1, repeats: entry.number))
            }
        }
        return counts.sorted { ($0.provider, $0.outcome) < ($1.provider, $1.outcome) }
    }
}
