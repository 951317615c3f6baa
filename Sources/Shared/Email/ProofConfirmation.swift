/// `confirm`: a ticket and its proof (a mailed code, or the account's password where the ticket
/// allows it) join the ticket's provider identity to the account, or prove the account's own
/// email, and answer a new session.
enum ProofConfirmation {
    static func confirm(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let body = context.body
        let ticket = try body.requiredString("ticket", maxBytes: 128)
        let code = try body.optionalString("code", maxBytes: 64)
        let password = try body.optionalString("password", maxBytes: 4096)
        guard (code == nil) != (password == nil) else { throw .invalidRequest("Send either code or password.") }
        let db = try context.database()
        switch try PendingTicket.find(ticket, db: db, now: context.now) {
        case .reset:
            throw PendingTicket.invalid
        case .verify where password != nil:
            throw .invalidRequest("This can only be confirmed with the code sent by email.")
        case .join(_, _, _, _, let methods) where password != nil && !methods.contains("password"):
            throw .invalidRequest("This can only be confirmed with the code sent by email.")
        default:
            break
        }
        if let code { return try byCode(code, ticket: ticket, context: context, db: db).response }
        return try byPassword(password ?? "", ticket: ticket, context: context, db: db).response
    }

    /// The inbox is proven. A join to an account whose email was typed and never proven also
    /// clears that password and ends the account's sessions: whoever typed the address may have
    /// set them (account pre-hijacking). An account whose email was proven keeps both.
    static func byCode(
        _ code: String, ticket: String, context: RequestContext, db: Database
    ) throws(FrontdoorError) -> SessionBody {
        let now = context.now
        let outcome = try db.transaction { () throws(FrontdoorError) -> Result<SessionBody, FrontdoorError> in
            let pending = try PendingTicket.find(ticket, db: db, now: now)
            if case .refused(let error) = try Codes.check(code, ticketHash: pending.hash, db: db, now: now) {
                return .failure(error)
            }
            guard try PendingTicket.spend(pending.hash, db: db) else { throw PendingTicket.invalid }
            let accountId: String
            switch pending {
            case .join(_, let id, let provider, let subject, _):
                accountId = id
                try link(provider: provider, subject: subject, to: id, db: db, now: now)
                let typed = try db.query(
                    "SELECT 1 FROM accounts WHERE id = ? AND email_verified = 0", [.text(id)])
                if !typed.isEmpty {
                    try db.run("UPDATE accounts SET password_hash = NULL WHERE id = ?", [.text(id)])
                    try db.run("DELETE FROM sessions WHERE account_id = ?", [.text(id)])
                }
                try Events.record(.linked(provider: provider), accountId: id, in: db, config: context.config, now: now)
            case .verify(_, let id):
                accountId = id
            case .reset:
                throw PendingTicket.invalid
            }
            try Events.record(.verifyingEmail, accountId: accountId, in: db, config: context.config, now: now)
            try db.run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(accountId)])
            return .success(try ProviderSignIn.startSession(
                db: db, accountId: accountId, created: false, config: context.config, now: now))
        }
        return try outcome.get()
    }

    /// The account's password proves the person is its owner: the identity joins, the email counts
    /// as proven (the provider verified it), and password and sessions stay. Tries count against
    /// the same limits as logins.
    static func byPassword(
        _ password: String, ticket: String, context: RequestContext, db: Database
    ) throws(FrontdoorError) -> SessionBody {
        let now = context.now
        let cost = context.config.passwordCost
        let secret = try context.rateLimitSecret()
        let found = try db.transaction { () throws(FrontdoorError) -> ([RateLimits.Limit], String?) in
            guard case .join(_, let id, _, _, _) = try PendingTicket.find(ticket, db: db, now: now) else {
                throw PendingTicket.invalid
            }
            let rows = try db.query("SELECT email, password_hash FROM accounts WHERE id = ?", [.text(id)])
            let limits = context.config.limits.login(
                email: rows.first?.text(0) ?? id, client: context.client, secret: secret)
            try RateLimits.hit(limits, db: db, now: now)
            return (limits, rows.first?.text(1))
        }
        let (limits, hash) = found
        let matched = try PasswordHasher.verify(password, against: hash ?? PasswordHasher.dummyHash(cost: cost))
        guard matched, hash != nil else { throw EmailSignIn.invalidCredentials }
        return try db.transaction { () throws(FrontdoorError) -> SessionBody in
            guard case .join(let hash, let id, let provider, let subject, _) = try PendingTicket.find(
                ticket, db: db, now: now), try PendingTicket.spend(hash, db: db)
            else { throw PendingTicket.invalid }
            try link(provider: provider, subject: subject, to: id, db: db, now: now)
            try Events.record(.linked(provider: provider), accountId: id, in: db, config: context.config, now: now)
            try Events.record(.verifyingEmail, accountId: id, in: db, config: context.config, now: now)
            try db.run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(id)])
            try EmailSignIn.succeeded(limits, db: db, now: now)
            return try ProviderSignIn.startSession(db: db, accountId: id, created: false, config: context.config, now: now)
        }
    }

    /// Joins the identity the ticket was made for; one that meanwhile belongs elsewhere spoils the ticket.
    static func link(
        provider: String, subject: String, to accountId: String, db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try db.run(
            """
            INSERT INTO identities (provider, subject, account_id, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (provider, subject) DO NOTHING
            """,
            [.text(provider), .text(subject), .text(accountId), .integer(now)])
        let owner = try db.query(
            "SELECT account_id FROM identities WHERE provider = ? AND subject = ?", [.text(provider), .text(subject)])
        guard owner.first?.text(0) == accountId else { throw PendingTicket.invalid }
    }
}
