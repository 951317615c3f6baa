/// `signin-email`: `register` makes a password account (its email unproven until a code or a
/// reset proves it); `login` signs into one. Unknown addresses and wrong passwords answer alike.
public enum EmailSignIn {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        switch try context.body.requiredString("action", maxBytes: 64) {
        case "register": return try register(context)
        case "login": return try login(context)
        default: throw .invalidRequest("action must be \"register\" or \"login\".")
        }
    }

    static var invalidCredentials: FrontdoorError {
        FrontdoorError(.invalidCredentials, "That email and password do not match an account.")
    }

    /// A password member (`password`, or `account`'s `currentPassword` and `newPassword`):
    /// missing is a malformed request, present but empty a bad password.
    static func password(_ body: JSONValue, _ name: String = "password") throws(FrontdoorError) -> String {
        guard let password = try body.optionalString(name, maxBytes: 4096, mayHoldNUL: true) else {
            throw .invalidRequest("\(name) is required.")
        }
        return password
    }

    static func register(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let body = context.body
        // EmailValidation refuses a NUL as it refuses every control: 422 invalid_email, as before.
        let typed = try body.requiredString("email", maxBytes: 1024, mayHoldNUL: true)
        let password = try password(body)
        let name = try displayName(body)
        let deviceName = try PersonText.deviceName(body)
        let language = try MailLanguage.fromBody(body)
        let email = try EmailValidation.checked(typed, acceptAsTyped: try body.optionalBool("acceptAsTyped") ?? false)
        // Rule 19 on the box before anything is counted or hashed: a refused password costs no try.
        try PasswordPolicy.checkOnBox(password, context: .init(email: email), config: context.config)
        // A registration makes an account: never on a proof of another session's (rule 18).
        if try Reauthentication.bearer(context) != nil { throw Reauthentication.mismatch }
        let db = try context.database()
        let key = EmailAddress.matchKey(email)
        let taken = FrontdoorError(.emailTaken, "An account with this email already exists. Please sign in instead.")
        let secret = try context.rateLimitSecret()
        let known = try db.transaction { () throws(FrontdoorError) -> Bool in
            try RateLimits.hit(
                context.config.limits.registration(client: context.client, network: context.network, secret: secret),
                db: db, now: context.now)
            return try !db.query("SELECT 1 FROM accounts WHERE email_key = ?", [.text(key)]).isEmpty
        }
        guard !known else { throw taken }
        // The range service once the registration is counted and the address free (T5-9).
        try PasswordPolicy.checkRange(password, config: context.config)
        // Hashing takes tens of milliseconds: outside the transaction, so no write lock waits on it.
        let hash = try PasswordHasher.hash(password, cost: context.config.passwordCost)
        // The address was free a moment ago: the race with an address change's confirm.
        TestHooks.pause("registration-checked")
        let session = try db.transaction { () throws(FrontdoorError) -> SessionBody? in
            let accountId = try ProviderSignIn.newAccountId()
            let inserted = try db.run(
                """
                INSERT INTO accounts (id, email, email_key, email_verified, name, password_hash, created_at, language)
                VALUES (?, ?, ?, 0, ?, ?, ?, ?) ON CONFLICT (email_key) DO NOTHING
                """,
                [.text(accountId), .text(email), .text(key), name.map(SQLValue.text) ?? .null, .text(hash),
                 .integer(context.now), language.map { .text($0.rawValue) } ?? .null])
            guard inserted == 1 else { return nil }
            try Events.record(.created, accountId: accountId, in: db, config: context.config, now: context.now)
            return try ProviderSignIn.startSession(
                db: db, accountId: accountId, created: true, config: context.config, now: context.now,
                deviceName: deviceName)
        }
        guard let session else { throw taken }
        return CGIResponse(status: 201, body: session.json)
    }

    static func login(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let typed = try context.body.requiredString("email", maxBytes: 1024)
        let password = try password(context.body)
        let deviceName = try PersonText.deviceName(context.body)
        let reauth = try Reauthentication.bearer(context)
        let db = try context.database()
        let cost = context.config.passwordCost
        // Every attempt counts until it succeeds, so parallel guesses cannot all slip under the limit.
        let limits = context.config.limits.login(email: typed, client: context.client, secret: try context.rateLimitSecret())
        let account = try db.transaction { () throws(FrontdoorError) -> (id: String, hash: String)? in
            try RateLimits.hit(limits, db: db, now: context.now)
            let rows = try db.query(
                "SELECT id, password_hash FROM accounts WHERE email_key = ?", [.text(EmailAddress.matchKey(typed))])
            guard let row = rows.first, let id = row.text(0), let hash = row.text(1) else { return nil }
            return (id, hash)
        }
        // No account, or one without a password: the same work against a hash nothing matches.
        let verdict = try PasswordHasher.check(password, against: account?.hash ?? PasswordHasher.dummyHash(cost: cost))
        guard verdict != .mismatch, let account else { throw invalidCredentials }
        // A new cost, or a hash of the password as typed from before passwords were normalised.
        let rehashed = PasswordHasher.needsRehash(account.hash, cost: cost) || verdict == .matchAsTyped
            ? try PasswordHasher.hash(password, cost: cost) : nil
        TestHooks.pause("login-verified")
        let session = try db.transaction { () throws(FrontdoorError) -> SessionBody in
            // Argon2id ran outside any transaction: a reset, or a join by code that cleared a
            // typed password, may have committed meanwhile. The session is issued only for the
            // credential just verified, so whatever ended the sessions wins.
            guard try currentHash(of: account.id, db: db) == account.hash else { throw invalidCredentials }
            if let rehashed {
                // Only over the hash just verified: a reset that landed meanwhile wins.
                try db.run(
                    "UPDATE accounts SET password_hash = ? WHERE id = ? AND password_hash = ?",
                    [.text(rehashed), .text(account.id), .text(account.hash)])
            }
            try succeeded(limits, db: db, now: context.now)
            // Judged only now, after the password: before it, a mismatch would say which
            // addresses have an account.
            return try ProviderSignIn.startSession(
                db: db, accountId: account.id, created: false, config: context.config, now: context.now,
                deviceName: deviceName, reauth: reauth)
        }
        return session.response
    }

    /// The account's password hash now; nil when it has none (or is gone).
    static func currentHash(of accountId: String, db: Database) throws(FrontdoorError) -> String? {
        try db.query("SELECT password_hash FROM accounts WHERE id = ?", [.text(accountId)]).first?.text(0)
    }

    /// A right password: the email's failures are forgotten and this attempt is not one.
    static func succeeded(_ limits: [RateLimits.Limit], db: Database, now: UnixTime) throws(FrontdoorError) {
        for limit in limits.prefix(1) { try RateLimits.clear(limit, db: db) }
        try RateLimits.refund(Array(limits.dropFirst()), db: db, now: now)
    }

    static func displayName(_ body: JSONValue) throws(FrontdoorError) -> String? {
        try PersonText.optional(body, "name", maxBytes: 256)
    }
}
