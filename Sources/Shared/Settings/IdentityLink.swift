/// `account` `link` (rule 18): another way in, Google or Apple, added to the signed-in account.
/// The token is checked exactly as its sign-in checks it, by the sign-in's own code (for Apple the
/// nonce, the relay through Firebase and its user deleted after the answer). An identity another
/// account has is never moved or merged (409 `identity_taken`), an account holds one identity per
/// provider (409 `provider_linked`), and the token's address changes nothing of the account.
enum IdentityLink {
    static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let provider = try context.body.requiredString("provider", maxBytes: 64)
        // A provider this box does not offer is nothing to link, as passkeys without their section;
        // said only after the session and its recent sign-in, which come first (rule 18).
        let offered = provider == "google" ? context.config.google != nil : context.config.apple != nil
        if ["google", "apple"].contains(provider) && !offered {
            let db = try context.database()
            _ = try db.transaction { () throws(FrontdoorError) -> ActingSession in
                try ActingSession.read(context, db, recent: true)
            }
            throw FrontdoorError(.notFound, "Signing in with \(provider) is not offered here.")
        }
        switch provider {
        case "google":
            let idToken = try context.body.requiredString("idToken")
            let rawNonce = try Nonces.optionalRawNonce(context.body)
            let acting = try before(.google, context)
            let identity = try GoogleSignIn.verifiedIdentity(idToken, rawNonce: rawNonce, context: context)
            return try link(identity, acting: acting, context: context, alongside: {})
        case "apple":
            return try AppleSignIn.withIdentity(context, beforeToken: { () throws(FrontdoorError) -> ActingSession in
                try before(.apple, context)
            }) { (identity, acting, alongside) throws(FrontdoorError) -> CGIResponse in
                try link(identity, acting: acting, context: context, alongside: alongside)
            }
        default:
            throw .invalidRequest("provider must be \"google\" or \"apple\".")
        }
    }

    /// Before the token costs anything (an Apple nonce, a call to Firebase): the session, its
    /// recent sign-in, and whether the account has that provider already.
    static func before(_ provider: ProviderIdentity.Provider, _ context: RequestContext) throws(FrontdoorError)
        -> ActingSession
    {
        let db = try context.database()
        return try db.transaction { () throws(FrontdoorError) -> ActingSession in
            let acting = try ActingSession.read(context, db, recent: true)
            try refuseIfLinked(provider.rawValue, accountId: acting.accountId, db: db)
            return acting
        }
    }

    /// In one transaction with what the token's checks counted (`alongside`): the checks again
    /// (the session, the provider, the identity's owner), the identity, `account.linked`.
    static func link(
        _ identity: ProviderIdentity, acting: ActingSession, context: RequestContext,
        alongside: () throws(FrontdoorError) -> Void
    ) throws(FrontdoorError) -> CGIResponse {
        // Verified, nothing written yet: two links of one identity race here.
        TestHooks.pause("link-verified")
        let db = try context.database()
        let now = context.now
        let provider = identity.provider.rawValue
        let (answer, notice) = try db.transaction { () throws(FrontdoorError) -> (JSONValue, SettingsNotice?) in
            try acting.again(context, db)
            try alongside()
            let owner = try db.query(
                "SELECT account_id, blocked_at FROM identities WHERE provider = ? AND subject = ?",
                [.text(provider), .text(identity.subject)]
            ).first
            // Google's Cross-Account Protection blocked it: refused as its sign-in refuses it.
            if owner?.int(1) != nil { throw .invalidToken("identity blocked by the provider's security event") }
            try refuseIfLinked(provider, accountId: acting.accountId, db: db)
            if owner != nil { throw identityTaken }
            try refuseUnlessAddressProven(identity, accountId: acting.accountId, db: db, context: context)
            // Proven: the account's own recent session added it, on an address that is proven (or
            // that this very token proves), so a later proof of the inbox does not drop it
            // (`InboxProof`); a takeback does, when the session that added it goes.
            let inserted = try db.run(
                """
                INSERT INTO identities (provider, subject, account_id, created_at, email_proven, session_id, session_made_at)
                VALUES (?, ?, ?, ?, 1, ?, ?) ON CONFLICT (provider, subject) DO NOTHING
                """,
                [.text(provider), .text(identity.subject), .text(acting.accountId), .integer(now), .text(acting.sessionId),
                 .integer(acting.createdAt)])
            guard inserted == 1 else { throw identityTaken }
            try Events.record(.linked(provider: provider), accountId: acting.accountId, in: db, config: context.config, now: now)
            let notice = try SettingsNotice.read(
                .providerLinked, provider: provider, accountId: acting.accountId, config: context.config, db: db, now: now)
            // The crash suite kills a link here: the identity and its event written, nothing committed.
            TestHooks.pause("identity-linked")
            return (try AccountData.stored(db, accountId: acting.accountId, token: acting.token, now: now), notice)
        }
        if let notice { context.runAfterAnswer { notice.send(context) } }
        return CGIResponse(status: 200, body: answer)
    }

    /// 403 `email_not_verified` when the account's address was typed and never proven: the session
    /// may be a squatter's, whose identity would outlive the owner's proof of the inbox (account
    /// pre-hijacking), as `set_password` and passkeys refuse. Unless the token itself proves that
    /// very address (a provider that speaks for the mailbox, verified): then the address is proven
    /// by it, as a join by password proves it.
    static func refuseUnlessAddressProven(
        _ identity: ProviderIdentity, accountId: String, db: Database, context: RequestContext
    ) throws(FrontdoorError) {
        guard let account = try db.query(
            "SELECT email_key FROM accounts WHERE id = ? AND email IS NOT NULL AND email_verified = 0", [.text(accountId)]
        ).first else { return }
        let proves = identity.emailVerified && identity.authoritativeForEmail
            && identity.email.map(EmailAddress.matchKey) == account.text(0)
        guard proves else {
            throw FrontdoorError(
                .emailNotVerified, "Verify your email address before adding another way to sign in.",
                detail: "link refused: the account's email is not proven")
        }
        try Events.record(.verifyingEmail, accountId: accountId, in: db, config: context.config, now: context.now)
        try db.run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(accountId)])
    }

    /// 409 `provider_linked` when the account has an identity of `provider` (the very one, too).
    static func refuseIfLinked(_ provider: String, accountId: String, db: Database) throws(FrontdoorError) {
        let linked = try db.query(
            "SELECT 1 FROM identities WHERE account_id = ? AND provider = ?", [.text(accountId), .text(provider)])
        guard linked.isEmpty else {
            let name = ProviderIdentity.Provider(rawValue: provider)?.displayName ?? provider
            throw FrontdoorError(
                .providerLinked, "This account has a \(name) sign-in already. Remove it first to link another.")
        }
    }

    static var identityTaken: FrontdoorError {
        FrontdoorError(
            .identityTaken, "That sign-in belongs to another account. Sign in with it there, or delete that account first.")
    }
}
