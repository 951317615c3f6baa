/// `account` `change_email` (rule 18): the new address is checked as at registration and must be
/// free; a code goes to it (`verify-email`'s codes, limits and time-outs); `verify-email`
/// `confirm` with the ticket and the code makes it the account's address, proven, in one
/// transaction that checks again that no other account has it (`apply`). Sessions stay; the old
/// address is told after the answer.
enum EmailChange {
    static func start(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        // As at registration: EmailValidation refuses a NUL as every control, 422 invalid_email.
        let typed = try context.body.requiredString("newEmail", maxBytes: 1024, mayHoldNUL: true)
        let acceptAsTyped = try context.body.optionalBool("acceptAsTyped") ?? false
        let mailer = try context.mailer()
        let db = try context.database()
        let now = context.now
        let code = try Codes.generate()
        let secret = try context.rateLimitSecret()
        typealias Asked = (acting: ActingSession, email: String, limits: [RateLimits.Limit], language: MailLanguage)
        let asked = try db.transaction { () throws(FrontdoorError) -> Asked in
            let acting = try ActingSession.read(context, db, recent: true)
            let email = try EmailValidation.checked(typed, acceptAsTyped: acceptAsTyped)
            try refuseIfTaken(email, by: acting.accountId, db: db)
            let limits = context.config.limits.mail(to: email, secret: secret)
            try RateLimits.hit(limits, db: db, now: now)
            return (acting, email, limits, try MailLanguage.of(acting.accountId, db: db))
        }
        // As `send_code`: the code is stored only once the mail server has taken it, and the
        // limits are given back when it does not.
        do {
            try mailer.send(
                .code(code, to: asked.email, purpose: .confirmNewAddress, language: asked.language), now: now)
        } catch {
            try db.transaction { () throws(FrontdoorError) in try RateLimits.refund(asked.limits, db: db, now: now) }
            throw error
        }
        let (ticket, notice) = try db.transaction { () throws(FrontdoorError) -> (String, SettingsNotice?) in
            try asked.acting.again(context, db)
            // One address change waits at a time: a newer one replaces the older, code and all.
            try cancelPending(asked.acting.accountId, db: db)
            let made = try PendingTicket.create(
                purpose: "change", accountId: asked.acting.accountId,
                addressKey: RateLimits.addressKey(asked.email, secret: secret), email: asked.email, db: db, now: now,
                lifetime: context.config.ticketLifetimeSeconds)
            try Codes.store(code, ticketHash: made.hash, key: try context.codeKey(), db: db, now: now)
            // The old address is told now, not only once the move is done (T5-6).
            let notice = try SettingsNotice.read(
                .addressChangeBegun, accountId: asked.acting.accountId, config: context.config, db: db, now: now)
            // The crash suite kills a change here: mailed, its ticket and code written, nothing committed.
            TestHooks.pause("email-change-started")
            return (made.ticket, notice)
        }
        if let notice { context.runAfterAnswer { notice.send(context) } }
        return CGIResponse(status: 200, body: .object([
            ("ticket", .string(ticket)), ("email", .string(asked.email)),
            ("codeExpiresAt", .string(Clock.rfc3339(now + Codes.lifetimeSeconds))),
        ]))
    }

    /// Every address change of the account still waiting for its code goes, code and all: a newer
    /// change replaces it, and a takeback or a password change voids it (a stolen session may have
    /// begun it, and its `confirm` needs no session). In the caller's transaction.
    static func cancelPending(_ accountId: String, db: Database) throws(FrontdoorError) {
        let pending = try db.query(
            "SELECT ticket_hash FROM email_tickets WHERE account_id = ? AND purpose = 'change'", [.text(accountId)])
        for row in pending {
            guard let hash = row.blob(0) else { continue }
            try Codes.remove(ticketHash: hash, db: db)
            try db.run("DELETE FROM email_tickets WHERE ticket_hash = ?", [.blob(hash)])
        }
    }

    /// Whoever reads the old mailbox keeps nothing once the address moves: every reset,
    /// verification and join waiting on a code mailed there goes, code and all (the fourth
    /// review's T5-5). The change being confirmed is the caller's to spend.
    static func forgetOldAddress(_ accountId: String, db: Database) throws(FrontdoorError) {
        let mailed = try db.query(
            "SELECT ticket_hash FROM email_tickets WHERE account_id = ? AND purpose <> 'change'", [.text(accountId)])
            + db.query("SELECT ticket_hash FROM tickets WHERE account_id = ?", [.text(accountId)])
        for hash in mailed.compactMap({ $0.blob(0) }) { try Codes.remove(ticketHash: hash, db: db) }
        try db.run("DELETE FROM email_tickets WHERE account_id = ? AND purpose <> 'change'", [.text(accountId)])
        try db.run("DELETE FROM tickets WHERE account_id = ?", [.text(accountId)])
    }

    /// 409 `email_taken` when another account has the address (by the match key, rule 3).
    static func refuseIfTaken(_ email: String, by accountId: String, db: Database) throws(FrontdoorError) {
        let others = try db.query(
            "SELECT 1 FROM accounts WHERE email_key = ? AND id <> ?", [.text(EmailAddress.matchKey(email)), .text(accountId)])
        guard others.isEmpty else {
            throw FrontdoorError(.emailTaken, "Another account has this email address already.")
        }
    }

    /// At `confirm`, inside its transaction, once the code is right: the address becomes the
    /// account's, proven, unless another account took it meanwhile (409 `email_taken`, nothing
    /// changes; on PostgreSQL a registration committing the key after this check makes the write a
    /// serialization failure, since the check read the key, and the attempt run again sees it).
    /// The notice for the old address is read first.
    static func apply(
        _ email: String, to accountId: String, db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) -> SettingsNotice? {
        try refuseIfTaken(email, by: accountId, db: db)
        // Checked free, not yet written: a registration of the address races here.
        TestHooks.pause("email-change-checked")
        let notice = try SettingsNotice.read(.addressChanged, accountId: accountId, config: config, db: db, now: now)
        try Events.record(.verifyingEmail, accountId: accountId, in: db, config: config, now: now)
        try db.run(
            "UPDATE accounts SET email = ?, email_key = ?, email_verified = 1 WHERE id = ?",
            [.text(email), .text(EmailAddress.matchKey(email)), .text(accountId)])
        try SecurityLedger.addressChanged(accountId, db: db, now: now)
        try forgetOldAddress(accountId, db: db)
        // The account's own recent session asked for the address and its inbox read the code, as
        // for `verify_own_email`: every identity now stands beside a proven address. A relay
        // address that Apple stopped forwarding is no longer the account's, so that stop goes.
        try db.run("UPDATE identities SET email_proven = 1, mail_off_at = NULL WHERE account_id = ?", [.text(accountId)])
        try Events.record(.updated(changed: "email"), accountId: accountId, in: db, config: config, now: now)
        // The crash suite kills a confirm here, and the race with a registration holds it here.
        TestHooks.pause("email-changed")
        return notice
    }
}
