/// `sign-out`: ends the session it is called with, the account's other sessions, all of them, or
/// one of the account's sessions by its public id. Every answer says how many live sessions ended.
public enum SignOut {
    public enum Scope: Equatable, Sendable {
        case current, others, all
        case session(id: String)
    }

    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let scope = try scope(context.body)
        let token = context.request.bearerToken
        let db = try context.database()
        let now = context.now
        let ended = try db.transaction { () throws(FrontdoorError) -> Int in
            let accountId = try Sessions.accountId(in: db, token: token, now: now, policy: context.config.sessions)
            guard let token else { throw Sessions.unauthorized }
            let ended = try end(scope, accountId: accountId, tokenHash: Sessions.hash(token), db: db, now: now)
            // Signing out everywhere takes the account back: no passkey those sessions added stays.
            if scope == .all {
                try Takeback.run(accountId, sessionsMadeBy: now, db: db, config: context.config, now: now)
            }
            return ended
        }
        return CGIResponse(status: 200, body: .object([("signedOut", true), ("ended", .number(Double(ended)))]))
    }

    /// Ends what `scope` names for the session `tokenHash` of `accountId`, within the caller's
    /// transaction, and records the sessions it ended in the ledger (a restore must not bring
    /// them back); the live sessions it ended.
    static func end(
        _ scope: Scope, accountId: String, tokenHash: [UInt8], db: Database, now: UnixTime
    ) throws(FrontdoorError) -> Int {
        let account = SQLValue.text(accountId)
        switch scope {
        case .current:
            return try SecurityLedger.endSessions(
                "DELETE FROM sessions WHERE token_hash = ? RETURNING session_id", [.blob(tokenHash)],
                accountId: accountId, db: db, now: now, oneChosen: true)
        case .others:
            return try SecurityLedger.endSessions(
                "DELETE FROM sessions WHERE account_id = ? AND token_hash != ? AND expires_at > ? RETURNING session_id",
                [account, .blob(tokenHash), .integer(now)], accountId: accountId, db: db, now: now)
        case .all:
            return try SecurityLedger.endSessions(
                "DELETE FROM sessions WHERE account_id = ? AND expires_at > ? RETURNING session_id",
                [account, .integer(now)], accountId: accountId, db: db, now: now)
        case .session(let id):
            // Another account's session and an unknown id answer alike: ids are not for probing.
            let removed = try SecurityLedger.endSessions(
                "DELETE FROM sessions WHERE account_id = ? AND session_id = ? AND expires_at > ? RETURNING session_id",
                [account, .text(id), .integer(now)], accountId: accountId, db: db, now: now, oneChosen: true)
            guard removed == 1 else { throw FrontdoorError(.notFound, "There is no such session of yours.") }
            return removed
        }
    }

    /// The body: nothing or `{}` is the current session; `scope` or `sessionId`, never both.
    public static func scope(_ body: JSONValue) throws(FrontdoorError) -> Scope {
        let named = try body.optionalString("scope", maxBytes: 64)
        let id = try body.optionalString("sessionId", maxBytes: 128)
        switch (named, id) {
        case (nil, nil), (.some("current"), nil): return .current
        case (.some("others"), nil): return .others
        case (.some("all"), nil): return .all
        case (nil, .some(let id)):
            guard !id.isEmpty else { throw .invalidRequest("sessionId must not be empty.") }
            return .session(id: id)
        case (.some, .some): throw .invalidRequest("Send either scope or sessionId, not both.")
        case (.some, nil): throw .invalidRequest("scope must be \"current\", \"others\" or \"all\".")
        }
    }
}
