/// Pending joins (`409 proof_required`): a random ticket, stored hashed, bound to the provider
/// identity it was made for, expiring, used once.
public enum Tickets {
    public static func create(
        in db: Database, accountId: String, identity: ProviderIdentity, methods: [String], now: UnixTime,
        lifetime: Int64
    ) throws(FrontdoorError) -> String {
        // One pending join per identity: a newer ticket replaces the older.
        try db.run(
            "DELETE FROM tickets WHERE provider = ? AND subject = ?",
            [.text(identity.provider.rawValue), .text(identity.subject)])
        let ticket = Base64URL.encode(try SecureRandom.bytes(32))
        try db.run(
            """
            INSERT INTO tickets (ticket_hash, account_id, provider, subject, methods, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .blob(SHA256.hash(Array(ticket.utf8))), .text(accountId), .text(identity.provider.rawValue),
                .text(identity.subject), .text(methods.joined(separator: ",")), .integer(now),
                .integer(now + lifetime),
            ])
        return ticket
    }
}
