import Testing
@testable import Shared

/// Issue 21, the rule for indexes (docs/performance.md): each index a query needs, and no more.
/// The statements on `ephemeral` (a subject's relay marks by a range of the key, an account's
/// codes through its tickets) and the housekeeping that lost `apple_revocations_until` search an
/// index, never scan a table inside the write lock. Read from SQLite's own plans.
@Suite struct StoreQueryPlanTests {
    func plan(_ db: Database, _ sql: String, _ params: [SQLValue]) throws -> [String] {
        try db.query("EXPLAIN QUERY PLAN " + sql, params).compactMap { $0.text(3) }
    }

    @Test func ephemeralAndHousekeepingSearchAnIndex() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            // Enough rows that a scan would be SQLite's choice only without an index.
            try db.transaction { () throws(FrontdoorError) in
                for i in 0..<500 {
                    _ = try Ephemeral.claim(.nonce, key: SHA256.hash(Array("n\(i)".utf8)), until: Int64(i), db: db)
                }
            }
            try db.run("ANALYZE")
            let k: SQLValue = .integer(1)
            let key: SQLValue = .blob([1])
            let byKey = "SEARCH ephemeral USING PRIMARY KEY (kind=? AND key=?)"
            let housekeeping = Dictionary(uniqueKeysWithValues: Housekeeping.statements.map { ($0.table, $0.sql) })
            let cases: [(String, String, [SQLValue], [String])] = [
                ("claim", """
                    INSERT INTO ephemeral (kind, key, since, value, note, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """, [k, key, k, key, .text("n"), k], []),
                ("entry", "SELECT number, since, value, note, expires_at FROM ephemeral WHERE kind = ? AND key = ?",
                 [k, key], [byKey]),
                ("bump", "UPDATE ephemeral SET number = number + 1 WHERE kind = ? AND key = ?", [k, key], [byKey]),
                ("lease", """
                    UPDATE ephemeral SET since = ? WHERE kind = ? AND key = ? AND expires_at > ? AND since <= ?
                    RETURNING number, since, value, note, expires_at
                    """, [k, k, key, k, k], [byKey]),
                ("earliest of a subject", "SELECT min(since) FROM ephemeral WHERE kind = ? AND key > ? AND key < ? AND key <> ?",
                 [k, key, key, key], ["SEARCH ephemeral USING PRIMARY KEY (kind=? AND key>? AND key<?)"]),
                ("clear a subject", "DELETE FROM ephemeral WHERE kind = ? AND key > ? AND key < ?", [k, key, key],
                 ["SEARCH ephemeral USING PRIMARY KEY (kind=? AND key>? AND key<?)"]),
                ("an account's codes", """
                    DELETE FROM ephemeral WHERE kind = ? AND key IN
                      (SELECT ticket_hash FROM tickets WHERE account_id = ?
                       UNION ALL SELECT ticket_hash FROM email_tickets WHERE account_id = ?)
                    """, [k, .text("a"), .text("a")],
                 ["SEARCH tickets USING INDEX tickets_account (account_id=?)",
                  "SEARCH email_tickets USING INDEX email_tickets_account (account_id=?)"]),
                ("count", "SELECT number FROM ephemeral WHERE kind = ? AND key = ? AND since = ?", [k, key, k], [byKey]),
                ("decrement", "UPDATE ephemeral SET number = number - 1 WHERE kind = ? AND key = ? AND since = ? AND number > 0",
                 [k, key, k], [byKey]),
                ("value", "SELECT value FROM ephemeral WHERE kind = ? AND key = ? AND expires_at > ?", [k, key, k], [byKey]),
                ("remove", "DELETE FROM ephemeral WHERE kind = ? AND key = ?", [k, key], [byKey]),
                ("prune", Ephemeral.pruneSQL, [k, .integer(50)],
                 [byKey, "SEARCH ephemeral USING COVERING INDEX ephemeral_expiry (expires_at<?)"]),
                ("apple_revocations expired", housekeeping["apple_revocations expired"] ?? "", [k, .integer(50)],
                 ["SEARCH apple_revocations USING INDEX apple_revocations_due (state=?)"]),
            ]
            for (name, sql, params, expected) in cases {
                let lines = try plan(db, sql, params)
                for line in expected {
                    let covering = line.replacing("USING INDEX", with: "USING COVERING INDEX")
                    #expect(lines.contains(line) || lines.contains(covering), "\(name): \(lines)")
                }
                #expect(!lines.contains { $0.hasPrefix("SCAN") }, "\(name) scans: \(lines)")
            }
        }
    }

    /// Issue 24: the passkeys' queries search the credential id or `passkeys_account`, the one
    /// index the table adds, and the ceremony is taken by its key.
    @Test func passkeyQueriesSearchAnIndex() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            try db.run("ANALYZE")
            let a: SQLValue = .text("a")
            let id: SQLValue = .blob([1])
            let byAccount = "SEARCH passkeys USING INDEX passkeys_account (account_id=?)"
            let byId = "SEARCH p USING PRIMARY KEY (credential_id=?)"
            let cases: [(String, String, [SQLValue], [String])] = [
                ("providers", PasskeyStore.providersSQL, [a, a],
                 ["SEARCH identities USING INDEX identities_account (account_id=?)", byAccount]),
                ("find", """
                    SELECT p.account_id, p.public_key, p.sign_count, p.backup_eligible, p.backup_state, a.passkey_handle
                    FROM passkeys p JOIN accounts a ON a.id = p.account_id WHERE p.credential_id = ?
                    """, [id], [byId]),
                ("list", "SELECT credential_id, name, created_at, last_used_at FROM passkeys WHERE account_id = ? ORDER BY created_at, credential_id",
                 [a], [byAccount]),
                ("delete", "DELETE FROM passkeys WHERE credential_id = ? AND account_id = ?", [id, a],
                 ["SEARCH passkeys USING PRIMARY KEY (credential_id=?)"]),
                ("take a ceremony", "DELETE FROM ephemeral WHERE kind = ? AND key = ? RETURNING number, since, value, note, expires_at",
                 [.integer(8), id], ["SEARCH ephemeral USING PRIMARY KEY (kind=? AND key=?)"]),
            ]
            for (name, sql, params, expected) in cases {
                let lines = try plan(db, sql, params)
                for line in expected {
                    let covering = line.replacing("USING INDEX", with: "USING COVERING INDEX")
                    #expect(lines.contains(line) || lines.contains(covering), "\(name): \(lines)")
                }
                #expect(!lines.contains { $0.hasPrefix("SCAN") }, "\(name) scans: \(lines)")
            }
        }
    }
}
