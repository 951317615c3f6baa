/// What both providers' events may do to an account, inside the event's transaction (rule 16).
struct ProviderEventActions {
    let context: RequestContext
    let db: Database
    /// Read before the transaction: a deletion's audit row needs it.
    let auditKey: [UInt8]
    /// The event's time, no later than now: sessions made after it are the person's new ones.
    let time: UnixTime
    /// Set when a deletion committed work that must follow the answer.
    private(set) var deleted = false

    init(context: RequestContext, db: Database, auditKey: [UInt8], eventTime: UnixTime) {
        self.context = context
        self.db = db
        self.auditKey = auditKey
        time = min(eventTime, context.now)
    }

    /// At the start of each run of the event's transaction body: PostgreSQL may run it again after
    /// a conflict, and only the attempt that commits counts.
    mutating func startAttempt() {
        deleted = false
    }

    /// Ends the account's sessions from before the event.
    func endSessions(of accountId: String) throws(FrontdoorError) -> Int {
        try ProviderEventStore.endSessions(of: accountId, madeBy: time, db: db, now: context.now)
    }

    /// Google takes the account back (`account-disabled` for hijacking): the sessions from before
    /// the event end, and what they added or began goes (`Takeback`).
    func takeBack(_ accountId: String) throws(FrontdoorError) {
        _ = try endSessions(of: accountId)
        try Takeback.run(accountId, sessionsMadeBy: time, db: db, config: context.config, now: context.now)
    }

    /// The provider says the person's account there is gone (Apple `account-delete(d)`, Google
    /// `account-purged`). When it was the account's only way in (`WaysIn`: a passkey is one), the
    /// account goes by the one deletion every other deletion takes (audit row, `account.deleted`,
    /// the ledger line synced before the commit), without revoking Apple: Apple has already
    /// invalidated the tokens. Otherwise that identity goes and the sessions from before end.
    mutating func providerDeleted(_ provider: ProviderEventStore.Provider, subject: String, accountId: String)
        throws(FrontdoorError)
    {
        guard let doomed = try AccountDeletion.Doomed.read(accountId, db: db),
            let ways = try WaysIn.of(accountId, db: db)
        else {
            throw .internal("provider event: the identity's account was not there")
        }
        if !WaysIn.remain(ways, without: provider.rawValue) {
            try AccountDeletion.remove(
                doomed, revocation: doomed.appleSubjects.isEmpty ? .notApplicable : .notRequested, revocationId: nil,
                ledger: .append, auditKey: auditKey, db: db, config: context.config, now: context.now)
            deleted = true
        } else {
            try ProviderEventStore.removeIdentity(provider, subject: subject, accountId: accountId, db: db, now: context.now)
            _ = try endSessions(of: accountId)
        }
    }

    /// After the commit of a deletion (after the answer): the checkpoint that empties the WAL of
    /// the deleted rows, and whatever revocation retries are due, as every deletion does.
    func afterAnswer() {
        guard deleted else { return }
        let db = db
        let work = AppleRevocation.AfterAnswer(context: context, plan: nil)
        context.runAfterAnswer { AccountDeletion.afterCommit(db, work) }
    }

    /// The event's one line on stderr: its type and outcome, never a `sub`, email or `jti`.
    static func log(_ endpoint: String, types: String, outcome: String) {
        FileIO.log("frontdoor endpoint=\(endpoint) event=\(types) outcome=\(outcome)")
    }
}
