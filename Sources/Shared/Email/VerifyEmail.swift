/// `verify-email`: proof of an inbox (or of a password) before joining, own-email verification,
/// and password reset. The actions and their answers are in the README.
public enum VerifyEmail {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        switch try context.body.requiredString("action", maxBytes: 64) {
        case "send_code": return try sendCode(context)
        case "confirm": return try ProofConfirmation.confirm(context)
        case "verify_own_email": return try verifyOwnEmail(context)
        case "reset_request": return try PasswordReset.request(context)
        case "reset_confirm": return try PasswordReset.confirm(context)
        case "not_me": return try NoticeLink.use(context)
        default:
            throw .invalidRequest(
                "action must be send_code, confirm, verify_own_email, reset_request, reset_confirm or not_me.")
        }
    }

    /// Mails a new code for a join or own-email ticket, synchronously. Limits are counted first and
    /// given back if the mail server does not take the message; the code is stored only once it
    /// has, so a failure leaves everything (an earlier code included) as it was.
    static func sendCode(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let ticket = try context.body.requiredString("ticket", maxBytes: 128)
        let mailer = try context.mailer()
        let db = try context.database()
        let now = context.now
        let code = try Codes.generate()
        let secret = try context.rateLimitSecret()
        let codeKey = try context.codeKey()
        let (pending, email, limits, withheld, language) = try db.transaction {
            () throws(FrontdoorError) -> (PendingTicket, String, [RateLimits.Limit], MailWithheld?, MailLanguage) in
            let pending = try PendingTicket.find(ticket, db: db, now: now)
            let accountId: String
            switch pending {
            case .join(_, let id, _, _, _), .verify(_, let id): accountId = id
            case .change(_, let id, let email):
                // The new address, checked when the change was asked for; the account's own
                // address and what stops mail to it do not concern it.
                let limits = context.config.limits.mail(to: email, secret: secret)
                try RateLimits.hit(limits, db: db, now: now)
                let disabled = try !db.query(
                    "SELECT 1 FROM accounts WHERE id = ? AND disabled_at IS NOT NULL", [.text(id)]).isEmpty
                return (pending, email, limits, disabled ? MailWithheld.disabled : nil, try MailLanguage.of(id, db: db))
            // A reset's code goes out with reset_request; asking again makes a new ticket.
            case .reset: throw PendingTicket.invalid
            }
            let account = try db.query("SELECT email, email_key FROM accounts WHERE id = ?", [.text(accountId)]).first
            guard let email = account?.text(0) else { throw PendingTicket.invalid }
            // A code goes only to an address that keys to exactly the account's key (rows from
            // before look-alike characters were refused may hold another's key).
            guard EmailAddress.isMailable(email, key: account?.text(1)) else {
                throw FrontdoorError(
                    .invalidEmail, "This account's email address cannot receive codes.",
                    detail: "send_code: the stored address does not key to the account's key")
            }
            let limits = context.config.limits.mail(to: email, secret: secret)
            try RateLimits.hit(limits, db: db, now: now)
            return (pending, email, limits, try MailWithheld.reason(accountId, db: db), try MailLanguage.of(accountId, db: db))
        }
        do {
            // A provider stopped mail to this address, or the account is disabled: everything else
            // happens, and the answer is the same, so it tells nobody which addresses those are.
            if let withheld {
                syslog("code not mailed: \(withheld.rawValue)", warning: true)
            } else {
                try mailer.send(.code(code, to: email, purpose: purpose(of: pending), language: language), now: now)
            }
        } catch {
            try db.transaction { () throws(FrontdoorError) in try RateLimits.refund(limits, db: db, now: now) }
            throw error
        }
        try db.transaction { () throws(FrontdoorError) in
            try Codes.store(code, ticketHash: pending.hash, key: codeKey, db: db, now: now)
        }
        return CGIResponse(status: 200, body: .object([
            ("sent", true), ("codeExpiresAt", .string(Clock.rfc3339(now + Codes.lifetimeSeconds))),
        ]))
    }

    /// The phrase of the code's mail.
    static func purpose(of pending: PendingTicket) -> MailMessage.CodePurpose {
        if case .change = pending { return .confirmNewAddress }
        return .confirmAddress
    }

    /// With a session: a ticket to prove the account's own, typed email by code (`send_code`, then
    /// `confirm`), or `{"emailVerified": true}` when it is proven already.
    static func verifyOwnEmail(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let db = try context.database()
        let now = context.now
        let answer = try db.transaction { () throws(FrontdoorError) -> JSONValue in
            let accountId = try Sessions.accountId(
                in: db, token: context.request.bearerToken, now: now, policy: context.config.sessions)
            let rows = try db.query("SELECT email, email_verified FROM accounts WHERE id = ?", [.text(accountId)])
            guard let row = rows.first, let email = row.text(0) else {
                throw .invalidRequest("This account has no email address to verify.")
            }
            if row.int(1) == 1 { return .object([("emailVerified", true)]) }
            let ticket = try PendingTicket.create(
                purpose: "verify", accountId: accountId, db: db, now: now, lifetime: context.config.ticketLifetimeSeconds)
            return .object([
                ("emailVerified", false), ("ticket", .string(ticket.ticket)), ("email", .string(email)),
                ("methods", .array(["email_code"])),
            ])
        }
        return CGIResponse(status: 200, body: answer)
    }

    /// A line in syslog for work done after the answer, when stderr is gone. Never an address or a code.
    /// Through `SysLog`, so the tests' syslog file (and its scan for secrets) has these lines too.
    static func syslog(_ message: String, warning: Bool = false) {
        let line = "frontdoor endpoint=verify-email \(message)"
        if warning { SysLog.warning(line) } else { SysLog.info(line) }
    }
}
