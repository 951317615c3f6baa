#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

/// Issue 35, the session file (`SessionFile`): a store from before moves its sessions into it in
/// place; a move killed between its two commits runs again whole; a snapshot's sessions (a
/// restore) move the same way; a lost session file costs a sign-in and nothing else.
@Suite struct SessionFileMigrationTests {
    static let before = Migrations.sessionFileVersion - 1
    static let policy = SessionPolicy(lifetimeSeconds: 600, renewAfterSeconds: 60, maxLifetimeSeconds: nil)

    /// A store at version 20 with two accounts and a session each, as the version before left it.
    static func olderStore(_ path: String) throws -> [String] {
        let db = try Database(path: path, upTo: before)
        defer { db.close() }
        var tokens: [String] = []
        for (n, account) in ["ada", "bo"].enumerated() {
            try db.run("INSERT INTO accounts (id, created_at) VALUES (?, 10)", [.text(account)])
            let token = Base64URL.encode([UInt8](repeating: UInt8(n + 1), count: 32))
            try db.run(
                """
                INSERT INTO sessions (token_hash, session_id, account_id, device_name, created_at, last_used_at, expires_at, signed_in_at)
                VALUES (?, ?, ?, 'phone', 100, 150, 5000000000, 120)
                """, [.blob(Sessions.hash(token)), .text("session-\(account)"), .text(account)])
            tokens.append(token)
        }
        return tokens
    }

    static func plain(_ path: String, _ sql: String) throws -> [Row] {
        let file = try SnapshotFile(path: path)
        defer { file.close() }
        return try file.rows(sql)
    }

    static func hasOwnSessions(_ storePath: String) throws -> Bool {
        try plain(storePath, "SELECT count(*) FROM sqlite_schema WHERE name = 'sessions'").first?.int(0) == 1
    }

    /// The session check's store, as `session` opens it for nginx.
    static func checkStore(_ path: String) throws -> Database {
        let config = try Config.parse(Array("{\"databasePath\": \"\(path)\"}".utf8), scope: .sessionCheck)
        return try Database.forSessionCheck(config: config, durability: .crashSafe)
    }

    @Test func anOlderStoreMovesItsSessionsInPlaceWhole() throws {
        try withStoreDirectory { dir in
            let tokens = try Self.olderStore(dir.databasePath)
            let before = try Self.plain(dir.databasePath, "SELECT \(SessionFile.columns) FROM sessions ORDER BY session_id")
            #expect(before.count == 2)
            // nginx's check finds no session file, so it opens the whole store, which moves them.
            let check = try Self.checkStore(dir.databasePath)
            #expect(!check.isSessionFileOnly)
            check.close()
            #expect(try !Self.hasOwnSessions(dir.databasePath))
            let sessions = SessionFile.path(dir.databasePath)
            let after = try Self.plain(sessions, "SELECT \(SessionFile.columns) FROM sessions ORDER BY session_id")
            #expect(after.map(\.values) == before.map(\.values))
            #expect(try Self.plain(sessions, "PRAGMA user_version").first?.int(0) == Int64(SessionFile.version))
            #expect(try Self.plain(dir.databasePath, "PRAGMA user_version").first?.int(0) == Int64(Database.schemaVersion))
            // From now on the check opens the session file alone, and every session still checks.
            let alone = try Self.checkStore(dir.databasePath)
            defer { alone.close() }
            #expect(alone.isSessionFileOnly)
            for (token, account) in zip(tokens, ["ada", "bo"]) {
                let judged = try Sessions.judged(alone, tokenHash: Sessions.hash(token), now: 200, policy: Self.policy, whole: false)
                #expect(judged.session.accountId == account)
            }
            let whole = try Database(path: dir.databasePath)
            defer { whole.close() }
            #expect(try Sessions.accountId(in: whole, token: tokens[0], now: 200, policy: Self.policy) == "ada")
            #expect(storeFileMode(sessions) == 0o600)
        }
    }

    /// What a process killed after the session file's commit and before the store's leaves: the
    /// copy, not marked filled, and the store's table. The next open replaces the copy from the
    /// store (nothing doubled, nothing lost) and finishes; nginx's check meanwhile does not trust it.
    @Test func aMoveKilledBetweenItsCommitsRunsAgainWhole() throws {
        try withStoreDirectory { dir in
            let tokens = try Self.olderStore(dir.databasePath)
            do {
                let store = try Database(path: dir.databasePath, upTo: Self.before)
                defer { store.close() }
                guard case .sqlite(let db) = store.engine else { return }
                // Killed before the store's commit: its transaction (and the drop in it) rolled back.
                _ = try? db.transaction { () throws(FrontdoorError) in
                    try SessionFile.takeOver(from: db)
                    throw FrontdoorError.internal("killed before the store's commit")
                }
                // A session the store then ends (as before the move): the copy must not keep it.
                try store.run("DELETE FROM sessions WHERE account_id = 'bo'")
            }
            let sessions = SessionFile.path(dir.databasePath)
            #expect(try Self.plain(sessions, "SELECT count(*) FROM sessions").first?.int(0) == 2)
            #expect(try Self.plain(sessions, "PRAGMA user_version").first?.int(0) == 0)
            let check = try Self.checkStore(dir.databasePath)
            #expect(!check.isSessionFileOnly, "a file not filled is not the check's")
            check.close()
            #expect(try Self.plain(sessions, "SELECT session_id FROM sessions").compactMap { $0.text(0) } == ["session-ada"])
            #expect(try Self.plain(sessions, "PRAGMA user_version").first?.int(0) == Int64(SessionFile.version))
            #expect(try !Self.hasOwnSessions(dir.databasePath))
            let whole = try Database(path: dir.databasePath)
            defer { whole.close() }
            #expect(try Sessions.accountId(in: whole, token: tokens[0], now: 200, policy: Self.policy) == "ada")
            #expect(throws: FrontdoorError(.unauthorized, "")) {
                try Sessions.accountId(in: whole, token: tokens[1], now: 200, policy: Self.policy)
            }
        }
    }

    /// A restored snapshot is a store at this version with its sessions inside (`Backup`), and the
    /// session file moved aside: the first open moves them as the migration does.
    @Test func aStoreAtThisVersionWithItsSessionsInsideMovesThemToo() throws {
        try withStoreDirectory { dir in
            let tokens = try Self.olderStore(dir.databasePath)
            do {
                let store = try Database(path: dir.databasePath, upTo: Self.before)
                store.close()
            }
            // The snapshot's layout: this version's number, its own sessions table.
            let file = try SnapshotFile(path: dir.databasePath)
            try file.execute("PRAGMA user_version = \(Database.schemaVersion)")
            file.close()
            let db = try Database(path: dir.databasePath)
            defer { db.close() }
            #expect(try !Self.hasOwnSessions(dir.databasePath))
            #expect(try Sessions.accountId(in: db, token: tokens[1], now: 200, policy: Self.policy) == "bo")
        }
    }

    @Test func aLostSessionFileSignsEveryoneOutAndNothingElse() throws {
        try withStoreDirectory { dir in
            let tokens = try Self.olderStore(dir.databasePath)
            try Database(path: dir.databasePath).close()
            for suffix in ["", "-wal", "-shm"] { unlink(SessionFile.path(dir.databasePath) + suffix) }
            let check = try Self.checkStore(dir.databasePath)
            #expect(!check.isSessionFileOnly)
            #expect(throws: FrontdoorError(.unauthorized, "")) {
                try Sessions.judged(check, tokenHash: Sessions.hash(tokens[0]), now: 200, policy: Self.policy, whole: false)
            }
            check.close()
            let db = try Database(path: dir.databasePath)
            defer { db.close() }
            #expect(try db.query("SELECT count(*) FROM accounts").first?.int(0) == 2)
            let made = try Sessions.create(in: db, accountId: "ada", now: 300, policy: Self.policy)
            #expect(try Sessions.accountId(in: db, token: made.token, now: 301, policy: Self.policy) == "ada")
            #expect(try Self.plain(SessionFile.path(dir.databasePath), "PRAGMA user_version").first?.int(0) == Int64(SessionFile.version))
        }
    }

    /// The check never parses the store's schema: its connection holds the session file's
    /// sessions (a table and three indexes) and the account views, nothing else.
    @Test func theChecksConnectionHoldsTheSessionFileAlone() throws {
        try withStoreDirectory { dir in
            _ = try Self.olderStore(dir.databasePath)
            try Database(path: dir.databasePath).close()
            let check = try Self.checkStore(dir.databasePath)
            defer { check.close() }
            #expect(check.isSessionFileOnly)
            let names = Set(try check.query("SELECT type, name FROM sqlite_schema").map { "\($0.text(0) ?? "") \($0.text(1) ?? "")" })
            #expect(names == [
                "table sessions", "index sessions_account", "index sessions_expiry", "index sessions_public_id",
                "table account_views",
            ])
            #expect(try check.query("PRAGMA database_list").count == 1, "nothing attached")
        }
    }

    /// A session file at version 1 (sessions without the account views) is not the check's until
    /// the next open of the store gives it the views' table; its sessions stay as they were.
    @Test func aSessionFileFromBeforeTheViewsGetsThemInPlace() throws {
        try withStoreDirectory { dir in
            let tokens = try Self.olderStore(dir.databasePath)
            try Database(path: dir.databasePath).close()
            let sessions = SessionFile.path(dir.databasePath)
            do {
                let file = try SQLiteDatabase(sessionFileOf: dir.databasePath, busyTimeoutMillis: 1000)
                defer { file.close() }
                try file.executeScript("DROP TABLE account_views; PRAGMA user_version = 1")
            }
            let rows = try Self.plain(sessions, "SELECT \(SessionFile.columns) FROM sessions ORDER BY session_id")
            let first = try Self.checkStore(dir.databasePath)
            #expect(!first.isSessionFileOnly, "a file at version 1 sends the check to the store, which brings it up")
            first.close()
            #expect(try Self.plain(sessions, "PRAGMA user_version").first?.int(0) == Int64(SessionFile.version))
            #expect(try Self.plain(sessions, "SELECT count(*) FROM account_views").first?.int(0) == 0)
            #expect(try Self.plain(sessions, "SELECT \(SessionFile.columns) FROM sessions ORDER BY session_id").map(\.values)
                == rows.map(\.values))
            let check = try Self.checkStore(dir.databasePath)
            defer { check.close() }
            #expect(check.isSessionFileOnly)
            for (token, account) in zip(tokens, ["ada", "bo"]) {
                #expect(try Sessions.accountId(in: check, token: token, now: 1000, policy: Self.policy) == account)
            }
        }
    }
}
