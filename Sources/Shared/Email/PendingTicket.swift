/// A ticket `verify-email` was handed: a pending join (`tickets`, made by a provider sign-in's
/// `409 proof_required`), or one of its own (`email_tickets`: own-email verification, password
/// reset, an address change). Every ticket is 256 random bits, stored only as its SHA-256, expiring, and used once.
public enum PendingTicket: Sendable {
    case join(hash: [UInt8], accountId: String, provider: String, subject: String, methods: [String])
    case verify(hash: [UInt8], accountId: String)
    /// `accountId` is nil for a reset asked for an address nobody has: it behaves the same, and
    /// no code it could be confirmed with was ever sent.
    case reset(hash: [UInt8], accountId: String?)
    /// An address change (`account` `change_email`): `email` becomes the account's once the code
    /// mailed to it is confirmed.
    case change(hash: [UInt8], accountId: String, email: String)

    public var hash: [UInt8] {
        switch self {
        case .join(let hash, _, _, _, _), .verify(let hash, _), .reset(let hash, _), .change(let hash, _, _): hash
        }
    }

    /// The account the ticket acts on; nil for a reset of an address nobody has.
    var accountId: String? {
        switch self {
        case .join(_, let id, _, _, _), .verify(_, let id), .change(_, let id, _): id
        case .reset(_, let id): id
        }
    }

    static var invalid: FrontdoorError {
        FrontdoorError(.invalidTicket, "This request has expired or was already used. Please start again.")
    }

    /// The live ticket `ticket` names, or `invalid_ticket`.
    static func find(_ ticket: String, db: Database, now: UnixTime) throws(FrontdoorError) -> PendingTicket {
        guard ticket.utf8.count == 43, Base64URL.decode(ticket)?.count == 32 else { throw invalid }
        let hash = SHA256.hash(Array(ticket.utf8))
        let joins = try db.query(
            "SELECT account_id, provider, subject, methods FROM tickets WHERE ticket_hash = ? AND expires_at > ?",
            [.blob(hash), .integer(now)])
        if let row = joins.first, let accountId = row.text(0), let provider = row.text(1), let subject = row.text(2) {
            let methods = (row.text(3) ?? "").split(separator: ",").map(String.init)
            return .join(hash: hash, accountId: accountId, provider: provider, subject: subject, methods: methods)
        }
        let own = try db.query(
            "SELECT purpose, account_id, email FROM email_tickets WHERE ticket_hash = ? AND expires_at > ?",
            [.blob(hash), .integer(now)])
        switch (own.first?.text(0), own.first?.text(1), own.first?.text(2)) {
        case ("verify", .some(let accountId), _): return .verify(hash: hash, accountId: accountId)
        case ("reset", let accountId, _): return .reset(hash: hash, accountId: accountId)
        case ("change", .some(let accountId), .some(let email)): return .change(hash: hash, accountId: accountId, email: email)
        default: throw invalid
        }
    }

    /// Spends the ticket and its code; false when another request spent it first.
    static func spend(_ hash: [UInt8], db: Database) throws(FrontdoorError) -> Bool {
        let removed = try db.run("DELETE FROM tickets WHERE ticket_hash = ?", [.blob(hash)])
            + db.run("DELETE FROM email_tickets WHERE ticket_hash = ?", [.blob(hash)])
        try Codes.remove(ticketHash: hash, db: db)
        return removed == 1
    }

    /// A new own-email, reset or address-change ticket; returns the ticket and its hash.
    /// `addressKey` (`RateLimits.addressKey`) stands for the address a reset was asked for, or a
    /// change's new address; `email` is a change's new address itself.
    static func create(
        purpose: String, accountId: String?, addressKey: [UInt8]? = nil, email: String? = nil, db: Database,
        now: UnixTime, lifetime: Int64
    ) throws(FrontdoorError) -> (ticket: String, hash: [UInt8]) {
        let ticket = Base64URL.encode(try SecureRandom.bytes(32))
        let hash = SHA256.hash(Array(ticket.utf8))
        try db.run(
            """
            INSERT INTO email_tickets (ticket_hash, purpose, account_id, address_key, email, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .blob(hash), .text(purpose), accountId.map(SQLValue.text) ?? .null,
                addressKey.map(SQLValue.blob) ?? .null, email.map(SQLValue.text) ?? .null, .integer(now),
                .integer(now + lifetime),
            ])
        return (ticket, hash)
    }

    /// The key the ticket's wrong codes are capped under: the address of the account it belongs
    /// to, or for a reset the address it was asked for.
    static func codeFailureLimit(
        _ pending: PendingTicket, db: Database, config: Config, secret: [UInt8]
    ) throws(FrontdoorError) -> RateLimits.Limit {
        let addressKey: [UInt8]
        switch pending {
        case .join(_, let accountId, _, _, _), .verify(_, let accountId):
            let email = try db.query("SELECT email FROM accounts WHERE id = ?", [.text(accountId)]).first?.text(0)
            addressKey = RateLimits.addressKey(email ?? "account:" + accountId, secret: secret)
        case .reset(let hash, let accountId):
            let stored = try db.query("SELECT address_key FROM email_tickets WHERE ticket_hash = ?", [.blob(hash)])
            addressKey = stored.first?.blob(0) ?? RateLimits.addressKey("account:" + (accountId ?? "-"), secret: secret)
        case .change(_, _, let email):
            // The address the code went to, as for every other ticket.
            addressKey = RateLimits.addressKey(email, secret: secret)
        }
        return config.limits.codeFailures(addressKey: addressKey, secret: secret)
    }
}
