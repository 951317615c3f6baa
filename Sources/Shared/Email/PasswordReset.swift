#if canImport(Glibc)
import Glibc
#endif

/// "Forgot password": `reset_request` answers at once and alike whether or not an account has the
/// address (a ticket either way; the mail goes after the answer, and only to an account's own
/// address), with every limit keyed on the normalised address typed. `reset_confirm` with the
/// ticket, the mailed code and a new password sets it, marks the email proven, ends every
/// session and takes back what they added or began (`Takeback`), and answers a new one.
enum PasswordReset {
    static func request(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        // EmailValidation refuses a NUL as it refuses every control: 422 invalid_email, as before.
        let typed = try context.body.requiredString("email", maxBytes: 1024, mayHoldNUL: true)
        // The syntax only: a suggestion here would say nothing useful and hold the person up.
        let email = try EmailValidation.checked(typed, acceptAsTyped: true)
        let mailer = try context.mailer()
        let db = try context.database()
        let now = context.now
        let code = try Codes.generate()
        let secret = try context.rateLimitSecret()
        let codeKey = try context.codeKey()
        let limits = context.config.limits.resetMail(to: email, secret: secret)
            + context.config.limits.resetRequest(client: context.client, network: context.network, secret: secret)
        let (ticket, recipient, language) = try db.transaction {
            () throws(FrontdoorError) -> (String, String?, MailLanguage) in
            try RateLimits.hit(limits, db: db, now: now)
            let key = EmailAddress.matchKey(email)
            let account = try db.query("SELECT id, email, language FROM accounts WHERE email_key = ?", [.text(key)]).first
            let language = account?.text(2).flatMap(MailLanguage.init(rawValue:)) ?? .en
            let made = try PendingTicket.create(
                purpose: "reset", accountId: account?.text(0), addressKey: RateLimits.addressKey(email, secret: secret),
                db: db, now: now, lifetime: context.config.ticketLifetimeSeconds)
            try Codes.store(code, ticketHash: made.hash, key: codeKey, db: db, now: now)
            // Only to the account's own address, and only when it keys to exactly this key.
            guard let recipient = account?.text(1), EmailAddress.isMailable(recipient, key: key) else {
                // Nobody has the address: a code nothing matches, so confirming fails as a wrong code does.
                try Codes.spoil(ticketHash: made.hash, db: db)
                return (made.ticket, nil, language)
            }
            // A provider stopped mail to it, or the account is disabled: no code goes, and the
            // answer and the wait stay as for any address.
            if let accountId = account?.text(0), let withheld = try MailWithheld.reason(accountId, db: db) {
                try Codes.spoil(ticketHash: made.hash, db: db)
                VerifyEmail.syslog("reset mail not sent: \(withheld.rawValue)", warning: true)
                return (made.ticket, nil, language)
            }
            return (made.ticket, recipient, language)
        }
        // Through nginx a mail sent right after the answer competes for the CPU with the answer's
        // last steps, which made a known address measurably slower: both kinds of address wait
        // the same random while after the answer, and only then does the known one mail.
        let pause = try mailDelayMillis(context.config.mail?.resetDelaySeconds ?? 0)
        context.runAfterAnswer {
            if pause > 0 { usleep(pause * 1000) }
            guard let recipient else { return }
            do throws(FrontdoorError) {
                try mailer.send(.code(code, to: recipient, purpose: .newPassword, language: language), now: now)
                VerifyEmail.syslog("reset mail sent")
            } catch {
                VerifyEmail.syslog("reset mail not sent: \(error.detail ?? error.code.rawValue)", warning: true)
            }
        }
        return CGIResponse(status: 200, body: .object([
            ("ticket", .string(ticket)), ("codeExpiresAt", .string(Clock.rfc3339(now + Codes.lifetimeSeconds))),
        ]))
    }

    /// Uniform between half and one and a half times `seconds`, in milliseconds; 0 for none.
    static func mailDelayMillis(_ seconds: Double) throws(FrontdoorError) -> UInt32 {
        let mean = UInt32((seconds * 1000).rounded())
        guard mean > 0 else { return 0 }
        return mean / 2 + (try SecureRandom.uniform(below: mean + 1))
    }

    static func confirm(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let body = context.body
        let ticket = try body.requiredString("ticket", maxBytes: 128)
        let code = try body.requiredString("code", maxBytes: 64)
        let password = try EmailSignIn.password(body)
        let deviceName = try PersonText.deviceName(body)
        let reauth = try Reauthentication.bearer(context)
        let db = try context.database()
        let now = context.now
        guard case .reset(_, let accountId) = try PendingTicket.find(ticket, db: db, now: now) else {
            throw PendingTicket.invalid
        }
        // Rule 19 before the code is judged or the ticket spent: a refused password costs no try.
        // Its words are the account's address; an unknown address's ticket has none, and its
        // answers tell no more than `register`'s `email_taken` does (docs/security.md).
        var email: String? = nil
        if let accountId {
            email = try db.query("SELECT email FROM accounts WHERE id = ?", [.text(accountId)]).first?.text(0)
        }
        try PasswordPolicy.check(password, context: .init(email: email), config: context.config)
        // Hashed before the transaction so no write lock waits on it.
        let hash = try PasswordHasher.hash(password, cost: context.config.passwordCost)
        let secret = try context.rateLimitSecret()
        let codeKey = try context.codeKey()
        let outcome = try db.transaction { () throws(FrontdoorError) -> Result<SessionBody, FrontdoorError> in
            let pending = try PendingTicket.find(ticket, db: db, now: now)
            guard case .reset(let ticketHash, let accountId) = pending else { throw PendingTicket.invalid }
            // Before the code counts a try: a reset with another account's session changes nothing.
            if let reauth { try reauth.requireSame(accountId) }
            let failures = try PendingTicket.codeFailureLimit(pending, db: db, config: context.config, secret: secret)
            if case .refused(let error) = try Codes.check(
                code, ticketHash: ticketHash, key: codeKey, failures: failures, db: db, now: now)
            {
                return .failure(error)
            }
            guard let accountId, try PendingTicket.spend(ticketHash, db: db) else { throw PendingTicket.invalid }
            // First, so the events name the providers the account keeps.
            try InboxProof.dropUnprovenIdentities(of: accountId, db: db, now: now)
            try Events.record(.settingPassword, accountId: accountId, in: db, config: context.config, now: now)
            try db.run(
                "UPDATE accounts SET password_hash = ?, email_verified = 1 WHERE id = ?", [.text(hash), .text(accountId)])
            try SecurityLedger.passwordChanged(accountId, db: db, now: now)
            // Every session ends; a bearer's is proven again below instead (its holder has the code).
            try SecurityLedger.endSessions(
                "DELETE FROM sessions WHERE account_id = ? AND token_hash <> ? RETURNING session_id",
                [.text(accountId), .blob(reauth?.tokenHash ?? [])], accountId: accountId, db: db, now: now)
            try Takeback.run(accountId, sessionsMadeBy: now, db: db, config: context.config, now: now)
            return .success(try ProviderSignIn.startSession(
                db: db, accountId: accountId, created: false, config: context.config, now: now, deviceName: deviceName,
                reauth: reauth))
        }
        return try outcome.get().response
    }
}
