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
                    if try storeVersion(db) != Int64(Database.schemaVersion) {
                        failures.append("wrong user_version")
                    }
                } catch {
                    failures.append(error.description)
                }
            }
            #expect(failures.all == [])
            let db = try Database(path: path)
            let names = Set(try db.query("SELECT name FROM \(storeSchema(db)) WHERE type = 'table'").compactMap { $0.text(0) })
            #expect(names.isSuperset(of: ["accounts", "identities", "key_sets", "sessions", "tickets"]))
            #expect(try db.query("PRAGMA journal_mode").first?.text(0) == "wal")
        }
    }

    /// Many read-then-write transactions on one row lose no update. SQLite serialises them on
    /// its write lock; PostgreSQL runs them SERIALIZABLE, aborts those that conflict and runs them
    /// again within its retry budget. Every one commits on both, and the count is exactly the
    /// commits. (With four attempts and no time budget, 295 of 320 committed on PostgreSQL.)
    @Test(arguments: StoreEngine.allCases) func concurrentTransactionsLoseNoUpdate(_ engine: StoreEngine) throws {
        let store = try TestStore(engine)
        let setup = try store.open()
        try setup.run(
            engine == .sqlite
                ? "CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL) STRICT"
                : "CREATE TABLE counter (id bigint PRIMARY KEY, n bigint NOT NULL)")
        try setup.run("INSERT INTO counter (id, n) VALUES (1, 0)")
        let rounds = engine == .sqlite ? 50 : 20
        let failures = StoreCollector<String>()
        let committed = StoreCollector<Int>()
        let bodyRuns = StoreCollector<Int>()
        let start = StoreStartLine(Self.connections)
        let began = Clock.monotonicMillis()
        let (url, path) = (store.url, store.path)
        storeRunThreads(Self.connections) { _ in
            let opened = Result { () throws(FrontdoorError) -> Database in
                if let url { return try Database(postgres: url, boxPath: path) }
                return try Database(path: path)
            }
            guard case .success(let db) = opened else {
                failures.append("open: \(opened)")
                return
            }
            start.wait()
            var mine = 0
            var runs = 0
            for _ in 0..<rounds {
                do throws(FrontdoorError) {
                    try db.transaction { () throws(FrontdoorError) in
                        runs += 1
                        let n = try db.query("SELECT n FROM counter WHERE id = 1").first?.int(0) ?? -1
                        try db.run("UPDATE counter SET n = ? WHERE id = 1", [.integer(n + 1)])
                    }
                    mine += 1
                } catch {
                    failures.append(error.description)
                }
            }
            committed.append(mine)
            bodyRuns.append(runs)
        }
        let elapsed = Clock.monotonicMillis() - began
        let commits = committed.all.reduce(0, +)
        let runs = bodyRuns.all.reduce(0, +)
        print("StoreConcurrencyTests: \(engine) \(Self.connections)×\(rounds) transactions, \(commits) committed, "
              + "\(runs - commits) runs again after a conflict, in \(Int(elapsed)) ms")
        #expect(failures.all == [])
        let total = try setup.query("SELECT n FROM counter WHERE id = 1").first?.int(0)
        #expect(total == Int64(commits))
        #expect(commits == Self.connections * rounds)
    }
}
