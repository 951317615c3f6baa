import DevSupport
import Testing
@testable import Shared

/// A request's store on PostgreSQL checks its schema with its first statement: a first plain
/// SELECT goes in the same write as the version read (one round trip, counted), and its rows
/// count only when the version is this code's.
@Suite struct StorePostgresFirstReadTests {
    /// A connection that checks the schema with its first statement, as a request's does.
    private func openLazily(_ store: TestStore) throws -> Database {
        try Database(postgres: try #require(store.url), boxPath: store.path, checkSchemaWithFirstStatement: true)
    }

    @Test func aFirstSelectOnACurrentStoreIsOneRoundTrip() throws {
        let store = try TestStore(.postgres)
        let eager = try store.open()
        try eager.run("INSERT INTO accounts (id, created_at) VALUES ('a1', 1)")
        let before = try #require(eager.postgresRoundTrips)
        #expect(try eager.query("SELECT id FROM accounts").map { $0.text(0) } == ["a1"])
        #expect(eager.postgresRoundTrips == before + 1)

        let db = try openLazily(store)
        defer { db.close() }
        #expect(db.postgresRoundTrips == 0, "nothing is read at open")
        #expect(try db.query("SELECT id FROM accounts WHERE created_at = ?", [.integer(1)]).map { $0.text(0) } == ["a1"])
        #expect(db.postgresRoundTrips == 1, "the version read and the SELECT in one round trip")
        #expect(try db.query("SELECT count(*) FROM accounts").first?.int(0) == 1)
        #expect(db.postgresRoundTrips == 2, "the version is read once")
    }

    /// A write, or a transaction, keeps the version read ahead of it.
    @Test func aFirstWriteReadsTheVersionFirst() throws {
        let store = try TestStore(.postgres)
        _ = try store.open()
        let db = try openLazily(store)
        defer { db.close() }
        try db.run("INSERT INTO accounts (id, created_at) VALUES ('a1', 1)")
        #expect(db.postgresRoundTrips == 2)
        let other = try openLazily(store)
        defer { other.close() }
        try other.transaction { () throws(FrontdoorError) in
            try other.run("INSERT INTO accounts (id, created_at) VALUES ('a2', 1)")
        }
        #expect(try other.query("SELECT count(*) FROM accounts").first?.int(0) == 2)
    }

    /// No schema yet: both statements fail (no such table), the store is migrated, and the
    /// SELECT runs again and answers.
    @Test func aStoreWithNoSchemaIsMigratedThenAnswers() throws {
        let store = try TestStore(.postgres)
        let db = try openLazily(store)
        defer { db.close() }
        #expect(try db.query("SELECT id FROM event_delivery").map { $0.int(0) } == [1])
        #expect(try db.query("SELECT version FROM schema_version").map { $0.int(0) } == [Int64(Database.schemaVersion)])
        #expect(try db.query("SELECT id FROM accounts").isEmpty)
    }

    /// A newer store is refused at the first statement, and the SELECT's rows, read in the same
    /// round trip, are not answered.
    @Test func aNewerStoreIsRefusedAndTheRowsAreNotUsed() throws {
        let store = try TestStore(.postgres)
        let eager = try store.open()
        try eager.run("INSERT INTO accounts (id, created_at) VALUES ('a1', 1)")
        try eager.run("UPDATE schema_version SET version = ?", [.integer(Int64(Database.schemaVersion + 1))])
        let db = try openLazily(store)
        defer { db.close() }
        let error = #expect(throws: FrontdoorError.self) { try db.query("SELECT id FROM accounts") }
        #expect(error?.code == .internal)
        #expect(error?.detail?.contains("newer than this program") == true)
        #expect(db.postgresRoundTrips == 2, "the pair, then migrate's own read of the version")
    }

    /// The first SELECT fails on the server while the version read succeeds: its error is
    /// answered, the schema counts as checked, and the connection goes on.
    @Test func aServerErrorInTheFirstSelectIsAnswered() throws {
        let store = try TestStore(.postgres)
        _ = try store.open()
        let db = try openLazily(store)
        defer { db.close() }
        #expect(throws: FrontdoorError.self) { try db.query("SELECT no_such_column FROM accounts") }
        #expect(db.postgresRoundTrips == 1)
        #expect(try db.query("SELECT count(*) FROM accounts").first?.int(0) == 0)
        #expect(db.postgresRoundTrips == 2, "the version is not read again")
    }

    @Test func onlyAPlainSelectGoesWithTheVersionRead() {
        #expect(PostgresDatabase.isPlainSelect("SELECT 1"))
        #expect(PostgresDatabase.isPlainSelect("\n  select\nid FROM accounts"))
        #expect(!PostgresDatabase.isPlainSelect("SELECTED"))
        #expect(!PostgresDatabase.isPlainSelect("WITH x AS (DELETE FROM accounts RETURNING id) SELECT id FROM x"))
        #expect(!PostgresDatabase.isPlainSelect("INSERT INTO accounts (id, created_at) VALUES ('a', 1)"))
        #expect(!PostgresDatabase.isPlainSelect("SELECT"))
    }
}
