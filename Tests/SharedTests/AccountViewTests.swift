import CSQLite
import Testing
@testable import Shared

/// The account views in the session file (`AccountView`): every change to what one shows takes it
/// away in its own transaction, whatever statement makes it; nothing else does; the store is what
/// a view is built from.
@Suite struct AccountViewTests {
    private func seeded(_ dir: StoreTempDirectory) throws -> Database {
        let db = try Database(path: dir.databasePath)
        try db.transaction { () throws(FrontdoorError) in
            for id in ["a1", "a2"] {
                try db.run(
                    "INSERT INTO accounts (id, email, email_key, email_verified, created_at) VALUES (?, ?, ?, 1, 1)",
                    [.text(id), .text("\(id)@example.com"), .text("\(id)@example.com")])
                try db.run("INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('google', ?, ?, 1)",
                    [.text("g-\(id)"), .text(id)])
            }
            try db.run(
                """
                INSERT INTO passkeys (credential_id, account_id, public_key, sign_count, backup_eligible, backup_state, transports, created_at)
                VALUES (x'01', 'a1', x'04', 0, 0, 0, '', 1)
                """)
        }
        return db
    }

    private func views(_ db: Database) throws -> [String] {
        try db.query("SELECT account_id FROM main.account_views ORDER BY account_id").compactMap { $0.text(0) }
    }

    private func buildBoth(_ db: Database) throws {
        for id in ["a1", "a2"] { _ = try AccountView.built(db, accountId: id) }
        #expect(try views(db) == ["a1", "a2"])
    }

    /// Both accounts' views built, then `change` in a transaction of its own: the views left.
    private func viewsLeft(after change: String, _ dir: StoreTempDirectory) throws -> (Database, [String]) {
        let db = try seeded(dir)
        try buildBoth(db)
        try db.transaction { () throws(FrontdoorError) in try db.run(change) }
        return (db, try views(db))
    }

    @Test func aViewIsTheStoresAnswer() throws {
        try withStoreDirectory { dir in
            let db = try seeded(dir)
            let built = try #require(try AccountView.built(db, accountId: "a1"))
            #expect(built == AccountView(email: "a1@example.com", emailVerified: true, providers: ["google", "passkey"]))
            #expect(try AccountView.read(db, accountId: "a1") == built)
            #expect(try AccountView.built(db, accountId: "nobody") == nil)
            try db.transaction { () throws(FrontdoorError) in try db.run("UPDATE accounts SET disabled_at = 5 WHERE id = 'a2'") }
            #expect(try AccountView.built(db, accountId: "a2") == nil, "disabled")
        }
    }

    /// Each statement that changes what a view shows deletes that account's view, and the other's stays.
    @Test(arguments: [
        "UPDATE accounts SET email = 'new@example.com' WHERE id = 'a1'",
        "UPDATE accounts SET email = NULL WHERE id = 'a1'",
        "UPDATE accounts SET email_verified = 0 WHERE id = 'a1'",
        "UPDATE accounts SET password_hash = 'h' WHERE id = 'a1'",
        "UPDATE accounts SET disabled_at = 5 WHERE id = 'a1'",
        "INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('apple', 'x', 'a1', 1)",
        "DELETE FROM identities WHERE account_id = 'a1'",
        "UPDATE identities SET provider = 'apple' WHERE account_id = 'a1'",
        "UPDATE identities SET account_id = 'a2' WHERE account_id = 'a1'",
        "DELETE FROM passkeys WHERE account_id = 'a1'",
        """
        INSERT INTO passkeys (credential_id, account_id, public_key, sign_count, backup_eligible, backup_state, transports, created_at)
        VALUES (x'02', 'a1', x'04', 0, 0, 0, '', 1)
        """,
        "DELETE FROM accounts WHERE id = 'a1'",
    ])
    func aChangeToWhatItShowsTakesTheViewAway(_ change: String) throws {
        try withStoreDirectory { dir in
            let (db, left) = try viewsLeft(after: change, dir)
            #expect(!left.contains("a1"), "\(change)")
            // Moving an identity to a2 changes a2's view too.
            #expect(left == (change.contains("account_id = 'a2'") ? [] : ["a2"]), "\(change)")
            // Built again, it is the store's.
            if let again = try AccountView.built(db, accountId: "a1") {
                #expect(again == (try AccountView.fromStore(db, accountId: "a1")))
            }
        }
    }

    /// What a view does not show keeps it: a name, a passkey's use, an identity's flags.
    @Test(arguments: [
        "UPDATE accounts SET name = 'Ada' WHERE id = 'a1'",
        "UPDATE accounts SET email = 'a1@example.com', email_verified = 1 WHERE id = 'a1'",
        "UPDATE passkeys SET sign_count = 7, last_used_at = 9 WHERE account_id = 'a1'",
        "UPDATE identities SET email_proven = 0 WHERE account_id = 'a1'",
    ])
    func otherChangesKeepIt(_ change: String) throws {
        try withStoreDirectory { dir in
            let left = try viewsLeft(after: change, dir).1
            #expect(left == ["a1", "a2"], "\(change)")
        }
    }

    /// A transaction rolled back takes nothing away; one that touches more accounts than the hook
    /// holds takes every view away.
    @Test func aRollbackKeepsTheViewsAndTooManyChangesTakeAll() throws {
        try withStoreDirectory { dir in
            let db = try seeded(dir)
            try buildBoth(db)
            #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    try db.run("UPDATE accounts SET email_verified = 0")
                    throw FrontdoorError.internal("stop")
                }
            }
            #expect(try views(db) == ["a1", "a2"])
            try db.transaction { () throws(FrontdoorError) in
                for n in 0..<Int(FRONTDOOR_VIEW_IDS) {
                    try db.run("INSERT INTO accounts (id, created_at) VALUES (?, 1)", [.text("many-\(n)")])
                }
            }
            #expect(try views(db) == ["a1", "a2"], "as many as it holds, none of them viewed")
            try db.transaction { () throws(FrontdoorError) in
                for n in 0...Int(FRONTDOOR_VIEW_IDS) {
                    try db.run("UPDATE accounts SET email = 'm' WHERE id = ?", [.text("many-\(n)")])
                }
                try db.run("INSERT INTO accounts (id, created_at) VALUES ('one-more', 1)")
            }
            #expect(try views(db) == [])
        }
    }

    /// A change a test's set-up makes outside a transaction still takes the view away (after it).
    @Test func aChangeOutsideATransactionTakesItAwayAfter() throws {
        try withStoreDirectory { dir in
            let db = try seeded(dir)
            try buildBoth(db)
            try db.run("UPDATE accounts SET email_verified = 0 WHERE id = 'a2'")
            #expect(try views(db) == ["a1"])
        }
    }

    /// The hook reads the columns by their place in the store's tables.
    @Test func theHooksColumnsAreTheStores() throws {
        try withStoreDirectory { dir in
            let db = try seeded(dir)
            func column(_ table: String, _ name: String) throws -> Int64? {
                try db.query("SELECT cid FROM pragma_table_info(?, 'store') WHERE name = ?", [.text(table), .text(name)]).first?.int(0)
            }
            #expect(try column("accounts", "id") == Int64(FRONTDOOR_ACCOUNTS_ID))
            #expect(try column("accounts", "email") == Int64(FRONTDOOR_ACCOUNTS_EMAIL))
            #expect(try column("accounts", "email_verified") == Int64(FRONTDOOR_ACCOUNTS_EMAIL_VERIFIED))
            #expect(try column("accounts", "password_hash") == Int64(FRONTDOOR_ACCOUNTS_PASSWORD_HASH))
            #expect(try column("accounts", "disabled_at") == Int64(FRONTDOOR_ACCOUNTS_DISABLED_AT))
            #expect(try column("identities", "provider") == Int64(FRONTDOOR_IDENTITIES_PROVIDER))
            #expect(try column("identities", "account_id") == Int64(FRONTDOOR_IDENTITIES_ACCOUNT_ID))
            #expect(try column("passkeys", "account_id") == Int64(FRONTDOOR_PASSKEYS_ACCOUNT_ID))
        }
    }

    /// A snapshot put back, or a migration, may bring another store: the views go.
    @Test func takingOverASessionsTableForgetsTheViews() throws {
        try withStoreDirectory { dir in
            let db = try seeded(dir)
            try buildBoth(db)
            // As a restored snapshot does: the store with a sessions table of its own.
            try db.run("CREATE TABLE store.sessions AS SELECT * FROM main.sessions")
            db.close()
            let reopened = try Database(path: dir.databasePath)
            #expect(try views(reopened) == [])
        }
    }
}
