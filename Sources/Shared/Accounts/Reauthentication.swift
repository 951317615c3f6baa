/// A sign-in sent with `Authorization: Bearer` of a live session (rule 18): instead of a new
/// session, that session is proven again in place (the same token and `sessionId`, its recent
/// sign-in moved to now), so the phone can go on to change how the account is entered. A sign-in
/// of another account, or of an identity no account has (which would make or join an account),
/// is 409 `account_mismatch` and changes nothing: adding a way in is `account` `link`.
public struct Reauthentication: Sendable {
    let token: String
    let tokenHash: [UInt8]
    let accountId: String

    /// nil when the request carries no bearer token; 401 `unauthorized` when it carries one that is
    /// not a live session: a sign-in meant to prove a session again must not quietly make another.
    static func bearer(_ context: RequestContext) throws(FrontdoorError) -> Reauthentication? {
        guard let token = context.request.bearerToken else { return nil }
        let accountId = try Sessions.accountId(
            in: try context.database(), token: token, now: context.now, policy: context.config.sessions)
        return Reauthentication(token: token, tokenHash: Sessions.hash(token), accountId: accountId)
    }

    static var mismatch: FrontdoorError {
        FrontdoorError(
            .accountMismatch,
            "That sign-in is not of the account signed in here. Please sign in with a way this account uses.")
    }

    /// `account_mismatch` unless `accountId` is the bearer's account (nil: no account at all).
    func requireSame(_ accountId: String?) throws(FrontdoorError) {
        guard let accountId, accountId == self.accountId else { throw Self.mismatch }
    }

    /// Inside the sign-in's transaction: the bearer's session, proven again now. `unauthorized`
    /// when it ended meanwhile (a sign-out or a deletion that committed first).
    func prove(in db: Database, accountId: String, now: UnixTime) throws(FrontdoorError) -> Sessions.Issued {
        try requireSame(accountId)
        let rows = try db.query(
            """
            UPDATE sessions SET signed_in_at = ? WHERE token_hash = ? AND account_id = ? AND expires_at > ?
            RETURNING session_id, expires_at
            """,
            [.integer(now), .blob(tokenHash), .text(accountId), .integer(now)])
        guard let row = rows.first, let sessionId = row.text(0), let expiresAt = row.int(1) else {
            throw Sessions.unauthorized
        }
        return Sessions.Issued(token: token, sessionId: sessionId, expiresAt: expiresAt)
    }
}
