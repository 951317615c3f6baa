/// Finds or makes the account for a verified provider identity, by the rules of DESIGN.md
/// (2: by subject, never by email; 3: when an email may join or create), in one transaction.
public enum ProviderSignIn {
    enum Decision {
        case session(SessionBody)
        case proofRequired(ticket: String, email: String, methods: [String])
    }

    /// `alongside` runs in the same transaction once the decision is made (a session, or a
    /// `proof_required` ticket), so what the caller counts commits with it or not at all. With
    /// `reauth` (the request's bearer), only the bearer's own account may answer, by proving that
    /// session again: an identity of another account, or of none, is `account_mismatch`.
    public static func signIn(
        _ identity: ProviderIdentity, db: Database, config: Config, now: UnixTime, deviceName: String? = nil,
        language: MailLanguage? = nil, reauth: Reauthentication? = nil, alongside: () throws(FrontdoorError) -> Void = {}
    ) throws(FrontdoorError) -> SessionBody {
        // The identity is verified, nothing is written yet: the other race with a disable.
        TestHooks.pause("identity-verified")
        let decision = try db.transaction { () throws(FrontdoorError) -> Decision in
            let decision = try decide(
                identity, db: db, config: config, now: now, deviceName: deviceName, language: language, reauth: reauth)
            try alongside()
            return decision
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
        _ identity: ProviderIdentity, db: Database, config: Config, now: UnixTime, deviceName: String?,
        language: MailLanguage?, reauth: Reauthentication?
    ) throws(FrontdoorError) -> Decision {
        let known = try db.query(
            "SELECT account_id, blocked_at FROM identities WHERE provider = ? AND subject = ?",
            [.text(identity.provider.rawValue), .text(identity.subject)])
        // Google's Cross-Account Protection said the Google account was disabled (google-risc).
        if known.first?.int(1) != nil { throw .invalidToken("identity blocked by the provider's security event") }
        if let accountId = known.first?.text(0) {
            return .session(try startSession(
                db: db, accountId: accountId, created: false, config: config, now: now, deviceName: deviceName,
                reauth: reauth))
        }
        // Everything below makes an account or joins one by its address: never on a proof of
        // another session's account (settled: adding a way in is `link`).
        if reauth != nil { throw Reauthentication.mismatch }
        // An address that cannot be keyed safely (not an address by our rules, or one whose
        // characters fold into another's) is not used at all: the identity signs in without it.
        guard let email = identity.usableEmail else {
            return .session(try create(
                identity, email: nil, db: db, config: config, now: now, deviceName: deviceName, language: language))
        }
        guard identity.emailVerified else {
            throw FrontdoorError(
                .emailNotVerified, "Your email address is not verified with your sign-in provider yet.")
        }
        let existing = try db.query(
            "SELECT id, email, email_verified, password_hash IS NOT NULL FROM accounts WHERE email_key = ?",
            [.text(EmailAddress.matchKey(email))])
        guard let account = existing.first, let accountId = account.text(0) else {
            return .session(try create(
                identity, email: email, db: db, config: config, now: now, deviceName: deviceName, language: language))
        }
        // One identity per provider. Another subject of the same provider is another person there
        // (rule 2), whose address was recycled or re-created: the address alone joins nothing.
        // Only an identity that never proved the address gives way, to a code (`byCode` drops it).
        let sameProvider = try db.query(
            "SELECT email_proven FROM identities WHERE account_id = ? AND provider = ?",
            [.text(accountId), .text(identity.provider.rawValue)])
        if sameProvider.contains(where: { $0.int(0) != 0 }) {
            throw FrontdoorError(
                .emailTaken,
                "This email belongs to an account that signs in with another \(identity.provider.displayName) account. "
                    + "Please sign in with that one, or with your email and password.")
        }
        let accountVerified = account.int(2) == 1
        if accountVerified && identity.authoritativeForEmail && sameProvider.isEmpty {
            try link(identity, to: accountId, proven: true, db: db, now: now)
            try Events.record(.linked(provider: identity.provider.rawValue), accountId: accountId, in: db, config: config, now: now)
            return .session(try startSession(
                db: db, accountId: accountId, created: false, config: config, now: now, deviceName: deviceName))
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

    /// A new account. Its email counts as verified only when the provider speaks for the address
    /// (Apple; Google at gmail.com or with `hd`): a stale Google address must not let a later
    /// sign-in join without proof.
    private static func create(
        _ identity: ProviderIdentity, email: String?, db: Database, config: Config, now: UnixTime, deviceName: String?,
        language: MailLanguage?
    ) throws(FrontdoorError) -> SessionBody {
        let accountId = try newAccountId()
        let verified = email != nil && identity.authoritativeForEmail
        try db.run(
            "INSERT INTO accounts (id, email, email_key, email_verified, name, created_at, language) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(accountId), email.map(SQLValue.text) ?? .null,
                email.map { .text(EmailAddress.matchKey($0)) } ?? .null, .integer(verified ? 1 : 0),
                identity.name.map(SQLValue.text) ?? .null, .integer(now), language.map { .text($0.rawValue) } ?? .null,
            ])
        try link(identity, to: accountId, proven: email == nil || verified, db: db, now: now)
        try Events.record(.created, accountId: accountId, in: db, config: config, now: now)
        return try startSession(db: db, accountId: accountId, created: true, config: config, now: now, deviceName: deviceName)
    }

    /// `proven`: the provider spoke for the account's address (or there is none), or the inbox
    /// was proven by code; an unproven identity goes when the inbox is proven by code.
    static func link(
        _ identity: ProviderIdentity, to accountId: String, proven: Bool, db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try db.run(
            "INSERT INTO identities (provider, subject, account_id, created_at, email_proven) VALUES (?, ?, ?, ?, ?)",
            [
                .text(identity.provider.rawValue), .text(identity.subject), .text(accountId), .integer(now),
                .integer(proven ? 1 : 0),
            ])
    }

    /// Every sign-in's session: a new one, or with `reauth` the bearer's own, proven again in place
    /// (no new session or device row; `deviceName` then changes nothing), `account_mismatch` unless
    /// it is `accountId`'s.
    static func startSession(
        db: Database, accountId: String, created: Bool, config: Config, now: UnixTime, deviceName: String? = nil,
        reauth: Reauthentication? = nil
    ) throws(FrontdoorError) -> SessionBody {
        if let reauth {
            let session = try reauth.prove(in: db, accountId: accountId, now: now)
            var body = try SessionBody.load(in: db, accountId: accountId, session: session, created: false)
            body.reauthenticated = true
            return body
        }
        let session = try Sessions.create(
            in: db, accountId: accountId, now: now, policy: config.sessions, deviceName: deviceName)
        return try SessionBody.load(in: db, accountId: accountId, session: session, created: created)
    }

    static func newAccountId() throws(FrontdoorError) -> String {
        Base64URL.encode(try SecureRandom.bytes(16))
    }
}
