/// The session an `account` settings action acts with (rule 18): the live session behind the
/// bearer token, and with `recent` one that signed in within `sessions.recentSignInSeconds`.
struct ActingSession {
    let token: String
    let tokenHash: [UInt8]
    let accountId: String
    let sessionId: String
    /// When the session was made: what a takeback judges what it did by (`Takeback`).
    let createdAt: UnixTime

    /// 401 `unauthorized` unless the bearer is a live session (the verdict every endpoint gives);
    /// with `recent`, then 403 `reauthentication_required` unless it signed in recently, which
    /// comes before every refusal of the action's own. In the caller's transaction.
    static func read(_ context: RequestContext, _ db: Database, recent: Bool) throws(FrontdoorError) -> ActingSession {
        guard let token = context.request.bearerToken, Sessions.isWellFormed(token) else { throw Sessions.unauthorized }
        let hash = Sessions.hash(token)
        let (session, verdict) = try Sessions.judged(
            db, tokenHash: hash, now: context.now, policy: context.config.sessions, whole: false)
        guard SessionPolicy.admits(verdict, now: context.now) else { throw Sessions.unauthorized }
        if recent {
            try RecentSignIn.require(
                tokenHash: hash, accountId: session.accountId, db: db, policy: context.config.sessions, now: context.now)
        }
        return ActingSession(
            token: token, tokenHash: hash, accountId: session.accountId, sessionId: session.sessionId,
            createdAt: session.createdAt)
    }

    /// The same session again, in a later transaction of the same request (after Argon2id, a
    /// mail, a provider's answer): `unauthorized` when it ended meanwhile.
    func again(_ context: RequestContext, _ db: Database, recent: Bool = false) throws(FrontdoorError) {
        let now = try Self.read(context, db, recent: recent)
        guard now.accountId == accountId else { throw Sessions.unauthorized }
    }
}
