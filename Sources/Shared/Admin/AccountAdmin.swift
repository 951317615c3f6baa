/// `frontdoor-admin`'s commands on one account (rule 14): what the person's own copy shows, and
/// what the operator may do to it. Each is one transaction on the live store.
enum AccountAdmin {
    /// `find <email or accountId>`: an address in any case (matched as sign-in matches it), else an
    /// id. The account as stored, plus its disabled state.
    static func find(_ key: String, session: AdminSession) throws -> (JSONValue, String) {
        let db = try session.database()
        let now = session.now
        return try db.transaction { () throws(FrontdoorError) -> Result<(JSONValue, String), AdminError> in
            let rows = key.contains("@")
                ? try db.query(
                    "SELECT id, disabled_at FROM accounts WHERE email_key = ?", [.text(EmailAddress.matchKey(key))])
                : try db.query("SELECT id, disabled_at FROM accounts WHERE id = ?", [.text(key)])
            guard let row = rows.first, let accountId = row.text(0) else {
                return .failure(.noAccount(key.contains("@") ? "that email" : "that id"))
            }
            guard case .object(var members) = try AccountData.stored(db, accountId: accountId, token: nil, now: now)
            else { throw .internal("admin: the account as stored is not an object") }
            members.append(("disabled", .bool(row.int(1) != nil)))
            members.append(("disabledAt", row.int(1).map { .string(Clock.rfc3339($0)) } ?? .null))
            return .success((.object([("account", .object(members))]), accountId))
        }.get()
    }

    /// `export <accountId>`: exactly what `account get` answers the person (no session is current).
    static func export(_ accountId: String, session: AdminSession) throws -> JSONValue {
        let db = try session.database()
        return try db.transaction { () throws(FrontdoorError) -> Result<JSONValue, AdminError> in
            guard try exists(accountId, db) else { return .failure(.noAccount("that id")) }
            return .success(try AccountData.stored(db, accountId: accountId, token: nil, now: session.now))
        }.get()
    }

    /// `disable <accountId>`: sign-ins then answer 403 `account_disabled`, and every session ends
    /// in the same transaction, with what they added or began (`Takeback`). Disabling a
    /// disabled account keeps its first time.
    static func disable(_ accountId: String, session: AdminSession) throws -> JSONValue {
        let db = try session.database()
        let ended = try db.transaction { () throws(FrontdoorError) -> Int? in
            guard try exists(accountId, db) else { return nil }
            try db.run(
                "UPDATE accounts SET disabled_at = coalesce(disabled_at, ?) WHERE id = ?",
                [.integer(session.now), .text(accountId)])
            try SecurityLedger.disabled(accountId, db: db, now: session.now)
            let ended = try SecurityLedger.endSessions(
                "DELETE FROM sessions WHERE account_id = ? RETURNING session_id", [.text(accountId)],
                accountId: accountId, db: db, now: session.now)
            try Takeback.run(
                accountId, sessionsMadeBy: session.now, db: db, config: session.config, now: session.now)
            return ended
        }
        guard let ended else { throw AdminError.noAccount("that id") }
        return .object([("accountId", .string(accountId)), ("disabled", true), ("ended", .number(Double(ended)))])
    }

    /// `enable <accountId>`: sign-ins work again (the sessions that disabling ended stay ended).
    static func enable(_ accountId: String, session: AdminSession) throws -> JSONValue {
        let db = try session.database()
        let changed = try db.transaction { () throws(FrontdoorError) -> Int in
            let changed = try db.run("UPDATE accounts SET disabled_at = NULL WHERE id = ?", [.text(accountId)])
            if changed == 1 { try SecurityLedger.enabled(accountId, db: db, now: session.now) }
            return changed
        }
        guard changed == 1 else { throw AdminError.noAccount("that id") }
        return .object([("accountId", .string(accountId)), ("disabled", false)])
    }

    /// `sign-out <accountId>`: every session ends at once, with the passkeys they added.
    static func signOut(_ accountId: String, session: AdminSession) throws -> JSONValue {
        let db = try session.database()
        let ended = try db.transaction { () throws(FrontdoorError) -> Int? in
            guard try exists(accountId, db) else { return nil }
            let ended = try SecurityLedger.endSessions(
                "DELETE FROM sessions WHERE account_id = ? RETURNING session_id", [.text(accountId)],
                accountId: accountId, db: db, now: session.now)
            try Takeback.run(
                accountId, sessionsMadeBy: session.now, db: db, config: session.config, now: session.now)
            return ended
        }
        guard let ended else { throw AdminError.noAccount("that id") }
        return .object([("accountId", .string(accountId)), ("ended", .number(Double(ended)))])
    }

    /// `delete <accountId>`: the person's own deletion (ledger line, audit row, `account.deleted`,
    /// the work after it), with no fresh Apple authorization to revoke with.
    static func delete(_ accountId: String, session: AdminSession) throws -> JSONValue {
        let context = try session.requestContext()
        let auditKey = try DeletionAudit.key(config: session.config)
        guard try AccountDeletion.deleteForOperator(accountId, ledger: .append, auditKey: auditKey, context: context)
        else { throw AdminError.noAccount("that id") }
        AccountDeletion.afterCommit(try context.database(), AppleRevocation.AfterAnswer(context: context, plan: nil))
        return .object([("accountId", .string(accountId)), ("deleted", true)])
    }

    static let unlinkable = ["apple", "google"]

    /// `unlink <accountId> <provider>`: for a person whose old provider account is gone and whose
    /// new one cannot join while the old identity holds the account's place. Never the last way in.
    static func unlink(_ accountId: String, provider: String, session: AdminSession) throws -> JSONValue {
        let db = try session.database()
        return try db.transaction { () throws(FrontdoorError) -> Result<JSONValue, AdminError> in
            guard let ways = try WaysIn.of(accountId, db: db) else { return .failure(.noAccount("that id")) }
            guard ways.contains(provider) else {
                return .failure(AdminError(.notFound, "The account has no \(provider) identity."))
            }
            guard WaysIn.remain(ways, without: provider) else {
                return .failure(AdminError(.unavailable, "Refused: \(provider) is the account's last way in."))
            }
            try db.run("DELETE FROM identities WHERE account_id = ? AND provider = ?", [.text(accountId), .text(provider)])
            try SecurityLedger.identityRemoved(provider, accountId: accountId, db: db, now: session.now)
            let left = try Events.linkedProviders(accountId, db)
            return .success(.object([
                ("accountId", .string(accountId)), ("unlinked", .string(provider)),
                ("providers", .array(left.map(JSONValue.string))),
            ]))
        }.get()
    }

    static func exists(_ accountId: String, _ db: Database) throws(FrontdoorError) -> Bool {
        try !db.query("SELECT 1 FROM accounts WHERE id = ?", [.text(accountId)]).isEmpty
    }
}
