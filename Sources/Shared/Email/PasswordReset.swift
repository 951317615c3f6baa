/// "Forgot password": `reset_request` answers at once and alike whether or not an account has the
/// address (a ticket either way; the mail goes after the answer, and only to an account's own
/// address), with every limit keyed on the normalised address typed. `reset_confirm` with the
/// ticket, the mailed code and a new password sets it, marks the email proven, ends every
/// session, and answers a new one.
enum PasswordReset {
    static func request(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let typed = try context.body.requiredString("email", maxBytes: 1024)
        // The syntax only: a suggestion here would say nothing useful and hold the person up.
        let email = try EmailValidation.checked(typed, acceptAsTyped: true)
        let mailer = try context.mailer()
        let db = try context.database()
        let now = context.now
        let code = try Codes.generate()
        let secret = try context.rateLimitSecret()
        let limits = context.config.limits.mail(to: email, secret: secret)
            + context.config.limits.resetRequest(client: context.client, secret: secret)
        let (ticket, recipient) = try db.transaction { () throws(FrontdoorError) -> (String, String?) in
            try RateLimits.hit(limits, db: db, now: now)
            let account = try db.query(
                "SELECT id, email FROM accounts WHERE email_key = ?", [.text(EmailAddress.matchKey(email))]).first
            let made = try PendingTicket.create(
                purpose: "reset", accountId: account?.text(0), db: db, now: now,
                lifetime: context.config.ticketLifetimeSeconds)
            try Codes.store(code, ticketHash: made.hash, db: db, now: now)
            guard let recipient = account?.text(1) else {
                // Nobody has the address: a code nothing matches, so confirming fails as a wrong code does.
                try Codes.spoil(ticketHash: made.hash, db: db)
                return (made.ticket, nil)
            }
            return (made.ticket, recipient)
        }
        if let recipient {
            context.runAfterAnswer {
                do throws(FrontdoorError) {
                    try mailer.send(.code(code, to: recipient, purpose: "to choose a new password"), now: now)
                    VerifyEmail.syslog("reset mail sent")
                } catch {
                    VerifyEmail.syslog("reset mail not sent: \(error.detail ?? error.code.rawValue)", warning: true)
                }
            }
        }
        return CGIResponse(status: 200, body: .object([
            ("ticket", .string(ticket)), ("codeExpiresAt", .string(Clock.rfc3339(now + Codes.lifetimeSeconds))),
        ]))
    }

    static func confirm(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let body = context.body
        let ticket = try body.requiredString("ticket", maxBytes: 128)
        let code = try body.requiredString("code", maxBytes: 64)
        let password = try EmailSignIn.password(body)
        let db = try context.database()
        let now = context.now
        guard case .reset = try PendingTicket.find(ticket, db: db, now: now) else { throw PendingTicket.invalid }
        try PasswordHasher.checkLength(password)
        // Hashed before the transaction so no write lock waits on it.
        let hash = try PasswordHasher.hash(password, cost: context.config.passwordCost)
        let outcome = try db.transaction { () throws(FrontdoorError) -> Result<SessionBody, FrontdoorError> in
            guard case .reset(let ticketHash, let accountId) = try PendingTicket.find(ticket, db: db, now: now) else {
                throw PendingTicket.invalid
            }
            if case .refused(let error) = try Codes.check(code, ticketHash: ticketHash, db: db, now: now) {
                return .failure(error)
            }
            guard let accountId, try PendingTicket.spend(ticketHash, db: db) else { throw PendingTicket.invalid }
            try Events.record(.settingPassword, accountId: accountId, in: db, config: context.config, now: now)
            try db.run(
                "UPDATE accounts SET password_hash = ?, email_verified = 1 WHERE id = ?", [.text(hash), .text(accountId)])
            try db.run("DELETE FROM sessions WHERE account_id = ?", [.text(accountId)])
            return .success(try ProviderSignIn.startSession(
                db: db, accountId: accountId, created: false, config: context.config, now: now))
        }
        return try outcome.get().response
    }
}
