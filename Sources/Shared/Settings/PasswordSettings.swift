/// `account` `change_password` and `set_password` (rule 18). A change is proven by the current
/// password (no recent sign-in needed), counted against the login limits like a login, and ends
/// every other session; setting one needs a recent sign-in and a proven address (a password on
/// an unproven one would reopen pre-hijacking: whoever typed the address could set it). Both
/// mail the account's address a notice after the answer; a removal is `unlink` `password`.
enum PasswordSettings {
    static func change(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let current = try EmailSignIn.password(context.body, "currentPassword")
        let new = try EmailSignIn.password(context.body, "newPassword")
        let db = try context.database()
        let now = context.now
        let secret = try context.rateLimitSecret()
        typealias Found = (acting: ActingSession, hash: String, email: String?, limits: [RateLimits.Limit])
        let found = try db.transaction { () throws(FrontdoorError) -> Found in
            let acting = try ActingSession.read(context, db, recent: false)
            let row = try db.query("SELECT email, password_hash FROM accounts WHERE id = ?", [.text(acting.accountId)]).first
            guard let hash = row?.text(1) else {
                throw FrontdoorError(.noPassword, "This account has no password to change. Set one instead.")
            }
            // The same counters as a login of the account's address, so guesses here and there add up.
            let limits = context.config.limits.login(
                email: row?.text(0) ?? acting.accountId, client: context.client, secret: secret)
            return (acting, hash, row?.text(0), limits)
        }
        // The new password's rules (rule 19) before a try is counted, as a reset checks them.
        try PasswordPolicy.checkOnBox(new, context: .init(email: found.email), config: context.config)
        // Every attempt counts until it succeeds, so parallel guesses cannot all slip under the limit.
        try db.transaction { () throws(FrontdoorError) in try RateLimits.hit(found.limits, db: db, now: now) }
        try PasswordPolicy.checkRange(new, config: context.config)
        guard try PasswordHasher.verify(current, against: found.hash) else {
            throw FrontdoorError(.invalidCredentials, "The current password is not right.")
        }
        let hash = try PasswordHasher.hash(new, cost: context.config.passwordCost)
        TestHooks.pause("current-password-verified")
        let (ended, notice) = try db.transaction { () throws(FrontdoorError) -> (Int, SettingsNotice?) in
            try found.acting.again(context, db)
            // Only over the password just verified: a reset or another change that landed meanwhile wins.
            let changed = try db.run(
                "UPDATE accounts SET password_hash = ? WHERE id = ? AND password_hash = ?",
                [.text(hash), .text(found.acting.accountId), .text(found.hash)])
            guard changed == 1 else { throw FrontdoorError(.invalidCredentials, "The current password is not right.") }
            try SecurityLedger.passwordChanged(found.acting.accountId, db: db, now: now)
            let ended = try SignOut.end(
                .others, accountId: found.acting.accountId, tokenHash: found.acting.tokenHash, db: db, now: now)
            // An address change a stolen session began would otherwise outlive this (T5-3).
            try EmailChange.cancelPending(found.acting.accountId, db: db)
            try EmailSignIn.succeeded(found.limits, db: db, now: now)
            try Events.record(
                .updated(changed: "password"), accountId: found.acting.accountId, in: db, config: context.config, now: now)
            let notice = try SettingsNotice.read(
                .passwordChanged, accountId: found.acting.accountId, config: context.config, db: db, now: now)
            // The crash suite kills a change here: everything written, nothing committed.
            TestHooks.pause("password-changed")
            return (ended, notice)
        }
        if let notice { context.runAfterAnswer { notice.send(context) } }
        return CGIResponse(status: 200, body: .object([("changed", true), ("ended", .number(Double(ended)))]))
    }

    static func set(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let new = try EmailSignIn.password(context.body, "newPassword")
        let db = try context.database()
        let now = context.now
        let (acting, email) = try db.transaction { () throws(FrontdoorError) -> (ActingSession, String?) in
            let acting = try ActingSession.read(context, db, recent: true)
            try refuseUnlessSettable(acting.accountId, db: db)
            let email = try db.query("SELECT email FROM accounts WHERE id = ?", [.text(acting.accountId)]).first?.text(0)
            return (acting, email)
        }
        try PasswordPolicy.check(new, context: .init(email: email), config: context.config)
        let hash = try PasswordHasher.hash(new, cost: context.config.passwordCost)
        let notice = try db.transaction { () throws(FrontdoorError) -> SettingsNotice? in
            try acting.again(context, db, recent: true)
            try refuseUnlessSettable(acting.accountId, db: db)
            // A way in joins: `account.linked` with `password`, as a reset gives a provider-only account.
            try Events.record(.settingPassword, accountId: acting.accountId, in: db, config: context.config, now: now)
            guard try db.run(
                "UPDATE accounts SET password_hash = ? WHERE id = ? AND password_hash IS NULL",
                [.text(hash), .text(acting.accountId)]) == 1
            else { throw passwordExists }
            try SecurityLedger.passwordChanged(acting.accountId, db: db, now: now)
            let notice = try SettingsNotice.read(
                .passwordSet, accountId: acting.accountId, config: context.config, db: db, now: now)
            TestHooks.pause("password-set")
            return notice
        }
        if let notice { context.runAfterAnswer { notice.send(context) } }
        return CGIResponse(status: 200, body: .object([("changed", true)]))
    }

    /// 409 `password_exists` when the account has one; 403 `email_not_verified` unless its address
    /// is proven (an account without an address has none to sign in with).
    static func refuseUnlessSettable(_ accountId: String, db: Database) throws(FrontdoorError) {
        let row = try db.query(
            "SELECT email IS NOT NULL AND email_verified = 1, password_hash IS NOT NULL FROM accounts WHERE id = ?",
            [.text(accountId)]).first
        if row?.int(1) == 1 { throw passwordExists }
        guard row?.int(0) == 1 else {
            throw FrontdoorError(
                .emailNotVerified, "Verify your email address before setting a password.",
                detail: "set_password refused: the account's email is not proven")
        }
    }

    static var passwordExists: FrontdoorError {
        FrontdoorError(.passwordExists, "This account has a password already. Change it instead.")
    }
}
