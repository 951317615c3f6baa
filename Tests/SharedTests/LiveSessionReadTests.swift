import Testing
@testable import Shared

/// What the session check reads of a session and its account, the same on both engines; on
/// PostgreSQL the whole answer is one statement, one round trip through pgbouncer (issue 35).
@Suite struct LiveSessionReadTests {
    private static let hash: [UInt8] = Array(repeating: 7, count: 32)

    private func seed(_ db: Database, disabled: Bool = false) throws {
        try db.run(
            "INSERT INTO accounts (id, email, email_verified, password_hash, created_at, disabled_at) VALUES ('a1', 'ada@example.com', 1, 'h', 1, ?)",
            [disabled ? .integer(5) : .null])
        try db.run("INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('google', 'g1', 'a1', 1)")
        try db.run("INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('apple', 'x1', 'a1', 1)")
        try db.run(
            """
            INSERT INTO passkeys (credential_id, account_id, public_key, sign_count, backup_eligible, backup_state, transports, created_at)
            VALUES (?, 'a1', ?, 0, 0, 0, '', 1)
            """, [.blob([1, 2, 3]), .blob([4])])
        try db.run(
            """
            INSERT INTO passkeys (credential_id, account_id, public_key, sign_count, backup_eligible, backup_state, transports, created_at)
            VALUES (?, 'a1', ?, 0, 0, 0, '', 1)
            """, [.blob([5, 6]), .blob([4])])
        try db.run(
            "INSERT INTO sessions (token_hash, session_id, account_id, created_at, last_used_at, expires_at) VALUES (?, 's1', 'a1', 10, 20, 1000)",
            [.blob(Self.hash)])
    }

    /// A connection as a request opens one: on PostgreSQL the version read goes with the first SELECT.
    private func requestConnection(_ store: TestStore) throws -> Database {
        if let url = store.url { return try Database(postgres: url, boxPath: store.path, checkSchemaWithFirstStatement: true) }
        return try Database(path: store.path)
    }

    @Test(arguments: StoreEngine.allCases) func theWholeAnswerNamesEveryWayIn(_ engine: StoreEngine) throws {
        let store = try TestStore(engine)
        try seed(try store.open())
        let db = try requestConnection(store)
        defer { db.close() }
        let session = try #require(try LiveSession.read(db, tokenHash: Self.hash, now: 100, whole: true))
        #expect(session.accountId == "a1" && session.sessionId == "s1")
        #expect(session.createdAt == 10 && session.lastUsedAt == 20 && session.expiresAt == 1000)
        #expect(session.email == "ada@example.com" && session.emailVerified)
        #expect(session.providers == ["apple", "google", "passkey", "password"])
        if engine == .postgres { #expect(db.postgresRoundTrips == 1, "the version read and the one statement") }
    }

    @Test(arguments: StoreEngine.allCases) func anAccountWithNoOtherWayInListsNone(_ engine: StoreEngine) throws {
        let store = try TestStore(engine)
        let setup = try store.open()
        try setup.run("INSERT INTO accounts (id, created_at) VALUES ('a2', 1)")
        try setup.run(
            "INSERT INTO sessions (token_hash, session_id, account_id, created_at, last_used_at, expires_at) VALUES (?, 's2', 'a2', 10, 20, 1000)",
            [.blob(Self.hash)])
        let db = try requestConnection(store)
        defer { db.close() }
        let session = try #require(try LiveSession.read(db, tokenHash: Self.hash, now: 100, whole: true))
        #expect(session.providers == [] && session.email == nil && !session.emailVerified)
    }

    @Test(arguments: StoreEngine.allCases) func expiredDisabledAndUnknownAreNone(_ engine: StoreEngine) throws {
        let store = try TestStore(engine)
        try seed(try store.open(), disabled: true)
        let db = try requestConnection(store)
        defer { db.close() }
        for whole in [true, false] {
            #expect(try LiveSession.read(db, tokenHash: Self.hash, now: 100, whole: whole) == nil, "disabled")
        }
        try db.run("UPDATE accounts SET disabled_at = NULL")
        for whole in [true, false] {
            #expect(try LiveSession.read(db, tokenHash: Self.hash, now: 1000, whole: whole) == nil, "expired")
            #expect(try LiveSession.read(db, tokenHash: [UInt8](repeating: 8, count: 32), now: 100, whole: whole) == nil)
            #expect(try LiveSession.read(db, tokenHash: Self.hash, now: 999, whole: whole) != nil)
        }
    }
}
