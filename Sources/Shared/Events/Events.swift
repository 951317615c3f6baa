import Synchronization

/// Account events (rule 12): an event row is written inside the transaction that makes the change
/// it reports, so a killed process can neither lose the event of a committed change nor leave one
/// for a change that rolled back. `EventDelivery` sends them after the answer.
public enum Events {
    /// What the caller's transaction is doing to the account, said where it does it.
    public enum Change: Sendable, Equatable {
        /// The account was just made, with its first identity or password: `account.created`.
        case created
        /// `provider`'s identity was just joined to an existing account: `account.linked`.
        case linked(provider: String)
        /// The account's email is about to be marked verified: `account.email_verified`, only when
        /// it was not verified yet (call before the update).
        case verifyingEmail
        /// A reset is about to set the password and mark the email verified (call before the
        /// update): `account.linked` with `password` when the account had no password (a
        /// provider-only account), then `account.email_verified` when the email was not verified.
        case settingPassword
        /// The account is about to be deleted (call before the delete, while its identities are
        /// there to read): `account.deleted`. The row references nothing, so it outlives the account.
        case deleting
        /// `provider`'s way in was just removed (call after the removal, so `providers` says what
        /// is left): `account.unlinked`.
        case unlinked(provider: String)
        /// The account's password or address was just changed (`changed`: `password` or `email`):
        /// `account.updated`, never with the value.
        case updated(changed: String)
    }

    private static let recorded = Atomic<Bool>(false)

    /// Whether this process wrote an event (its own delivery then runs after its answer).
    public static var recordedInThisProcess: Bool { recorded.load(ordering: .relaxed) }

    /// Writes the events `change` makes; call inside the change's own transaction. Does nothing
    /// when `events` is not configured.
    public static func record(
        _ change: Change, accountId: String, in db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) {
        guard config.events != nil else { return }
        var providers = try linkedProviders(accountId, db)
        // Written one by one (no array of events: its metadata would cost every sign-in).
        switch change {
        case .created:
            try write(.created, accountId, now, providers, db)
        case .linked(let provider):
            try write(.linked, accountId, now, providers, db, provider: provider)
        case .verifyingEmail:
            guard try !emailVerified(accountId, db) else { return }
            try write(.emailVerified, accountId, now, providers, db)
        case .settingPassword:
            let hadPassword = providers.contains("password")
            if !hadPassword {
                providers = (providers + ["password"]).sorted()
                try write(.linked, accountId, now, providers, db, provider: "password")
            }
            let verified = try emailVerified(accountId, db)
            if !verified { try write(.emailVerified, accountId, now, providers, db) }
            guard !hadPassword || !verified else { return }
        case .deleting:
            try write(.deleted, accountId, now, providers, db)
        case .unlinked(let provider):
            try write(.unlinked, accountId, now, providers, db, provider: provider)
        case .updated(let changed):
            try write(.updated, accountId, now, providers, db, changed: [changed])
        }
        recorded.store(true, ordering: .relaxed)
        // The writer delivers these itself after its answer; other requests are told to look only
        // once it cannot be alive any more (its process ceiling), in case it was killed first.
        EventHint.lower(to: now + config.processLifetimeSeconds, databasePath: config.databasePath)
    }

    private static func write(
        _ kind: Event.Kind, _ accountId: String, _ now: UnixTime, _ providers: [String], _ db: Database,
        provider: String? = nil, changed: [String]? = nil
    ) throws(FrontdoorError) {
        try EventOutbox.insert(
            Event(id: try Event.newId(), kind: kind, accountId: accountId, occurredAt: now, providers: providers,
                  provider: provider, changed: changed),
            db)
    }

    /// The account's email, whether it has a password, and whether it is disabled: one statement
    /// for `SessionBody.load` and `linkedProviders`, so a sign-in prepares it once for both.
    static let accountRowSQL = "SELECT email, password_hash IS NOT NULL, disabled_at IS NOT NULL FROM accounts WHERE id = ?"

    /// The account's sign-in methods, as the session body lists them. The same SQL text as
    /// `SessionBody.load`, so a sign-in prepares these statements once for both.
    static func linkedProviders(_ accountId: String, _ db: Database) throws(FrontdoorError) -> [String] {
        var providers = try PasskeyStore.providers(accountId, db)
        let hasPassword = try db.query(accountRowSQL, [.text(accountId)]).first?.int(1) == 1
        if hasPassword { providers.append("password") }
        // A method once, however many identities of it; no Set: a process's first Set<String>
        // costs ~100 K instructions of run-time type set-up.
        var unique: [String] = []
        for provider in providers.sorted() where unique.last != provider { unique.append(provider) }
        return unique
    }

    private static func emailVerified(_ accountId: String, _ db: Database) throws(FrontdoorError) -> Bool {
        try db.query("SELECT email_verified FROM accounts WHERE id = ?", [.text(accountId)]).first?.int(0) == 1
    }
}
