/// Session tokens: 256 bits from the kernel, handed out once; the store keeps only their SHA-256.
/// Each session also has a public id (for the device list and signing one device out), which is
/// random too and says nothing about the token.
public enum Sessions {
    public struct Issued: Sendable {
        public let token: String
        public let sessionId: String
        public let expiresAt: UnixTime
    }

    /// Creates a session for `accountId`, signed in now (rule 18's recent sign-in); call inside the
    /// transaction that made or found the account.
    public static func create(
        in db: Database, accountId: String, now: UnixTime, policy: SessionPolicy, deviceName: String? = nil
    ) throws(FrontdoorError) -> Issued {
        let token = Base64URL.encode(try SecureRandom.bytes(32))
        let sessionId = try newSessionId()
        let expiresAt = policy.firstExpiry(createdAt: now)
        let row: [SQLValue] = [
            .blob(hash(token)), .text(sessionId), .text(accountId), deviceName.map(SQLValue.text) ?? .null,
            .integer(now), .integer(now), .integer(expiresAt), .integer(now),
        ]
        // On SQLite's session file, made after the store's commit (`Database.transaction`): begun
        // last, and only if no takeback or reset ended the account's sessions in between (T5-2).
        if db.defersSessionInserts {
            let epoch = try db.query("SELECT sessions_epoch FROM accounts WHERE id = ?", [.text(accountId)]).first?.int(0)
            db.pendingSessions.append(row + [row[2], .integer(epoch ?? -1)])
        } else {
            // In the sign-in's transaction the account is there; a disabled one is refused by
            // `SessionBody.load`, which rolls the whole sign-in back.
            try db.run(insertSQL, row + [row[2]])
        }
        // Inside the sign-in's transaction, its write lock held: the race with `frontdoor-admin disable`.
        TestHooks.pause("session-created")
        return Issued(token: token, sessionId: sessionId, expiresAt: expiresAt)
    }

    /// A session, only if its account is there and not disabled: on SQLite's session file it is
    /// made once the sign-in's transaction has committed (`SessionFile`), and a deletion or a
    /// disable may have come between. Its account id is bound twice (the row's, the check's).
    static let insertSQL = """
        INSERT INTO sessions (token_hash, session_id, account_id, device_name, created_at, last_used_at, expires_at,
          signed_in_at)
        SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ? AND disabled_at IS NULL)
        """

    /// The same after the sign-in's commit (SQLite's session file), and only while the account's
    /// sessions epoch is the one the sign-in read: a reset, a change of password or a takeback
    /// that committed in between ended the sessions the sign-in could have made.
    static let deferredInsertSQL = """
        INSERT INTO sessions (token_hash, session_id, account_id, device_name, created_at, last_used_at, expires_at,
          signed_in_at)
        SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (
          SELECT 1 FROM accounts WHERE id = ? AND disabled_at IS NULL AND sessions_epoch = ?)
        """

    /// The account of the session behind `token`, or `unauthorized`: the one verdict every endpoint
    /// that takes a bearer gives, the session check's (`SessionPolicy.admits`). A session past
    /// `sessions.maxLifetimeSeconds` is refused even while its stored expiry, written before the cap
    /// was configured, lies ahead; so is a session whose account is gone or disabled.
    public static func accountId(
        in db: Database, token: String?, now: UnixTime, policy: SessionPolicy
    ) throws(FrontdoorError) -> String {
        guard let token, Self.isWellFormed(token) else { throw unauthorized }
        let (session, verdict) = try judged(db, tokenHash: hash(token), now: now, policy: policy, whole: false)
        guard SessionPolicy.admits(verdict, now: now) else { throw unauthorized }
        return session.accountId
    }

    /// The live session and the policy's verdict on it; `unauthorized` when there is none.
    static func judged(
        _ db: Database, tokenHash: [UInt8], now: UnixTime, policy: SessionPolicy, whole: Bool
    ) throws(FrontdoorError) -> (session: LiveSession, verdict: SessionPolicy.Verdict) {
        guard let session = try LiveSession.read(db, tokenHash: tokenHash, now: now, whole: whole) else {
            throw unauthorized
        }
        let verdict = policy.verdict(
            createdAt: session.createdAt, lastUsedAt: session.lastUsedAt, expiresAt: session.expiresAt, now: now)
        return (session, verdict)
    }

    /// The stored form of a token: its SHA-256. The caller has checked the token is well formed.
    static func hash(_ token: String) -> [UInt8] {
        SHA256.hash(Array(token.utf8))
    }

    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 43 && Base64URL.decode(token)?.count == 32
    }

    /// 16 random bytes as 32 lowercase hex digits, the form the migration gives older sessions.
    static func newSessionId() throws(FrontdoorError) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in try SecureRandom.bytes(16) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static var unauthorized: FrontdoorError {
        FrontdoorError(.unauthorized, "The session is missing, unknown or expired. Please sign in again.")
    }
}
