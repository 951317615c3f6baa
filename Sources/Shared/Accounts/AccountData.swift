/// `account`: everything the store holds about the person, as their own copy of it (GDPR Art. 15,
/// access, and Art. 20, portability), their name, and (rule 18, `Sources/Shared/Settings`) how
/// they sign in: password, address, identities. No secret is ever in an answer: no password
/// hash, token or token hash, and no provider subject.
public enum AccountData {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        switch try context.body.requiredString("action", maxBytes: 64) {
        case "get": return try get(context)
        case "update": return try update(context)
        case "change_password": return try PasswordSettings.change(context)
        case "set_password": return try PasswordSettings.set(context)
        case "change_email": return try EmailChange.start(context)
        case "link": return try IdentityLink.handle(context)
        case "unlink": return try IdentityUnlink.handle(context)
        default:
            throw .invalidRequest(
                "action must be get, update, change_password, set_password, change_email, link or unlink.")
        }
    }

    static func get(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let db = try context.database()
        let token = context.request.bearerToken
        // One transaction, so the account and its sessions are read as of one moment.
        let answer = try db.transaction { () throws(FrontdoorError) -> JSONValue in
            let accountId = try Sessions.accountId(in: db, token: token, now: context.now, policy: context.config.sessions)
            return try stored(db, accountId: accountId, token: token, now: context.now)
        }
        return CGIResponse(status: 200, body: answer)
    }

    /// `{"action": "update", "name"?, "language"?}`: `name` a string of at most 256 bytes that
    /// `PersonText` accepts, null or blank removing it; `language` a language tag (`MailLanguage`:
    /// the mails' language; one without mails, or null, is English). A member left out stays, so
    /// neither changes nothing. Answers the account as stored, as `get` does.
    static func update(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        // A member given as null clears it; one left out stays as it is.
        let setsName = context.body["name"] != nil, setsLanguage = context.body["language"] != nil
        let name = try PersonText.optional(context.body, "name", maxBytes: 256)
        let language = try MailLanguage.fromBody(context.body)
        let db = try context.database()
        let token = context.request.bearerToken
        let answer = try db.transaction { () throws(FrontdoorError) -> JSONValue in
            let accountId = try Sessions.accountId(in: db, token: token, now: context.now, policy: context.config.sessions)
            if setsName {
                try db.run("UPDATE accounts SET name = ? WHERE id = ?", [name.map(SQLValue.text) ?? .null, .text(accountId)])
            }
            if setsLanguage {
                try db.run(
                    "UPDATE accounts SET language = ? WHERE id = ?",
                    [language.map { .text($0.rawValue) } ?? .null, .text(accountId)])
            }
            return try stored(db, accountId: accountId, token: token, now: context.now)
        }
        return CGIResponse(status: 200, body: answer)
    }

    /// The account as stored (DESIGN.md): its own columns, linked providers and live sessions.
    static func stored(_ db: Database, accountId: String, token: String?, now: UnixTime) throws(FrontdoorError) -> JSONValue {
        let rows = try db.query(
            "SELECT email, email_verified, name, created_at, password_hash IS NOT NULL, language FROM accounts WHERE id = ?",
            [.text(accountId)])
        guard let account = rows.first else { throw .internal("account vanished inside its transaction") }
        let providers = try db.query(
            "SELECT provider, created_at FROM identities WHERE account_id = ? ORDER BY provider", [.text(accountId)]
        ).map { row -> JSONValue in
            .object([("provider", text(row.text(0))), ("linkedAt", time(row.int(1)))])
        }
        let current = token.map(Sessions.hash) ?? []
        let sessions = try db.query(
            """
            SELECT session_id, device_name, created_at, last_used_at, expires_at, token_hash = ?, signed_in_at
            FROM sessions WHERE account_id = ? AND expires_at > ? ORDER BY created_at, session_id
            """,
            [.blob(current), .text(accountId), .integer(now)]
        ).map { row -> JSONValue in
            .object([
                ("sessionId", text(row.text(0))), ("deviceName", text(row.text(1))), ("createdAt", time(row.int(2))),
                ("lastUsedAt", time(row.int(3))), ("expiresAt", time(row.int(4))), ("current", .bool(row.int(5) == 1)),
                // Its last real sign-in (rule 18); null for a session from before it was kept.
                ("signedInAt", time(row.int(6).flatMap { $0 > 0 ? $0 : nil })),
            ])
        }
        return .object([
            ("accountId", .string(accountId)),
            ("email", text(account.text(0))),
            ("emailVerified", .bool(account.int(1) == 1)),
            ("name", text(account.text(2))),
            ("createdAt", time(account.int(3))),
            ("hasPassword", .bool(account.int(4) == 1)),
            // The mails' language: what was kept, English when nothing was.
            ("language", .string(account.text(5).flatMap(MailLanguage.init(rawValue:))?.rawValue ?? "en")),
            ("providers", .array(providers)),
            ("sessions", .array(sessions)),
            ("passkeys", try PasskeyStore.list(accountId, db: db)),
        ])
    }

    private static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    private static func time(_ value: Int64?) -> JSONValue { value.map { .string(Clock.rfc3339($0)) } ?? .null }
}
