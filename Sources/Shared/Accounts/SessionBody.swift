/// The contract's session body, built from what the transaction learnt.
public struct SessionBody: Sendable {
    public let accountId: String
    public let session: Sessions.Issued
    public let created: Bool
    public let email: String?
    public let providers: [String]
    /// A sign-in sent with the bearer of this very session proved it again (rule 18).
    public var reauthenticated = false

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("accountId", .string(accountId)),
            ("sessionToken", .string(session.token)),
            ("sessionId", .string(session.sessionId)),
            ("sessionExpiresAt", .string(Clock.rfc3339(session.expiresAt))),
            ("created", .bool(created)),
            ("email", email.map(JSONValue.string) ?? .null),
            ("providers", .array(providers.map(JSONValue.string))),
        ]
        if reauthenticated { members.append(("reauthenticated", true)) }
        return .object(members)
    }

    public var response: CGIResponse { CGIResponse(status: 200, body: json) }

    /// Reads the account's email and linked providers, for the answer. Every session is issued
    /// through here, inside the transaction that made it: an account the operator disabled throws
    /// `account_disabled`, which rolls back that session and everything else the sign-in wrote.
    static func load(
        in db: Database, accountId: String, session: Sessions.Issued, created: Bool
    ) throws(FrontdoorError) -> SessionBody {
        let account = try db.query(Events.accountRowSQL, [.text(accountId)])
        guard let row = account.first else { throw .internal("account vanished inside its transaction") }
        guard row.int(2) == 0 else { throw .accountDisabled }
        var providers = try PasskeyStore.providers(accountId, db)
        if row.int(1) == 1 { providers.append("password") }
        return SessionBody(accountId: accountId, session: session, created: created, email: row.text(0), providers: providers)
    }
}
