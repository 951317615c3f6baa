import DevSupport
import Testing
@testable import Shared

/// The two engines a store suite runs on: `@Test(arguments: StoreEngine.allCases)`, then
/// `withStore(engine) { store in … }`. The same test body, not a copy, shows each behaviour on both.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A fresh, empty store of one test on one engine: a SQLite file in a temporary folder, or a
/// database of its own on the test servers' PostgreSQL (made from `template0`, dropped at the end),
/// reached directly as its owner, since pgbouncer lists only the stack's own databases. The folder
/// holds the box's own files either way.
final class TestStore {
    let engine: StoreEngine
    let dir = StoreTempDirectory()
    let url: PostgresURL?
    private let pair: PostgresServers.Pair?
    private var opened: [Database] = []

    init(_ engine: StoreEngine) throws {
        self.engine = engine
        switch engine {
        case .sqlite:
            pair = nil
            url = nil
        case .postgres:
            let pair = try PostgresServers.shared()
            let name = PostgresServers.tableName("store")
            let admin = try PostgresConnection(pair.superuser)
            defer { admin.close() }
            try admin.query("CREATE DATABASE \(name) OWNER frontdoor TEMPLATE template0 ENCODING 'UTF8'")
            self.pair = pair
            url = PostgresURL(address: .unixSocket(directory: pair.dir, port: 5432), user: "frontdoor", database: name)
        }
    }

    /// The stem of the box's files (the SQLite file itself on SQLite).
    var path: String { url == nil ? dir.databasePath : dir.path + "/" + Config.boxFilesStem }

    /// A new connection to the store (its schema brought up to date), closed with the store.
    func open() throws -> Database {
        let db: Database
        if let url {
            db = try Database(postgres: url, boxPath: path)
        } else {
            db = try Database(path: path)
        }
        opened.append(db)
        return db
    }

    deinit {
        for db in opened { db.close() }
        guard let pair, let url else { return }
        if let admin = try? PostgresConnection(pair.superuser) {
            _ = try? admin.query("DROP DATABASE IF EXISTS \(url.database) WITH (FORCE)")
            admin.close()
        }
    }
}

/// Runs `body` with a fresh store on `engine` and its first connection.
func withStore<T>(_ engine: StoreEngine, _ body: (Database, TestStore) throws -> T) throws -> T {
    let store = try TestStore(engine)
    return try withExtendedLifetime(store) { try body(try store.open(), store) }
}
