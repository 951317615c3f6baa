import Shared

/// What must hold in the store whatever was killed or raced: SQLite's own integrity check, no
/// row that names a missing account, and no half-made account.
enum StoreInvariants {
    /// Each broken invariant as a sentence; empty when all hold.
    static func violations(_ db: Database) throws -> [String] {
        var found: [String] = []
        // SQLite's own checks of its file. PostgreSQL enforces foreign keys at every statement, and
        // a killed client cannot tear its pages: the checks below hold for both.
        if !db.isPostgres {
            let integrity = try db.query("PRAGMA integrity_check").map { $0.text(0) ?? "?" }
            if integrity != ["ok"] { found.append("integrity_check: \(integrity.joined(separator: "; "))") }
            let foreign = try db.query("PRAGMA foreign_key_check")
            if !foreign.isEmpty { found.append("foreign_key_check: \(foreign.count) rows") }
        }
        // Tables that belong to an account (an email ticket's account is NULL for a reset of an
        // address nobody has).
        for table in ["identities", "sessions", "tickets", "email_tickets", "passkeys"] {
            let orphans = try db.query(
                "SELECT count(*) FROM \(table) WHERE account_id NOT IN (SELECT id FROM accounts)").first?.int(0)
            if orphans != 0 { found.append("\(table): \(orphans ?? -1) rows without their account") }
        }
        // A code hangs off a join ticket or an email ticket: never off nothing.
        let strayCodes = try db.query("""
            SELECT count(*) FROM ephemeral c
            WHERE c.kind = \(Ephemeral.Kind.emailCode.rawValue)
              AND c.key NOT IN (SELECT ticket_hash FROM tickets)
              AND c.key NOT IN (SELECT ticket_hash FROM email_tickets)
            """).first?.int(0)
        if strayCodes != 0 { found.append("email_codes: \(strayCodes ?? -1) rows without their ticket") }
        // A relay sign-in kept for the phone's retry is kept under its spent nonce, never without it.
        let strayAttempts = try db.query(
            """
            SELECT count(*) FROM ephemeral
            WHERE kind = \(Ephemeral.Kind.relayAttempt.rawValue)
              AND substr(key, 1, 32) NOT IN (SELECT key FROM ephemeral WHERE kind = \(Ephemeral.Kind.nonce.rawValue))
            """).first?.int(0)
        if strayAttempts != 0 { found.append("relay_attempts: \(strayAttempts ?? -1) rows without their nonce") }
        // Every relay user record is in a state the clean-up knows, and past the window holds no token.
        let badRelay = try db.query("""
            SELECT count(*) FROM relay_cleanups
            WHERE state NOT IN ('token', 'admin', 'stuck') OR (state != 'token' AND refresh_token IS NOT NULL)
            """).first?.int(0)
        if badRelay != 0 { found.append("relay_cleanups: \(badRelay ?? -1) rows in no state or past the window with a token") }
        // Made by a provider sign-in: its identity went in with it. Made by signin-email: its password.
        // (A password that a restore took away leaves its version: the person resets it by mail.)
        let halfMade = try db.query("""
            SELECT count(*) FROM accounts a
            WHERE NOT EXISTS (SELECT 1 FROM identities i WHERE i.account_id = a.id) AND a.password_hash IS NULL
              AND a.password_version IS NULL
              AND NOT EXISTS (SELECT 1 FROM passkeys p WHERE p.account_id = a.id)
            """).first?.int(0)
        if halfMade != 0 { found.append("accounts: \(halfMade ?? -1) with neither an identity, a password nor a passkey") }
        // A passkey's account has the user handle its sign-ins are checked against.
        let handleless = try db.query("""
            SELECT count(*) FROM passkeys p JOIN accounts a ON a.id = p.account_id WHERE a.passkey_handle IS NULL
            """).first?.int(0)
        if handleless != 0 { found.append("passkeys: \(handleless ?? -1) of accounts without a user handle") }
        // A session is used (renewed) no earlier than its sign-in, expires after it, and has its
        // public id (the unique index keeps ids apart).
        let oddSessions = try db.query("""
            SELECT count(*) FROM sessions
            WHERE last_used_at < created_at OR expires_at <= created_at OR length(session_id) != 32
            """).first?.int(0)
        if oddSessions != 0 { found.append("sessions: \(oddSessions ?? -1) with impossible times or no id") }
        // The outbox: each account's oldest waiting event, and only it, is its head (the one that may go).
        let wrongHeads = try db.query("""
            SELECT count(*) FROM events e
            WHERE e.head != CASE WHEN e.seq = (SELECT min(seq) FROM events o WHERE o.account_id = e.account_id) THEN 1 ELSE 0 END
            """).first?.int(0)
        if wrongHeads != 0 { found.append("events: \(wrongHeads ?? -1) rows whose head mark is wrong") }
        return found
    }

    /// Deletion is all or nothing: each account a deletion was started for (killed or not) is
    /// either wholly there or gone with its audit row (`HMAC(auditKey, id)`), never both or
    /// neither; one whose deletion answered 200 is gone.
    static func deletionViolations(
        _ db: Database, _ deletions: [(accountId: String, answered: Bool)], auditKey: [UInt8]
    ) throws -> [String] {
        guard !deletions.isEmpty else { return [] }
        guard auditKey.count >= 32 else { return ["deletion_audit: no audit key beside the database"] }
        var found: [String] = []
        for (id, answered) in deletions {
            let present = try db.query("SELECT count(*) FROM accounts WHERE id = ?", [.text(id)]).first?.int(0) == 1
            let audited = try db.query(
                "SELECT count(*) FROM deletion_audit WHERE account_hash = ?",
                [.blob(HMACSHA256.mac(key: auditKey, message: Array(id.utf8)))]).first?.int(0) == 1
            if present == audited { found.append("\(id): account \(present ? "and" : "nor") its audit row") }
            if answered && present { found.append("\(id): deleted with 200, still there") }
        }
        return found
    }
}

extension StoreInvariants {
    /// Rule 13: every deletion that committed (the account gone) has its ledger line, synced
    /// before the commit. A line for an account still there is a deletion killed before it.
    static func ledgerViolations(
        _ db: Database, _ deletions: [(accountId: String, answered: Bool)], ledger: [String]
    ) throws -> [String] {
        let named = Set(ledger.compactMap { $0.split(separator: " ").last.map(String.init) })
        var found: [String] = []
        for (id, _) in deletions {
            let present = try db.query("SELECT count(*) FROM accounts WHERE id = ?", [.text(id)]).first?.int(0) == 1
            if !present && !named.contains(id) { found.append("\(id): deleted without its ledger line") }
        }
        return found
    }

    /// Account events against the store, after kills (issue 14): `taken` is what the receiver got
    /// (bodies, in arrival order), the outbox what waits. Every account has its `account.created`;
    /// every committed deletion (the account gone, its audit row there) its `account.deleted`;
    /// no event names an account whose change did not commit; and each account's first arrivals
    /// start with its creation and end with its deletion.
    static func eventViolations(
        _ db: Database, taken: [JSONValue], deletions: [String], auditKey: [UInt8]
    ) throws -> [String] {
        var found: [String] = []
        let waiting = try db.query("SELECT body FROM events ORDER BY seq").map {
            try JSONParser.parse(Array(($0.text(0) ?? "").utf8))
        }
        struct Seen { var types: Set<String> = []; var createdIds: Set<String> = [] }
        var byAccount: [String: Seen] = [:]
        for body in taken + waiting {
            guard let account = body["accountId"]?.stringValue, let type = body["type"]?.stringValue,
                let id = body["id"]?.stringValue
            else {
                found.append("an event without accountId, type or id: \(body.serialized)")
                continue
            }
            byAccount[account, default: Seen()].types.insert(type)
            if type == "account.created" { byAccount[account, default: Seen()].createdIds.insert(id) }
        }
        let accounts = Set(try db.query("SELECT id FROM accounts").compactMap { $0.text(0) })
        func audited(_ id: String) throws -> Bool {
            try db.query(
                "SELECT count(*) FROM deletion_audit WHERE account_hash = ?",
                [.blob(HMACSHA256.mac(key: auditKey, message: Array(id.utf8)))]).first?.int(0) == 1
        }
        for id in accounts.sorted() where byAccount[id]?.types.contains("account.created") != true {
            found.append("\(id): an account without its account.created event")
        }
        for id in deletions where !accounts.contains(id) {
            if try !audited(id) { continue }  // reported by deletionViolations
            if byAccount[id]?.types.contains("account.deleted") != true {
                found.append("\(id): deleted (audited) without its account.deleted event")
            }
        }
        for (id, seen) in byAccount.sorted(by: { $0.key < $1.key }) {
            if seen.createdIds.count > 1 { found.append("\(id): \(seen.createdIds.count) account.created events") }
            let gone = !accounts.contains(id)
            let committedDeletion = try gone && audited(id)
            if seen.types.contains("account.deleted") && !committedDeletion {
                found.append("\(id): an account.deleted event for a deletion that did not commit")
            }
            if gone && !seen.types.contains("account.deleted") {
                found.append("\(id): events for an account that does not exist and was not deleted")
            }
        }
        // Order per account, by first arrival of each event id.
        var arrived = Set<String>()
        var order: [String: [String]] = [:]
        for body in taken {
            guard let id = body["id"]?.stringValue, arrived.insert(id).inserted,
                let account = body["accountId"]?.stringValue, let type = body["type"]?.stringValue
            else { continue }
            order[account, default: []].append(type)
        }
        for (id, types) in order.sorted(by: { $0.key < $1.key }) {
            if let created = types.firstIndex(of: "account.created"), created != 0 {
                found.append("\(id): \(types[0]) arrived before account.created")
            }
            if let deleted = types.firstIndex(of: "account.deleted"), deleted != types.count - 1 {
                found.append("\(id): \(types[deleted + 1]) arrived after account.deleted")
            }
        }
        return found
    }
}
