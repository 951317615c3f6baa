/// Finds or makes the account for a verified provider identity, by the rules of DESIGN.md
/// (2: by subject, never by email; 3: when an email may join or create), in one transaction.
public enum ProviderSignIn {
    enum Decision {
        case session(SessionBody)
        case proofRequired(ticket: String, email: String, methods: [String])
    }

    public static func signIn(
        _ identity: ProviderIdentity, db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) -> SessionBody {
        let decision = try db.transaction { () throws(FrontdoorError) -> Decision in
            try decide(identity, db: db, config: config, now: now)
        }
        switch decision {
        case .session(let body):
            return body
        case .proofRequired(let ticket, let email, let methods):
            throw FrontdoorError(
                .proofRequired,
                "An account with this email already exists. Please prove it is yours to join them.",
                extra: [
                    ("ticket", .string(ticket)), ("email", .string(email)),
                    ("methods", .array(methods.map(JSONValue.string))),
                ])
        }
    }

    private static func decide(
        _ identity: ProviderIdentity, db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) -> Decision {
        let known = try db.query(
            "SELECT account_id FROM identities WHERE provider = ? AND subject = ?",
            [.text(identity.provider.rawValue), .text(identity.subject)])
        if let accountId = known.first?.text(0) {
            return .session(try startSession(db: db, accountId: accountId, created: false, config: config, now: now))
        }
        guard let email = identity.email?.trimmingWhitespace(), !email.isEmpty else {
            return .session(try create(identity, email: nil, db: db, config: config, now: now))
        }
        guard identity.emailVerified else {
            throw FrontdoorError(
                .emailNotVerified, "Your email address is not verified with your sign-in provider yet.")
        }
        let existing = try db.query(
            "SELECT id, email, email_verified, password_hash IS NOT NULL FROM accounts WHERE email_key = ?",
            [.text(EmailAddress.matchKey(email))])
        guard let account = existing.first, let accountId = account.text(0) else {
            return .session(try create(identity, email: email, db: db, config: config, now: now))
        }
        let accountVerified = account.int(2) == 1
        if accountVerified && identity.authoritativeForEmail {
            try link(identity, to: accountId, db: db, now: now)
            try Events.record(.linked(provider: identity.provider.rawValue), accountId: accountId, in: db, config: config, now: now)
            return .session(try startSession(db: db, accountId: accountId, created: false, config: config, now: now))
        }
        // A typed, never-proven email: its password or a code to the inbox. An address the
        // provider does not speak for: only a code to the inbox proves it.
        var methods: [String] = []
        if !accountVerified && identity.authoritativeForEmail && account.int(3) == 1 { methods.append("password") }
        methods.append("email_code")
        let ticket = try Tickets.create(
            in: db, accountId: accountId, identity: identity, methods: methods, now: now,
            lifetime: config.ticketLifetimeSeconds)
        return .proofRequired(ticket: ticket, email: account.text(1) ?? email, methods: methods)
    }

    private static func create(
        _ identity: ProviderIdentity, email: String?, db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) -> SessionBody {
        let accountId = try newAccountId()
        try db.run(
            "INSERT INTO accounts (id, email, email_key, email_verified, name, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(accountId), email.map(SQLValue.text) ?? .null,
                email.map { .text(EmailAddress.matchKey($0)) } ?? .null, .integer(email == nil ? 0 : 1),
                identity.name.map(SQLValue.text) ?? .null, .integer(now),
            ])
        try link(identity, to: accountId, db: db, now: now)
        try Events.record(.created, accountId: accountId, in: db, config: config, now: now)
        return try startSession(db: db, accountId: accountId, created: true, config: config, now: now)
    }

    static func link(_ identity: ProviderIdentity, to accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        try db.run(
            "INSERT INTO identities (provider, subject, account_id, created_at) VALUES (?, ?, ?, ?)",
            [.text(identity.provider.rawValue), .text(identity.subject), .text(accountId), .integer(now)])
    }

    static func startSession(
        db: Database, accountId: String, created: Bool, config: Config, now: UnixTime
    ) throws(FrontdoorError) -> SessionBody {
        let session = try Sessions.create(
            in: db, accountId: accountId, now: now, lifetime: config.sessionLifetimeSeconds)
        return try SessionBody.load(in: db, accountId: accountId, session: session, created: created)
    }

    static func newAccountId() throws(FrontdoorError) -> String {
        Base64URL.encode(try SecureRandom.bytes(16))
    }
}
