/// Rule 18: what changes how an account is entered needs a session made, or proven again, by a
/// real sign-in within `sessions.recentSignInSeconds`. A renewal is not a sign-in: only
/// `Sessions.create` and `Reauthentication.prove` write `signed_in_at`.
enum RecentSignIn {
    /// 403 `reauthentication_required` (with `methods`, the account's ways in as `providers`
    /// spells them, so the phone knows which sheet to show) unless the session `tokenHash` of
    /// `accountId` signed in recently. In the action's transaction, before anything is written.
    static func require(
        tokenHash: [UInt8], accountId: String, db: Database, policy: SessionPolicy, now: UnixTime
    ) throws(FrontdoorError) {
        let signedInAt = try db.query(
            "SELECT signed_in_at FROM sessions WHERE token_hash = ?", [.blob(tokenHash)]
        ).first?.int(0) ?? 0
        guard !policy.isRecent(signedInAt: signedInAt, now: now) else { return }
        let methods = try Events.linkedProviders(accountId, db)
        throw FrontdoorError(
            .reauthenticationRequired, "Please sign in again to confirm it is you, then try again.",
            detail: "no recent sign-in", extra: [("methods", .array(methods.map(JSONValue.string)))])
    }
}
