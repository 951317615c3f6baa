import Testing
@testable import Shared

/// The settings migration (rule 18): sessions from before it keep working but are never recent;
/// a new session is recent from its sign-in; a pending address change keeps its new address.
@Suite struct RecentSignInMigrationTests {
    @Test func sessionsFromBeforeAreNeverRecent() throws {
        try withStoreDirectory { dir in
            let before = try #require(Migrations.scripts.firstIndex(of: Migrations.settings))
            let token = Base64URL.encode([UInt8](repeating: 9, count: 32))
            do {
                let db = try Database(path: dir.databasePath, upTo: before)
                try db.run("INSERT INTO accounts (id, created_at) VALUES ('old', 10)")
                try db.run(
                    """
                    INSERT INTO sessions (token_hash, session_id, account_id, created_at, last_used_at, expires_at)
                    VALUES (?, 'old-session', 'old', 100, 100, 5000000000)
                    """, [.blob(Sessions.hash(token))])
            }
            let db = try Database(path: dir.databasePath)
            let policy = SessionPolicy(lifetimeSeconds: 60, renewAfterSeconds: 10, maxLifetimeSeconds: nil)
            #expect(try Sessions.accountId(in: db, token: token, now: 200, policy: policy) == "old")
            #expect(try db.query("SELECT signed_in_at FROM sessions").first?.int(0) == 0)
            #expect(throws: FrontdoorError(.reauthenticationRequired, "")) {
                try RecentSignIn.require(tokenHash: Sessions.hash(token), accountId: "old", db: db, policy: policy, now: 200)
            }
            let made = try Sessions.create(in: db, accountId: "old", now: 300, policy: policy)
            #expect(try db.query("SELECT signed_in_at FROM sessions WHERE session_id = ?", [.text(made.sessionId)])
                .first?.int(0) == 300)
            try RecentSignIn.require(tokenHash: Sessions.hash(made.token), accountId: "old", db: db, policy: policy, now: 900)
            #expect(throws: FrontdoorError(.reauthenticationRequired, "")) {
                try RecentSignIn.require(tokenHash: Sessions.hash(made.token), accountId: "old", db: db, policy: policy, now: 901)
            }
            #expect(try db.query("SELECT email FROM email_tickets").isEmpty)
        }
    }
}
