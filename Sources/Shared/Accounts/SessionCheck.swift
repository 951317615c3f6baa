/// `session`: who a session belongs to. nginx's `auth_request` asks before every request to a
/// protected route of the app, and the phone asks when the app starts ("am I still signed in").
/// A plain read, unless the session is due for renewal (rule 11): then one guarded write, which
/// concurrent checks make exactly once and which never brings back a session that a sign-out
/// deleted meanwhile (an UPDATE of a deleted row changes nothing; nothing here inserts).
public enum SessionCheck {
    /// A request without a well-formed bearer token is refused before the config or the store is
    /// touched: a refused check costs what a refused method does.
    public static func precheck(_ request: CGIRequest) throws(FrontdoorError) {
        guard let token = request.bearerToken, Sessions.isWellFormed(token) else { throw Sessions.unauthorized }
    }

    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        guard let token = context.request.bearerToken, Sessions.isWellFormed(token) else {
            throw Sessions.unauthorized
        }
        TestHooks.pause("session-check")
        let whole = !context.request.headersOnly
        // The session file, without the store's schema: the session, and for the phone the
        // account's view (`AccountView`).
        let db = try context.sessionCheckDatabase()
        let hash = Sessions.hash(token)
        let now = context.now
        let judged = try Sessions.judged(db, tokenHash: hash, now: now, policy: context.config.sessions, whole: whole)
        var session = judged.session
        switch judged.verdict {
        case .ended:
            throw Sessions.unauthorized
        case .live:
            break
        case .renew(let expiresAt):
            TestHooks.pause("renewal")
            // Guarded on the renewal it read: of several checks that found the session due, one writes.
            let changed = try renew(db, tokenHash: hash, from: session.lastUsedAt, to: expiresAt, now: now)
            if changed == 1 {
                TestHooks.note("renewed")
                // The cap reached: that write ended it.
                guard expiresAt > now else { throw Sessions.unauthorized }
                session.expiresAt = expiresAt
                session.lastUsedAt = now
            } else {
                // Another check renewed it first, or a sign-out ended it: the store decides.
                guard let stored = try LiveSession.read(db, tokenHash: hash, now: now, whole: whole) else {
                    throw Sessions.unauthorized
                }
                session = stored
            }
        }
        var tidied = db
        if session.viewMissing {
            let store = try context.database()
            guard let view = try AccountView.built(store, accountId: session.accountId) else { throw Sessions.unauthorized }
            session.show(view)
            tidied = store
        }
        // Every process re-reads and checksums the whole WAL when it opens, and checks are most of
        // the requests: the first check after a write empties the WAL after its answer (the
        // store's too when it opened the store), so the checks that follow open an empty one.
        if tidied.walFileBytes > 0 { context.runAfterAnswer { tidied.emptyWAL() } }
        var response = CGIResponse(status: 200, body: session.json(headersOnly: !whole))
        response.addHeader("X-Frontdoor-Account", session.accountId)
        response.addHeader("X-Frontdoor-Session", session.sessionId)
        return response
    }
}

extension SessionCheck {
    /// The renewal's one statement; how many rows it changed (0 or 1). On PostgreSQL its commit
    /// does not wait for the WAL flush (`synchronous_commit` off for this statement's own
    /// transaction, set in the same round trip): a server that stops at once can lose only that
    /// extension, so the session ends at its earlier expiry, as if the renewal had not happened.
    /// It never grants anything: a sign-out or a deletion waits for its flush, as every other
    /// commit does (`PostgresDatabase.flushAtCommit`). The setting is local (`set_config`'s
    /// `true`): it ends with the statement's transaction, before pgbouncer hands the server
    /// connection on. PostgreSQL reads it when it records the commit, before a transaction's
    /// local settings are undone (`CommitTransaction`: `RecordTransactionCommit`, then
    /// `AtEOXact_GUC`).
    static func renew(
        _ db: Database, tokenHash: [UInt8], from lastUsedAt: UnixTime, to expiresAt: UnixTime, now: UnixTime
    ) throws(FrontdoorError) -> Int {
        let params: [SQLValue] = [.integer(expiresAt), .integer(now), .blob(tokenHash), .integer(lastUsedAt), .integer(now)]
        guard db.isPostgres else {
            return try db.run(
                """
                UPDATE sessions SET expires_at = ?, last_used_at = ?
                WHERE token_hash = ? AND last_used_at = ? AND expires_at > ?
                """, params)
        }
        let rows = try db.query(
            """
            WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)
            UPDATE sessions SET expires_at = ?, last_used_at = ?
            WHERE token_hash = ? AND last_used_at = ? AND expires_at > ? AND (SELECT setting FROM unflushed) = 'off'
            RETURNING current_setting('synchronous_commit')
            """, params)
        if let setting = rows.first?.text(0) { TestHooks.note("renewal synchronous_commit=\(setting)") }
        return rows.count
    }
}

/// A live session and what the check answers about its account.
struct LiveSession {
    var accountId: String
    var sessionId: String
    var createdAt: UnixTime
    var lastUsedAt: UnixTime
    var expiresAt: UnixTime
    var email: String?
    var emailVerified: Bool
    var providers: [String]
    /// Read from the session file alone, whose view of the account was missing: the store builds it.
    var viewMissing = false

    mutating func show(_ view: AccountView) {
        email = view.email
        emailVerified = view.emailVerified
        providers = view.providers
        viewMissing = false
    }

    /// The session, and with `whole` what the body says of its account (from the session file
    /// alone, its view: `viewMissing` when it has none). Lookups by key rather
    /// than one join: SQLite plans a join (and a correlated subquery) at several times the cost
    /// of these, and this runs before every app request. Where the store is at hand, a session
    /// without its account (a row left by hand) is no session, nor is one of a disabled account;
    /// an account deleted between the lookups reads as none either.
    static func read(
        _ db: Database, tokenHash: [UInt8], now: UnixTime, whole: Bool
    ) throws(FrontdoorError) -> LiveSession? {
        // PostgreSQL's function answers both: its plan is kept, where this file's statement would be
        // planned at every request, and the body's two subqueries cost less than that planning.
        if db.isPostgres { return try readOnPostgres(db, tokenHash: tokenHash, now: now) }
        // The session file alone has no accounts: none of a deleted or disabled account is there,
        // since ending an account ends its sessions first (`SessionFile`).
        let sessions = db.isSessionFileOnly
            ? try db.query(
                "SELECT account_id, session_id, created_at, last_used_at, expires_at FROM sessions WHERE token_hash = ? AND expires_at > ?",
                [.blob(tokenHash), .integer(now)])
            : try db.query(
            """
            SELECT account_id, session_id, created_at, last_used_at, expires_at FROM sessions
            WHERE token_hash = ? AND expires_at > ?
              AND EXISTS (SELECT 1 FROM accounts WHERE id = sessions.account_id AND disabled_at IS NULL)
            """,
            [.blob(tokenHash), .integer(now)])
        guard let row = sessions.first, let accountId = row.text(0), let sessionId = row.text(1),
            let createdAt = row.int(2), let lastUsedAt = row.int(3), let expiresAt = row.int(4)
        else { return nil }
        var session = LiveSession(
            accountId: accountId, sessionId: sessionId, createdAt: createdAt, lastUsedAt: lastUsedAt,
            expiresAt: expiresAt, email: nil, emailVerified: false, providers: [])
        guard whole else { return session }
        if db.isSessionFileOnly {
            if let view = try AccountView.read(db, accountId: accountId) { session.show(view) } else { session.viewMissing = true }
            return session
        }
        guard let view = try AccountView.fromStore(db, accountId: accountId) else { return nil }
        session.show(view)
        return session
    }

    /// The answer on PostgreSQL (whole or not) in one statement: each statement there is a round trip
    /// through pgbouncer. The statement is a function's (`PostgresMigrations.sessionCheckFunction`),
    /// whose plan the server connection keeps. Provider names are words, so a space joins them.
    private static func readOnPostgres(_ db: Database, tokenHash: [UInt8], now: UnixTime) throws(FrontdoorError) -> LiveSession? {
        let rows = try db.query("SELECT * FROM frontdoor_session_check(?, ?)", [.blob(tokenHash), .integer(now)])
        guard let row = rows.first, let accountId = row.text(0), let sessionId = row.text(1),
            let createdAt = row.int(2), let lastUsedAt = row.int(3), let expiresAt = row.int(4)
        else { return nil }
        var providers = AccountView.words(row.text(8))
        if row.int(9) == 1 { providers = (providers + ["passkey"]).sorted() }
        if row.int(7) == 1 { providers.append("password") }
        return LiveSession(
            accountId: accountId, sessionId: sessionId, createdAt: createdAt, lastUsedAt: lastUsedAt,
            expiresAt: expiresAt, email: row.text(5), emailVerified: row.int(6) == 1, providers: providers)
    }

    /// DESIGN.md's body; `headersOnly`, what nginx's `auth_request` gets (it reads the headers and
    /// discards the body): the session alone, without the account's lookups.
    func json(headersOnly: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("accountId", .string(accountId)),
            ("sessionId", .string(sessionId)),
            ("sessionExpiresAt", .string(Clock.rfc3339(expiresAt))),
        ]
        if !headersOnly {
            members += [
                ("email", email.map(JSONValue.string) ?? .null),
                ("emailVerified", .bool(emailVerified)),
                ("providers", .array(providers.map(JSONValue.string))),
            ]
        }
        return .object(members)
    }
}
