/// The `passkeys` table and the account's user handle (migration `passkeys`), in SQL PostgreSQL
/// takes as written. A passkey's public id is its credential id in base64url: the phone holds
/// it anyway, and it needs no second unique index.
enum PasskeyStore {
    /// An account's ways in, as every body lists them: its providers' names, then `passkey` when
    /// it has one (the password is the caller's, from the account's row). Bind the id twice.
    static let providersSQL = """
        SELECT provider FROM identities WHERE account_id = ? UNION SELECT 'passkey' FROM passkeys WHERE account_id = ? ORDER BY 1
        """

    static func providers(_ accountId: String, _ db: Database) throws(FrontdoorError) -> [String] {
        try db.query(providersSQL, [.text(accountId), .text(accountId)]).compactMap { $0.text(0) }
    }

    /// The account's WebAuthn user handle: 32 random bytes, made at its first registration.
    static func userHandle(_ accountId: String, db: Database) throws(FrontdoorError) -> [UInt8] {
        if let handle = try db.query("SELECT passkey_handle FROM accounts WHERE id = ?", [.text(accountId)]).first?.blob(0),
            !handle.isEmpty
        {
            return handle
        }
        let handle = try SecureRandom.bytes(32)
        try db.run("UPDATE accounts SET passkey_handle = ? WHERE id = ?", [.blob(handle), .text(accountId)])
        return handle
    }

    /// The most passkeys one account holds. A person needs one per place that keeps passkeys (a
    /// platform's synced keychain, a password manager, a security key, a work phone): a handful.
    /// 20 leaves room for all of them and bounds what every `register_begin` lists in
    /// `excludeCredentials` and `account get` lists, and what a stolen session can add.
    static let maximumPerAccount: Int64 = 20

    /// 409 `too_many_passkeys` when the account holds `maximumPerAccount` already.
    static func refuseIfFull(_ accountId: String, db: Database) throws(FrontdoorError) {
        let held = try db.query("SELECT count(*) FROM passkeys WHERE account_id = ?", [.text(accountId)]).first?.int(0) ?? 0
        guard held < maximumPerAccount else {
            throw FrontdoorError(
                .tooManyPasskeys, "This account has as many passkeys as it can hold. Delete one to add another.",
                detail: "passkey refused: the account holds \(held)")
        }
    }

    /// Stores a verified registration, with the session that added it (its public id, and when it
    /// was made: what `Takeback` judges by); `credential_taken` when the id is registered
    /// anywhere.
    static func insert(
        _ passkey: RegisteredPasskey, session: LiveSession, name: String?, db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        let inserted = try db.run(
            """
            INSERT INTO passkeys (credential_id, account_id, public_key, sign_count, backup_eligible, backup_state,
              transports, name, created_at, session_id, session_made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """,
            [.blob(passkey.credentialId), .text(session.accountId), .blob(passkey.publicKey),
             .integer(Int64(passkey.signCount)), .integer(passkey.backupEligible ? 1 : 0),
             .integer(passkey.backupState ? 1 : 0), .text(passkey.transports.joined(separator: ",")),
             name.map(SQLValue.text) ?? .null, .integer(now), .text(session.sessionId), .integer(session.createdAt)])
        guard inserted == 1 else {
            throw FrontdoorError(.credentialTaken, "This passkey is already registered.", detail: "credential id taken")
        }
    }

    /// The record a sign-in is checked against, and its account; nil for an unknown credential.
    static func find(_ credentialId: [UInt8], db: Database) throws(FrontdoorError) -> (String, StoredPasskey)? {
        let rows = try db.query(
            """
            SELECT p.account_id, p.public_key, p.sign_count, p.backup_eligible, p.backup_state, a.passkey_handle
            FROM passkeys p JOIN accounts a ON a.id = p.account_id WHERE p.credential_id = ?
            """,
            [.blob(credentialId)])
        guard let row = rows.first, let accountId = row.text(0), let key = row.blob(1), let handle = row.blob(5),
            let count = row.int(2), let signCount = UInt32(exactly: count)
        else { return nil }
        return (accountId, StoredPasskey(
            credentialId: credentialId, publicKey: key, signCount: signCount, backupEligible: row.int(3) == 1,
            backupState: row.int(4) == 1, userHandle: handle))
    }

    /// L3 section 7.2's update step, and the signals counted, never refused (rule 17).
    static func recordUse(_ credentialId: [UInt8], _ verified: VerifiedAssertion, db: Database, now: UnixTime)
        throws(FrontdoorError)
    {
        let backupChanged = verified.backupEligibilityChanged || verified.backupStateChanged
        try db.run(
            """
            UPDATE passkeys SET sign_count = ?, backup_eligible = ?, backup_state = ?, last_used_at = ?,
              counter_regressions = counter_regressions + ?, backup_changes = backup_changes + ?
            WHERE credential_id = ?
            """,
            [.integer(Int64(verified.signCount)), .integer(verified.backupEligible ? 1 : 0),
             .integer(verified.backupState ? 1 : 0), .integer(now), .integer(verified.counterWentBackwards ? 1 : 0),
             .integer(backupChanged ? 1 : 0), .blob(credentialId)])
    }

    /// `[{"passkeyId", "name", "createdAt", "lastUsedAt"}]`, oldest first.
    static func list(_ accountId: String, db: Database) throws(FrontdoorError) -> JSONValue {
        .array(try db.query(
            "SELECT credential_id, name, created_at, last_used_at FROM passkeys WHERE account_id = ? ORDER BY created_at, credential_id",
            [.text(accountId)]
        ).map { row -> JSONValue in
            .object([
                ("passkeyId", .string(Base64URL.encode(row.blob(0) ?? []))),
                ("name", row.text(1).map(JSONValue.string) ?? .null),
                ("createdAt", row.int(2).map { .string(Clock.rfc3339($0)) } ?? .null),
                ("lastUsedAt", row.int(3).map { .string(Clock.rfc3339($0)) } ?? .null),
            ])
        })
    }

    /// The account's credential ids, for `excludeCredentials`, with their transports.
    static func credentials(_ accountId: String, db: Database) throws(FrontdoorError) -> [([UInt8], [String])] {
        try db.query(
            "SELECT credential_id, transports FROM passkeys WHERE account_id = ? ORDER BY created_at, credential_id",
            [.text(accountId)]
        ).map { row in
            (row.blob(0) ?? [], (row.text(1) ?? "").split(separator: ",").map(String.init))
        }
    }

    /// Deletes one of the account's passkeys, and records it in the ledger (a restore must not
    /// bring it back); another account's id and an unknown one alike: 404.
    static func delete(_ passkeyId: String, accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        guard let id = Base64URL.decode(passkeyId), !id.isEmpty,
            try db.run("DELETE FROM passkeys WHERE credential_id = ? AND account_id = ?", [.blob(id), .text(accountId)]) == 1
        else { throw FrontdoorError(.notFound, "There is no such passkey of yours.") }
        try SecurityLedger.passkeyRemoved(id, accountId: accountId, db: db, now: now)
    }
}
