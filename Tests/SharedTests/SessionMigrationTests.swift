import Testing
@testable import Shared

/// The sliding-sessions migration keeps every session that was live before it working.
@Suite struct SessionMigrationTests {
    @Test func sessionsFromBeforeKeepWorkingWithAnIdAndTheirTimes() throws {
        try withStoreDirectory { dir in
            // The schema as it was just before this migration, wherever the merge puts it.
            let before = try #require(Migrations.scripts.firstIndex(of: Migrations.slidingSessions))
            let token = Base64URL.encode([UInt8](repeating: 7, count: 32))
            do {
                let db = try Database(path: dir.databasePath, upTo: before)
                try db.run("INSERT INTO accounts (id, created_at) VALUES ('old-account', 10)")
                for (hash, expiry) in [(Sessions.hash(token), Int64(5_000_000_000)), (Array("other".utf8), 5_000_000_001)] {
                    try db.run(
                        "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES (?, 'old-account', 100, ?)",
                        [.blob(hash), .integer(expiry)])
                }
            }
            let db = try Database(path: dir.databasePath)
            #expect(try storeVersion(db) == Int64(Database.schemaVersion))
            let policy = SessionPolicy(lifetimeSeconds: 60, renewAfterSeconds: 10, maxLifetimeSeconds: nil)
            #expect(try Sessions.accountId(in: db, token: token, now: 1000, policy: policy) == "old-account")
            let rows = try db.query(
                "SELECT session_id, device_name, created_at, last_used_at, expires_at FROM sessions ORDER BY expires_at")
            #expect(rows.count == 2)
            #expect(rows.first?.text(1) == nil)
            #expect(rows.first?.int(2) == 100 && rows.first?.int(3) == 100 && rows.first?.int(4) == 5_000_000_000)
            let ids = rows.compactMap { $0.text(0) }
            #expect(ids.count == 2 && Set(ids).count == 2)
            #expect(ids.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { Array("0123456789abcdef".utf8).contains($0) } })
            // The id is unique: a second row with it is refused by the index.
            #expect(throws: FrontdoorError.self) {
                try db.run(
                    """
                    INSERT INTO sessions (token_hash, session_id, account_id, created_at, last_used_at, expires_at)
                    VALUES (x'01', ?, 'old-account', 1, 1, 2)
                    """, [.text(ids[0])])
            }
            // They moved to the session file (`SessionFile`), and every one still checks.
            #expect(try db.query("SELECT count(*) FROM main.sessions").first?.int(0) == 2)
            #expect(try db.query("SELECT count(*) FROM store.sqlite_schema WHERE name = 'sessions'").first?.int(0) == 0)
        }
    }

    @Test func newSessionIdsAreRandomHexNotTheToken() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            try db.run("INSERT INTO accounts (id, created_at) VALUES ('a', 1)")
            let policy = SessionPolicy(lifetimeSeconds: 60, renewAfterSeconds: 10, maxLifetimeSeconds: nil)
            let first = try Sessions.create(in: db, accountId: "a", now: 100, policy: policy, deviceName: "Ada's iPhone")
            let second = try Sessions.create(in: db, accountId: "a", now: 100, policy: policy)
            #expect(first.sessionId != second.sessionId && first.sessionId.utf8.count == 32)
            #expect(!first.token.contains(first.sessionId) && first.expiresAt == 160)
            let row = try db.query(
                "SELECT device_name, created_at, last_used_at, expires_at FROM sessions WHERE session_id = ?",
                [.text(first.sessionId)]).first
            #expect(row?.text(0) == "Ada's iPhone" && row?.int(1) == 100 && row?.int(2) == 100 && row?.int(3) == 160)
        }
    }
}
