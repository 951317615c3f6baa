/// `confirm`: a ticket and its proof (a mailed code, or the account's password where the ticket
/// allows it) join the ticket's provider identity to the account, or prove the account's own
/// email, and answer a new session.
enum ProofConfirmation {
    static func confirm(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let body = context.body
        let ticket = try body.requiredString("ticket", maxBytes: 128)
        let code = try body.optionalString("code", maxBytes: 64)
        let password = try body.optionalString("password", maxBytes: 4096, mayHoldNUL: true)
        guard (code == nil) != (password == nil) else { throw .invalidRequest("Send either code or password.") }
        let deviceName = try PersonText.deviceName(body)
        let reauth = try Reauthentication.bearer(context)
        let db = try context.database()
        switch try PendingTicket.find(ticket, db: db, now: context.now) {
        case .reset:
            throw PendingTicket.invalid
        case .verify where password != nil, .change where password != nil:
            throw .invalidRequest("This can only be confirmed with the code sent by email.")
        case .join(_, _, _, _, let methods) where password != nil && !methods.contains("password"):
            throw .invalidRequest("This can only be confirmed with the code sent by email.")
        default:
            break
        }
        if let code {
            return try byCode(code, ticket: ticket, context: context, db: db, deviceName: deviceName, reauth: reauth)
                .response
        }
        return try byPassword(
            password ?? "", ticket: ticket, context: context, db: db, deviceName: deviceName, reauth: reauth
        ).response
    }

    /// The inbox is proven. A join to an account whose email was typed and never proven also
    /// clears that password, ends the account's sessions and removes the passkeys they added:
    /// whoever typed the address may have set them (account pre-hijacking). An account whose email
    /// was proven keeps all three. An address change's new address becomes the account's
    /// (`EmailChange.apply`). With `reauth`, the ticket must be of the bearer's account (checked
    /// before the code counts a try), whose session is then proven again in place; a join that
    /// ends the sessions ends the others.
    static func byCode(
        _ code: String, ticket: String, context: RequestContext, db: Database, deviceName: String? = nil,
        reauth: Reauthentication? = nil
    ) throws(FrontdoorError) -> SessionBody {
        let now = context.now
        let secret = try context.rateLimitSecret()
        let codeKey = try context.codeKey()
        typealias Confirmed = (body: SessionBody, notice: SettingsNotice?)
        let outcome = try db.transaction { () throws(FrontdoorError) -> Result<Confirmed, FrontdoorError> in
            let pending = try PendingTicket.find(ticket, db: db, now: now)
            if let reauth { try reauth.requireSame(pending.accountId) }
            let failures = try PendingTicket.codeFailureLimit(pending, db: db, config: context.config, secret: secret)
            if case .refused(let error) = try Codes.check(
                code, ticketHash: pending.hash, key: codeKey, failures: failures, db: db, now: now)
            {
                return .failure(error)
            }
            guard try PendingTicket.spend(pending.hash, db: db) else { throw PendingTicket.invalid }
            let accountId: String
            var notice: SettingsNotice?
            switch pending {
            case .join(_, let id, let provider, let subject, _):
                accountId = id
                let typed = try db.query(
                    "SELECT 1 FROM accounts WHERE id = ? AND email_verified = 0", [.text(id)])
                if !typed.isEmpty {
                    if try db.run(
                        "UPDATE accounts SET password_hash = NULL WHERE id = ? AND password_hash IS NOT NULL", [.text(id)]) == 1
                    {
                        try SecurityLedger.passwordChanged(id, db: db, now: now)
                    }
                    // A bearer's session stays, to be proven again below: its holder also holds
                    // the code, and a new session would give them nothing less (docs/security.md).
                    try SecurityLedger.endSessions(
                        "DELETE FROM sessions WHERE account_id = ? AND token_hash <> ? RETURNING session_id",
                        [.text(id), .blob(reauth?.tokenHash ?? [])], accountId: id, db: db, now: now)
                }
                try InboxProof.dropUnprovenIdentities(of: id, db: db, now: now)
                try link(provider: provider, subject: subject, to: id, db: db, now: now)
                try Events.record(.linked(provider: provider), accountId: id, in: db, config: context.config, now: now)
                // After the link, the way in it brings (a takeback never removes the last one).
                if !typed.isEmpty {
                    try Takeback.run(id, sessionsMadeBy: now, db: db, config: context.config, now: now)
                }
            case .verify(_, let id):
                // The session's holder read the code: whoever made the account owns the inbox.
                accountId = id
                try db.run("UPDATE identities SET email_proven = 1 WHERE account_id = ?", [.text(id)])
            case .change(_, let id, let email):
                accountId = id
                notice = try EmailChange.apply(email, to: id, db: db, config: context.config, now: now)
            case .reset:
                throw PendingTicket.invalid
            }
            try Events.record(.verifyingEmail, accountId: accountId, in: db, config: context.config, now: now)
            try db.run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(accountId)])
            let body = try ProviderSignIn.startSession(
                db: db, accountId: accountId, created: false, config: context.config, now: now, deviceName: deviceName,
                reauth: reauth)
            return .success((body, notice))
        }
        let confirmed = try outcome.get()
        if let notice = confirmed.notice { context.runAfterAnswer { notice.send(context) } }
        return confirmed.body
    }

    /// The account's password proves the person is its owner: the identity joins, the email counts
    /// as proven (the provider verified it), and password and sessions stay. Tries count against
    /// the same limits as logins.
    static func byPassword(
        _ password: String, ticket: String, context: RequestContext, db: Database, deviceName: String? = nil,
        reauth: Reauthentication? = nil
    ) throws(FrontdoorError) -> SessionBody {
        let now = context.now
        let cost = context.config.passwordCost
        let secret = try context.rateLimitSecret()
        let found = try db.transaction { () throws(FrontdoorError) -> ([RateLimits.Limit], String?) in
            guard case .join(_, let id, _, _, _) = try PendingTicket.find(ticket, db: db, now: now) else {
                throw PendingTicket.invalid
            }
            if let reauth { try reauth.requireSame(id) }
            let rows = try db.query("SELECT email, password_hash FROM accounts WHERE id = ?", [.text(id)])
            let limits = context.config.limits.login(
                email: rows.first?.text(0) ?? id, client: context.client, secret: secret)
            try RateLimits.hit(limits, db: db, now: now)
            return (limits, rows.first?.text(1))
        }
        let (limits, hash) = found
        let matched = try PasswordHasher.verify(password, against: hash ?? PasswordHasher.dummyHash(cost: cost))
        guard matched, let hash else { throw EmailSignIn.invalidCredentials }
        TestHooks.pause("proof-password-verified")
        return try db.transaction { () throws(FrontdoorError) -> SessionBody in
            guard case .join(let ticketHash, let id, let provider, let subject, _) = try PendingTicket.find(
                ticket, db: db, now: now)
            else { throw PendingTicket.invalid }
            // As at login: only the password just verified may join, not one a reset replaced meanwhile.
            guard try EmailSignIn.currentHash(of: id, db: db) == hash else { throw EmailSignIn.invalidCredentials }
            guard try PendingTicket.spend(ticketHash, db: db) else { throw PendingTicket.invalid }
            try link(provider: provider, subject: subject, to: id, db: db, now: now)
            try Events.record(.linked(provider: provider), accountId: id, in: db, config: context.config, now: now)
            try Events.record(.verifyingEmail, accountId: id, in: db, config: context.config, now: now)
            try db.run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(id)])
            try EmailSignIn.succeeded(limits, db: db, now: now)
            return try ProviderSignIn.startSession(
                db: db, accountId: id, created: false, config: context.config, now: now, deviceName: deviceName,
                reauth: reauth)
        }
    }

    /// Joins the identity the ticket was made for, as proven (a code proved the inbox; a password
    /// join is offered only to a provider that speaks for the address). One that meanwhile belongs
    /// elsewhere, or an account that meanwhile has another identity of the same provider, spoils
    /// the ticket: an account holds one identity per provider.
    static func link(
        provider: String, subject: String, to accountId: String, db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        let other = try db.query(
            "SELECT 1 FROM identities WHERE account_id = ? AND provider = ? AND subject <> ?",
            [.text(accountId), .text(provider), .text(subject)])
        guard other.isEmpty else { throw PendingTicket.invalid }
        try db.run(
            """
            INSERT INTO identities (provider, subject, account_id, created_at, email_proven) VALUES (?, ?, ?, ?, 1)
            ON CONFLICT (provider, subject) DO NOTHING
            """,
            [.text(provider), .text(subject), .text(accountId), .integer(now)])
        let owner = try db.query(
            "SELECT account_id FROM identities WHERE provider = ? AND subject = ?", [.text(provider), .text(subject)])
        guard owner.first?.text(0) == accountId else { throw PendingTicket.invalid }
    }
}
