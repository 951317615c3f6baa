/// Rule 13, "a restore brings nobody back", for every security action, not deletions alone: a
/// snapshot put back must not bring back a session that was ended, a passkey that was removed, a
/// password that was replaced, an identity that went, or open an account the operator disabled.
///
/// Each action is one call, inside the transaction that does it (after its own statements). The
/// call stages a line; `Database.transaction` appends and syncs the staged lines of an attempt
/// just before its COMMIT, so a body that throws writes none, and an attempt that PostgreSQL
/// aborts at its COMMIT (and runs again) is followed by a `withdrawn` line. A line whose commit
/// never came (the process killed between the sync and the commit, the connection lost at the
/// COMMIT) is re-applied like the others: it only ever takes away what its actor asked to take
/// away. The lines hold times and random ids (`LedgerEntry`), nothing about the person.
///
/// The calls, one per action (a new security action adds its call here):
/// - `deleted`: an account deletion (`AccountDeletion.remove` makes it).
/// - `endSessions`: any ending of sessions (sign-out of every scope, a reset, a join by code, a
///   disable, the operator's sign-out, a provider's event); `change_password` ends the others.
/// - `passkeyRemoved`: a passkey deleted, by the person or by a takeback (`Takeback`).
/// - `passwordChanged`: after any change of `password_hash` other than a rehash of the same
///   password (a reset, a join by code clearing a typed one, `change_password`, `set_password`,
///   `unlink` of the password).
/// - `addressChanged`: after `change_email` made a new address the account's.
/// - `disabled`, `enabled`: the operator's.
/// - `identityRemoved`: an identity unlinked (the operator's or the person's `unlink`, a
///   provider's deletion of one of several ways in, an unproven identity dropped by an inbox proof).
/// - `identityBlocked`, `identityUnblocked`: Google's `account-disabled` and `account-enabled`.
public enum SecurityLedger {
    /// What one attempt of one transaction has staged, and whether it was written.
    struct Stage {
        var entries: [(UnixTime, String, LedgerEntry.Action)] = []
        /// The attempt id of lines appended by this attempt, once they are.
        var written: String?
        var open = false
    }

    /// The most session ids on one line: a line stays short, whatever an account holds.
    static let sessionsPerLine = 64

    public static func deleted(_ accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        try stage(.deleted, accountId: accountId, db: db, now: now)
    }

    /// Runs `delete`, a `DELETE FROM sessions … RETURNING session_id`, and records what it ended;
    /// how many sessions that was. Unless it ends one session by its holder's or owner's choice
    /// (`oneChosen`), it moves the account's sessions epoch on: a sign-in in flight, whose session
    /// is made after its own commit on SQLite's session file, then makes none (`Sessions`).
    @discardableResult
    public static func endSessions(
        _ delete: String, _ params: [SQLValue], accountId: String, db: Database, now: UnixTime, oneChosen: Bool = false
    ) throws(FrontdoorError) -> Int {
        if !oneChosen {
            try db.run("UPDATE accounts SET sessions_epoch = sessions_epoch + 1 WHERE id = ?", [.text(accountId)])
        }
        let ids = try db.query(delete, params).compactMap { $0.text(0) }
        try sessionsEnded(ids, accountId: accountId, db: db, now: now)
        return ids.count
    }

    public static func sessionsEnded(_ ids: [String], accountId: String, db: Database, now: UnixTime)
        throws(FrontdoorError)
    {
        var start = 0
        while start < ids.count {
            let slice = Array(ids[start..<min(start + sessionsPerLine, ids.count)])
            try stage(.sessionsEnded(slice), accountId: accountId, db: db, now: now)
            start += sessionsPerLine
        }
    }

    public static func passkeyRemoved(_ credentialId: [UInt8], accountId: String, db: Database, now: UnixTime)
        throws(FrontdoorError)
    {
        try stage(.passkeyRemoved(Base64URL.encode(credentialId)), accountId: accountId, db: db, now: now)
    }

    /// Call after the statement that set the account's new `password_hash` (or NULL): the row
    /// gets a new random `password_version`, which the line records. A restore then clears a
    /// password whose version is not the last one the ledger names: that hash predates a change.
    public static func passwordChanged(_ accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        let version = Base64URL.encode(try SecureRandom.bytes(12))
        try db.run("UPDATE accounts SET password_version = ? WHERE id = ?", [.text(version), .text(accountId)])
        try stage(.passwordChanged(version), accountId: accountId, db: db, now: now)
    }

    /// Call after the statement that gave the account its new address (`change_email`): as for a
    /// password, the row gets a new random `email_version` that the line records. The ledger holds
    /// no address, so a restore cannot put the new one back: an account left with an older address
    /// is disabled until the operator has heard from its owner (`Reapply`), since mail to an
    /// address the person left could take the account.
    public static func addressChanged(_ accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        let version = Base64URL.encode(try SecureRandom.bytes(12))
        try db.run("UPDATE accounts SET email_version = ? WHERE id = ?", [.text(version), .text(accountId)])
        try stage(.addressChanged(version), accountId: accountId, db: db, now: now)
    }

    public static func disabled(_ accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        try stage(.disabled, accountId: accountId, db: db, now: now)
    }

    public static func enabled(_ accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        try stage(.enabled, accountId: accountId, db: db, now: now)
    }

    public static func identityRemoved(_ provider: String, accountId: String, db: Database, now: UnixTime)
        throws(FrontdoorError)
    {
        try stage(.identityRemoved(provider), accountId: accountId, db: db, now: now)
    }

    public static func identityBlocked(_ provider: String, accountId: String, db: Database, now: UnixTime)
        throws(FrontdoorError)
    {
        try stage(.identityBlocked(provider), accountId: accountId, db: db, now: now)
    }

    public static func identityUnblocked(_ provider: String, accountId: String, db: Database, now: UnixTime)
        throws(FrontdoorError)
    {
        try stage(.identityUnblocked(provider), accountId: accountId, db: db, now: now)
    }

    static func stage(_ action: LedgerEntry.Action, accountId: String, db: Database, now: UnixTime)
        throws(FrontdoorError)
    {
        guard db.ledgerStage.open else { throw .internal("ledger: a security action outside a transaction") }
        guard LedgerEntry.isId(accountId) else { throw .internal("ledger: an account id that is not one") }
        db.ledgerStage.entries.append((now, accountId, action))
    }

    // MARK: - What Database.transaction calls

    /// At the start of each attempt: nothing staged yet.
    static func beginAttempt(_ db: Database) {
        db.ledgerStage = Stage(open: true)
    }

    /// Just before the COMMIT: the attempt's lines appended and synced in one write.
    static func flush(_ db: Database) throws(FrontdoorError) {
        let entries = db.ledgerStage.entries
        guard !entries.isEmpty else { return }
        let attempt = Base64URL.encode(try SecureRandom.bytes(8))
        var bytes: [UInt8] = []
        for (time, accountId, action) in entries {
            bytes += Array(LedgerEntry(time: time, attempt: attempt, accountId: accountId, action: action).line.utf8)
        }
        try LedgerFile.append(bytes, path: db.ledgerPath, databasePath: db.path)
        db.ledgerStage.written = attempt
        if entries.contains(where: { $0.2 == .deleted }) { TestHooks.pause("deletion-ledger-written") }
        TestHooks.pause("ledger-written")
    }

    /// After an attempt whose lines were written and that certainly did not commit: says so, so a
    /// re-application skips them. If this line cannot be written, they stay, and are re-applied
    /// as the lines of a commit that never came are.
    static func withdraw(_ db: Database) {
        guard let attempt = db.ledgerStage.written else { return }
        db.ledgerStage.written = nil
        let line = LedgerEntry(time: Clock.now(), attempt: attempt, accountId: "", action: .withdrawn).line
        do {
            try LedgerFile.append(Array(line.utf8), path: db.ledgerPath, databasePath: db.path)
        } catch {
            SysLog.warning("frontdoor ledger=withdraw-failed detail=\(error.detail ?? error.message)")
        }
    }

    /// When the transaction is over, whichever way.
    static func close(_ db: Database) {
        db.ledgerStage = Stage()
    }
}
