/// Session tokens: 256 bits from the kernel, handed out once; the store keeps only their SHA-256.
public enum Sessions {
    public struct Issued: Sendable {
        public let token: String
        public let expiresAt: UnixTime
    }

    /// Creates a session for `accountId`; call inside the transaction that made or found the account.
    public static func create(
        in db: Database, accountId: String, now: UnixTime, lifetime: Int64
    ) throws(FrontdoorError) -> Issued {
        let raw = try SecureRandom.bytes(32)
        let token = Base64URL.encode(raw)
        let expiresAt = now + lifetime
        try db.run(
            "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
            [.blob(SHA256.hash(Array(token.utf8))), .text(accountId), .integer(now), .integer(expiresAt)])
        return Issued(token: token, expiresAt: expiresAt)
    }

    /// The account a live session belongs to, or `unauthorized`.
    public static func accountId(
        in db: Database, token: String?, now: UnixTime
    ) throws(FrontdoorError) -> String {
        guard let token, Self.isWellFormed(token) else { throw unauthorized }
        let rows = try db.query(
            "SELECT account_id FROM sessions WHERE token_hash = ? AND expires_at > ?",
            [.blob(SHA256.hash(Array(token.utf8))), .integer(now)])
        guard let accountId = rows.first?.text(0) else { throw unauthorized }
        return accountId
    }

    /// Ends the session `token` names; `unauthorized` when there is no live one.
    public static func end(in db: Database, token: String?, now: UnixTime) throws(FrontdoorError) {
        guard let token, Self.isWellFormed(token) else { throw unauthorized }
        let removed = try db.run(
            "DELETE FROM sessions WHERE token_hash = ? AND expires_at > ?",
            [.blob(SHA256.hash(Array(token.utf8))), .integer(now)])
        guard removed == 1 else { throw unauthorized }
    }

    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 43 && Base64URL.decode(token)?.count == 32
    }

    static var unauthorized: FrontdoorError {
        FrontdoorError(.unauthorized, "The session is missing, unknown or expired. Please sign in again.")
    }
}
