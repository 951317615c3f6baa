/// `account` `unlink` (rule 18): removes the account's Google or Apple identity, or its password,
/// never its last way in (`WaysIn`: a password counts only with a proven address, a passkey
/// counts). Apple may come with a fresh authorization (`appleAuthorizationCode`,
/// `appleIdentityToken`, `appleRawNonce`, as `delete-account` takes them) to revoke Sign in with
/// Apple for that Apple account, by the deletion's own path: decided before the answer, done after
/// it, never waited for.
enum IdentityUnlink {
    static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let provider = try context.body.requiredString("provider", maxBytes: 64)
        guard ["google", "apple", "password"].contains(provider) else {
            throw .invalidRequest("provider must be \"google\", \"apple\" or \"password\" (passkeys: the passkey endpoint).")
        }
        let fresh = provider == "apple" ? try FreshAppleAuthorization.parse(context.body) : nil
        let db = try context.database()
        let now = context.now
        typealias Unlinked = (answer: JSONValue, plan: AppleRevocation.Plan?, notice: SettingsNotice?)
        let unlinked = try db.transaction { () throws(FrontdoorError) -> Unlinked in
            let acting = try ActingSession.read(context, db, recent: true)
            let accountId = acting.accountId
            guard let ways = try WaysIn.of(accountId, db: db) else { throw Sessions.unauthorized }
            let subjects: [String]
            if provider == "password" {
                let held = try db.query(
                    "SELECT 1 FROM accounts WHERE id = ? AND password_hash IS NOT NULL", [.text(accountId)])
                guard !held.isEmpty else { throw notFound(provider) }
                subjects = []
            } else {
                subjects = try db.query(
                    "SELECT subject FROM identities WHERE account_id = ? AND provider = ?",
                    [.text(accountId), .text(provider)]
                ).compactMap { $0.text(0) }
                guard !subjects.isEmpty else { throw notFound(provider) }
            }
            guard WaysIn.remain(ways, without: provider) else {
                throw FrontdoorError(
                    .lastSignInMethod, "This is the account's last way to sign in. Add another before removing it.")
            }
            // Two unlinks of an account's two ways in race here, each having seen the other's.
            TestHooks.pause("unlink-checked")
            var plan: AppleRevocation.Plan?
            var notice: SettingsNotice?
            if provider == "password" {
                try db.run("UPDATE accounts SET password_hash = NULL WHERE id = ?", [.text(accountId)])
                try SecurityLedger.passwordChanged(accountId, db: db, now: now)
                notice = try SettingsNotice.read(
                    .passwordRemoved, accountId: accountId, config: context.config, db: db, now: now)
            } else {
                if provider == "apple" {
                    let (revocation, scheduled) = try AccountDeletion.decide(
                        fresh, appleSubjects: subjects, context: context, db: db)
                    FileIO.log("frontdoor endpoint=account unlink=apple appleRevocation=\(revocation.rawValue)")
                    plan = scheduled
                }
                try db.run(
                    "DELETE FROM identities WHERE account_id = ? AND provider = ?", [.text(accountId), .text(provider)])
                try SecurityLedger.identityRemoved(provider, accountId: accountId, db: db, now: now)
                notice = try SettingsNotice.read(
                    .providerUnlinked, provider: provider, accountId: accountId, config: context.config, db: db, now: now)
            }
            try Events.record(.unlinked(provider: provider), accountId: accountId, in: db, config: context.config, now: now)
            // The crash suite kills an unlink here: the way in gone and its event written, nothing committed.
            TestHooks.pause("identity-unlinked")
            return (try AccountData.stored(db, accountId: accountId, token: acting.token, now: now), plan, notice)
        }
        if let plan = unlinked.plan {
            let work = AppleRevocation.AfterAnswer(context: context, plan: plan)
            context.runAfterAnswer { work.run() }
        }
        if let notice = unlinked.notice { context.runAfterAnswer { notice.send(context) } }
        return CGIResponse(status: 200, body: unlinked.answer)
    }

    static func notFound(_ provider: String) -> FrontdoorError {
        FrontdoorError(.notFound, "This account has no \(provider) sign-in to remove.")
    }
}
