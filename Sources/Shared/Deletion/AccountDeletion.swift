/// `delete-account` (rule 6): the whole account goes in one transaction before anything outside
/// the box is asked; Sign in with Apple is revoked after the answer, and only for the same Apple
/// account.
public enum AccountDeletion {
    /// The `appleRevocation` member of the answer.
    public enum Revocation: String, Sendable {
        case notApplicable = "not_applicable"
        case notRequested = "not_requested"
        case identityMismatch = "identity_mismatch"
        case scheduled
    }

    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let fresh = try FreshAppleAuthorization.parse(context.body)
        let db = try context.database()
        // The cheap refusal first; the transaction looks the session up again.
        _ = try Sessions.accountId(
            in: db, token: context.request.bearerToken, now: context.now, policy: context.config.sessions)
        let auditKey = try DeletionAudit.key(config: context.config)

        typealias Decided = (Revocation, AppleRevocation.Plan?)
        let (revocation, plan) = try db.transaction { () throws(FrontdoorError) -> Decided in
            let accountId = try Sessions.accountId(
                in: db, token: context.request.bearerToken, now: context.now, policy: context.config.sessions)
            let identities = try db.query(
                "SELECT provider, subject FROM identities WHERE account_id = ?", [.text(accountId)])
            let hasPassword = try db.query(
                "SELECT password_hash IS NOT NULL FROM accounts WHERE id = ?", [.text(accountId)]).first?.int(0) == 1
            let appleSubjects = identities.filter { $0.text(0) == "apple" }.compactMap { $0.text(1) }
            let (revocation, plan) = try decide(fresh, appleSubjects: appleSubjects, context: context, db: db)

            var providers = Set(identities.compactMap { $0.text(0) })
            if hasPassword { providers.insert("password") }
            try DeletionAudit.record(
                accountId: accountId, providers: providers, revocation: revocation, revocationId: plan?.id,
                key: auditKey, db: db, now: context.now)
            try Events.record(.deleting, accountId: accountId, in: db, config: context.config, now: context.now)
            // Codes hang off tickets, not the account: they go first, while their tickets still name it.
            try db.run(
                """
                DELETE FROM email_codes WHERE ticket_hash IN (SELECT ticket_hash FROM tickets WHERE account_id = ?)
                  OR ticket_hash IN (SELECT ticket_hash FROM email_tickets WHERE account_id = ?)
                """,
                [.text(accountId), .text(accountId)])
            // Identities, sessions, join tickets and email tickets go with it (ON DELETE CASCADE).
            // Rate-limit counters are keyed by a hash and expire with their window (an hour at most).
            guard try db.run("DELETE FROM accounts WHERE id = ?", [.text(accountId)]) == 1 else {
                throw .internal("delete: the session's account was not there")
            }
            return (revocation, plan)
        }
        // secure_delete zeroed the rows in the pages; the checkpoint moves those pages into the file
        // and empties the WAL, which still held the old ones. It waits for other connections'
        // reads, so it comes after the answer; one it cannot finish is owed (`checkpointOrOwe`).
        TestHooks.pause("deletion-committed")
        let work = AppleRevocation.AfterAnswer(context: context, plan: plan)
        context.runAfterAnswer {
            let done = db.checkpointOrOwe()
            work.run()
            // Readers come and go in milliseconds: one more try after the revocation's work.
            if !done && !db.payOwedCheckpoint() { SysLog.warning("frontdoor endpoint=delete-account checkpoint=owed") }
        }
        return CGIResponse(
            status: 200, body: .object([("deleted", true), ("appleRevocation", .string(revocation.rawValue))]))
    }

    /// Which `appleRevocation` this deletion answers, and the plan when it is `scheduled` (its row
    /// written and its nonce claimed, inside the deletion's transaction).
    static func decide(
        _ fresh: FreshAppleAuthorization?, appleSubjects: [String], context: RequestContext, db: Database
    ) throws(FrontdoorError) -> (Revocation, AppleRevocation.Plan?) {
        guard !appleSubjects.isEmpty else { return (.notApplicable, nil) }
        guard let fresh else { return (.notRequested, nil) }
        guard appleSubjects.contains(fresh.claimedSubject) else { return (.identityMismatch, nil) }
        guard let apple = context.config.apple else {
            FileIO.log("frontdoor endpoint=delete-account detail=apple not configured: nothing revoked")
            return (.notRequested, nil)
        }
        // A stale token, another app's, or a nonce that does not match cannot revoke anything.
        let token: AppleToken
        do {
            token = try AppleToken.precheck(
                fresh.identityToken, rawNonce: fresh.rawNonce, bundleIds: apple.bundleIds, now: context.now)
        } catch {
            FileIO.log("frontdoor endpoint=delete-account detail=fresh Apple token refused: \(error.detail ?? "-")")
            return (.notRequested, nil)
        }
        let skew = AppleToken.policy(bundleIds: apple.bundleIds).clockSkew
        guard try Nonces.claim(hash: token.nonceHash, until: token.expiresAt + skew, db: db) else {
            FileIO.log("frontdoor endpoint=delete-account detail=fresh Apple token: nonce already used")
            return (.notRequested, nil)
        }
        var plan = AppleRevocation.Plan(
            id: Base64URL.encode(try SecureRandom.bytes(16)), mode: apple.mode, fresh: fresh, token: token,
            subject: fresh.claimedSubject)
        if apple.mode == .relay {
            let send = RelayUser.Send(
                nonceHash: token.nonceHash,
                subjectKey: RelaySends.subjectKey(fresh.claimedSubject, secret: try context.rateLimitSecret()))
            try RelaySends.mark(nonceHash: send.nonceHash, subjectKey: send.subjectKey, db: db, now: context.now)
            plan.relaySend = send
        }
        try AppleRevocationStore.insert(plan, db: db, now: context.now)
        return (.scheduled, plan)
    }
}
