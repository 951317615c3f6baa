#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared

/// Which engine the endpoint, concurrency and crash suites run on: SQLite, or PostgreSQL with
/// `FRONTDOOR_TEST_STORE=postgres` (make test's second pass). The suites are the same; only the
/// harness's config and its direct reads of the store change. Suites about the SQLite file
/// itself are skipped on the PostgreSQL pass by the Makefile's `SQLITE_PASS_ONLY`, the one list.
enum TestStore {
    static let isPostgres: Bool = getenv("FRONTDOOR_TEST_STORE").map { String(cString: $0) } == "postgres"

    static var name: String { isPostgres ? "postgres" : "sqlite" }
}

/// One test's own PostgreSQL database, reached through pgbouncer as the test's OS user (the
/// stacks run as that user too); dropped with the harness.
final class TestPostgresDatabase: @unchecked Sendable {
    let pair: PostgresServers.Pair
    let name: String

    init(pair: PostgresServers.Pair? = nil) throws {
        self.pair = try pair ?? PostgresServers.shared()
        name = try PostgresServers.createDatabase(self.pair)
    }

    deinit { PostgresServers.dropDatabase(pair, name) }

    /// Through the given box's pgbouncer (the shared pair's by default).
    func url(through bouncer: PostgresServers.Pair? = nil) -> PostgresURL { (bouncer ?? pair).bouncer.database(name) }

    /// Straight to PostgreSQL as the owner, for what a test reads or plants behind the programs' back.
    var direct: PostgresURL { pair.direct.database(name) }
}

extension TestStore {
    /// The store's tables, in name order, whichever engine `db` is (not PostgreSQL's own
    /// `schema_version`, which SQLite keeps in its header).
    static func tableNames(_ db: Database) throws -> [String] {
        if db.isPostgres {
            return try db.query(
                """
                SELECT table_name FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name != 'schema_version'
                ORDER BY table_name
                """
            ).compactMap { $0.text(0) }
        }
        // The store attached beside its session file (`SessionFile`): the tables of both.
        return try db.query(
            """
            SELECT name FROM (SELECT name, type FROM main.sqlite_schema UNION ALL SELECT name, type FROM store.sqlite_schema)
            WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
            """
        ).compactMap { $0.text(0) }
    }

    /// A bytes column as upper-case hex, in SQL either engine runs (SQLite's `hex`, PostgreSQL's `encode`).
    static func hex(_ column: String, _ db: Database) -> String {
        db.isPostgres ? "upper(encode(\(column), 'hex'))" : "hex(\(column))"
    }
}
