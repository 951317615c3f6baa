/// Session tokens: 256 bits from the kernel, handed out once; the store keeps only their SHA-256.
/// Each session also has a public id (for the device list and signing one device out), which is
/// random too and says nothing about the token.
public enum Sessions {
    public struct Issued: Sendable {
        public let token: String
        public let sessionId: String
        public let expiresAt: UnixTime
    }

    /// Creates a session for `accountId`; call inside the transaction that made or found the account.
    public static func create(
        in db: Database, accountId: String, now: UnixTime, policy: SessionPolicy, deviceName: String? = nil
    ) throws(FrontdoorError) -> Issued {
        let token = Base64URL.encode(try SecureRandom.bytes(32))
        let sessionId = try newSessionId()
        let expiresAt = policy.firstExpiry(createdAt: now)
        try db.run(
            """
            INSERT INTO sessions (token_hash, session_id, account_id, device_name, created_at, last_used_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [.blob(hash(token)), .text(sessionId), .text(accountId), deviceName.map(SQLValue.text) ?? .null,
             .integer(now), .integer(now), .integer(expiresAt)])
        // Inside the sign-in's transaction, its write lock held: the race with `frontdoor-admin disable`.
        TestHooks.pause("session-created")
        return Issued(token: token, sessionId: sessionId, expiresAt: expiresAt)
    }

    /// The account a live session belongs to, or `unauthorized` (as for a disabled account's).
    public static func accountId(
        in db: Database, token: String?, now: UnixTime
    ) throws(FrontdoorError) -> String {
        guard let token, Self.isWellFormed(token) else { throw unauthorized }
        let rows = try db.query(
            """
            SELECT account_id FROM sessions WHERE token_hash = ? AND expires_at > ?
              AND EXISTS (SELECT 1 FROM accounts WHERE id = sessions.account_id AND disabled_at IS NULL)
            """,
            [.blob(hash(token)), .integer(now)])
        guard let accountId = rows.first?.text(0) else { throw unauthorized }
        return accountId
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
