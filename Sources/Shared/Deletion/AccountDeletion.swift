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
            guard let doomed = try Doomed.read(accountId, db: db) else {
                throw .internal("delete: the session's account was not there")
            }
            let (revocation, plan) = try decide(fresh, appleSubjects: doomed.appleSubjects, context: context, db: db)
            try remove(
                doomed, revocation: revocation, revocationId: plan?.id, ledger: .append, auditKey: auditKey, db: db,
                config: context.config, now: context.now)
            return (revocation, plan)
        }
        TestHooks.pause("deletion-committed")
        let work = AppleRevocation.AfterAnswer(context: context, plan: plan)
        context.runAfterAnswer { afterCommit(db, work) }
        return CGIResponse(
            status: 200, body: .object([("deleted", true), ("appleRevocation", .string(revocation.rawValue))]))
    }

    /// What a deletion reads of the account before it goes.
    struct Doomed {
        let accountId: String
        /// Its sign-in methods, for the audit row.
        let providers: Set<String>
        let appleSubjects: [String]

        /// nil when there is no such account.
        static func read(_ accountId: String, db: Database) throws(FrontdoorError) -> Doomed? {
            let account = try db.query(
                "SELECT password_hash IS NOT NULL FROM accounts WHERE id = ?", [.text(accountId)])
            guard let row = account.first else { return nil }
            let identities = try db.query(
                "SELECT provider, subject FROM identities WHERE account_id = ?", [.text(accountId)])
            var providers = Set(identities.compactMap { $0.text(0) })
            if row.int(0) == 1 { providers.insert("password") }
            return Doomed(
                accountId: accountId, providers: providers,
                appleSubjects: identities.filter { $0.text(0) == "apple" }.compactMap { $0.text(1) })
        }
    }

    /// Whether the deletion appends its ledger line, or re-applies one the ledger already has.
    enum LedgerLine {
        case append
        case alreadyThere
    }

    /// Every deletion, whoever asks for it (the person, the operator, a restore re-applying the
    /// ledger), inside the caller's transaction: the audit row, the `account.deleted` event, every
    /// row of the account, and the ledger line, synced before the caller commits (rule 13).
    /// A crash between the line and the commit leaves a line for an account someone asked to
    /// delete, which the next re-application deletes; an attempt PostgreSQL runs again withdraws
    /// its line (`SecurityLedger`).
    static func remove(
        _ doomed: Doomed, revocation: Revocation, revocationId: String?, ledger: LedgerLine, auditKey: [UInt8],
        db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) {
        let accountId = doomed.accountId
        try DeletionAudit.record(
            accountId: accountId, providers: doomed.providers, revocation: revocation, revocationId: revocationId,
            key: auditKey, db: db, now: now)
        try Events.record(.deleting, accountId: accountId, in: db, config: config, now: now)
        // Codes hang off tickets, not the account: they go first, while their tickets still name it.
        try Ephemeral.removeCodes(accountId: accountId, db: db)
        try NoticeLink.removeAll(of: accountId, db: db)
        // Sessions are in their own file on SQLite (`SessionFile`), which no foreign key reaches:
        // ended by name, and committed before the store's change. Identities, join tickets and
        // email tickets go with the account (ON DELETE CASCADE). Rate-limit counters are keyed by
        // a hash and expire with their window (an hour at most).
        try db.run("DELETE FROM sessions WHERE account_id = ?", [.text(accountId)])
        guard try db.run("DELETE FROM accounts WHERE id = ?", [.text(accountId)]) == 1 else {
            throw .internal("delete: the account was not there")
        }
        // Appended and synced before the commit, by `Database.transaction`.
        if ledger == .append { try SecurityLedger.deleted(accountId, db: db, now: now) }
    }

    /// `frontdoor-admin delete` and a restore's re-application of the ledger: the person's own
    /// deletion, in its own transaction, without a fresh Apple authorization (`not_requested`).
    /// False when there is no such account. The caller runs `afterCommit` once it is done.
    static func deleteForOperator(
        _ accountId: String, ledger: LedgerLine, auditKey: [UInt8], context: RequestContext
    ) throws(FrontdoorError) -> Bool {
        let db = try context.database()
        return try db.transaction { () throws(FrontdoorError) -> Bool in
            guard let doomed = try Doomed.read(accountId, db: db) else { return false }
            try remove(
                doomed, revocation: doomed.appleSubjects.isEmpty ? .notApplicable : .notRequested, revocationId: nil,
                ledger: ledger, auditKey: auditKey, db: db, config: context.config, now: context.now)
            return true
        }
    }

    /// After the commit (for the person, after the answer): secure_delete zeroed the rows in the
    /// pages; the checkpoint moves those pages into the file and empties the WAL, which still held
    /// the old ones. It waits for other connections' reads; one it cannot finish is owed
    /// (`checkpointOrOwe`). Then the revocation, if any, and due retries and relay clean-ups.
    static func afterCommit(_ db: Database, _ work: AppleRevocation.AfterAnswer) {
        let done = db.checkpointOrOwe()
        work.run()
        // Readers come and go in milliseconds: one more try after the revocation's work.
        if !done && !db.payOwedCheckpoint() { SysLog.warning("frontdoor endpoint=delete-account checkpoint=owed") }
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
                fresh.identityToken, rawNonce: fresh.rawNonce, audiences: apple.audiences, now: context.now)
        } catch {
            FileIO.log("frontdoor endpoint=delete-account detail=fresh Apple token refused: \(error.detail ?? "-")")
            return (.notRequested, nil)
        }
        let skew = AppleToken.policy(audiences: apple.audiences).clockSkew
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
        try AppleRevocationStore.insert(
            plan, subjectHash: try AppleRevocationStore.subjectHash(fresh.claimedSubject, config: context.config), db: db,
            now: context.now)
        return (.scheduled, plan)
    }
}
