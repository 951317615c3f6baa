import Testing
@testable import Shared

/// Separate connections on separate threads: SQLite locks one connection against another within a
/// process exactly as it does across processes, so this is the many-CGI-processes case.
@Suite struct StoreConcurrencyTests {
    static let connections = 16

    @Test func manyConnectionsMigrateAFreshFileAtOnce() throws {
        try withStoreDirectory { dir in
            let path = dir.databasePath
            let failures = StoreCollector<String>()
            let start = StoreStartLine(Self.connections)
            storeRunThreads(Self.connections) { _ in
                start.wait()
                do throws(FrontdoorError) {
                    // A generous wait: the rest of the suite (Argon2id, process spawns) shares the two
                    // cores, and this test is about correctness under contention, not speed.
                    let db = try Database(path: path, busyTimeoutMillis: 30_000)
                    if try db.query("PRAGMA user_version").first?.int(0) != Int64(Database.schemaVersion) {
                        failures.append("wrong user_version")
                    }
                } catch {
                    failures.append(error.description)
                }
            }
            #expect(failures.all == [])
            let db = try Database(path: path)
            let names = Set(try db.query("SELECT name FROM sqlite_schema WHERE type = 'table'").compactMap { $0.text(0) })
            #expect(names.isSuperset(of: ["accounts", "identities", "key_sets", "sessions", "tickets"]))
            #expect(try db.query("PRAGMA journal_mode").first?.text(0) == "wal")
        }
    }

    @Test func concurrentImmediateTransactionsLoseNoUpdate() throws {
        try withStoreDirectory { dir in
            let path = dir.databasePath
            let setup = try Database(path: path)
            try setup.run("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL) STRICT")
            try setup.run("INSERT INTO counter (id, n) VALUES (1, 0)")
            let rounds = 50
            let failures = StoreCollector<String>()
            let start = StoreStartLine(Self.connections)
            let began = Clock.monotonicMillis()
            storeRunThreads(Self.connections) { _ in
                start.wait()
                do throws(FrontdoorError) {
                    let db = try Database(path: path)
                    for _ in 0..<rounds {
                        try db.transaction { () throws(FrontdoorError) in
                            let n = try db.query("SELECT n FROM counter WHERE id = 1").first?.int(0) ?? -1
                            try db.run("UPDATE counter SET n = ? WHERE id = 1", [.integer(n + 1)])
                        }
                    }
                } catch {
                    failures.append(error.description)
                }
            }
            let elapsed = Clock.monotonicMillis() - began
            print("StoreConcurrencyTests: \(Self.connections)×\(rounds) transactions in \(elapsed) ms")
            #expect(failures.all == [])
            let total = try setup.query("SELECT n FROM counter WHERE id = 1").first?.int(0)
            #expect(total == Int64(Self.connections * rounds))
        }
    }
}
