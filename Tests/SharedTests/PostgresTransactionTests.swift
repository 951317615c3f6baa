import DevSupport
import Shared
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Transactions against the real servers: PostgreSQL's abort rule, conflicts provoked by the
/// test itself (two connections, interleaved step by step) reported as retryable, and pgbouncer
/// handing one client's transactions to different server connections.
@Suite struct PostgresTransactionTests {
    /// A table `(id bigint PRIMARY KEY, v bigint)` holding `rows`, dropped after `body`.
    static func withTable(_ url: PostgresURL, rows: [(Int64, Int64)] = [(1, 0), (2, 0)], _ body: (String) throws -> Void) throws {
        let setup = try PostgresConnection(url)
        defer { setup.close() }
        let table = PostgresServers.tableName("tx")
        try setup.run("CREATE TABLE \(table) (id bigint PRIMARY KEY, v bigint NOT NULL)")
        defer { _ = try? setup.run("DROP TABLE \(table)") }
        for (id, v) in rows { try setup.run("INSERT INTO \(table) VALUES ($1, $2)", [.integer(id), .integer(v)]) }
        try body(table)
    }

    @Test(arguments: ["bouncer", "direct"])
    func aFailedStatementAbortsTheTransactionAndTheClientRecovers(_ path: String) throws {
        let servers = try PostgresServers.shared()
        let url = path == "bouncer" ? servers.bouncer : servers.direct
        try Self.withTable(url) { table in
            let connection = try PostgresConnection(url)
            defer { connection.close() }
            try connection.begin()
            #expect(connection.transactionStatus == .inTransaction)
            try connection.run("INSERT INTO \(table) VALUES (3, 30)")
            #expect(throws: PostgresError.self) { try connection.run("INSERT INTO \(table) VALUES (3, 31)") }
            #expect(connection.transactionStatus == .failed)
            // PostgreSQL, unlike SQLite, refuses everything until the transaction ends.
            do {
                _ = try connection.query("SELECT count(*) FROM \(table)")
                Issue.record("a statement ran in an aborted transaction")
            } catch let error as PostgresError {
                #expect(error.sqlstate == "25P02")
            }
            // COMMIT of an aborted transaction rolls back without an error from the server: the client says so.
            do {
                try connection.commit()
                Issue.record("COMMIT of an aborted transaction passed for a commit")
            } catch let error as PostgresError {
                #expect(error.kind == .misuse)
            }
            #expect(connection.transactionStatus == .idle)
            #expect(try connection.query("SELECT count(*) FROM \(table) WHERE id = 3").rows[0][0] == .integer(0))

            // The next transaction works, and one whose body fails is rolled back whole.
            try connection.transaction { () throws(PostgresError) in
                try connection.run("INSERT INTO \(table) VALUES (4, 40)")
            }
            #expect(throws: PostgresError.self) {
                try connection.transaction { () throws(PostgresError) in
                    try connection.run("INSERT INTO \(table) VALUES (5, 50)")
                    try connection.run("INSERT INTO \(table) VALUES (4, 41)")
                }
            }
            #expect(connection.transactionStatus == .idle)
            let ids = try connection.query("SELECT id FROM \(table) ORDER BY id").rows.map { $0[0] }
            #expect(ids == [.integer(1), .integer(2), .integer(4)])
        }
    }

    @Test func beginInsideATransactionIsRefusedAndTheTransactionStands() throws {
        let url = try PostgresServers.shared().bouncer
        try Self.withTable(url) { table in
            let connection = try PostgresConnection(url)
            defer { connection.close() }
            try connection.begin()
            try connection.run("UPDATE \(table) SET v = 7 WHERE id = 1")
            #expect(throws: PostgresError.self) { try connection.begin() }
            #expect(throws: PostgresError.self) { try connection.transaction { () throws(PostgresError) in } }
            #expect(connection.transactionStatus == .inTransaction)
            try connection.commit()
            #expect(try connection.query("SELECT v FROM \(table) WHERE id = 1").rows[0][0] == .integer(7))
        }
    }

    /// A read the transaction's snapshot made, a concurrent commit to that row, then the
    /// transaction's own write: PostgreSQL must refuse it (40001), the same way every time.
    @Test(arguments: ["bouncer", "direct"])
    func aSerializationFailureIsReportedAsRetryable(_ path: String) throws {
        let servers = try PostgresServers.shared()
        let url = path == "bouncer" ? servers.bouncer : servers.direct
        try Self.withTable(url) { table in
            let first = try PostgresConnection(url)
            let second = try PostgresConnection(url)
            defer {
                first.close()
                second.close()
            }
            try first.begin()
            #expect(try first.query("SELECT v FROM \(table) WHERE id = 1").rows[0][0] == .integer(0))
            try second.run("UPDATE \(table) SET v = v + 1 WHERE id = 1")
            do {
                try first.run("UPDATE \(table) SET v = v + 1 WHERE id = 1")
                Issue.record("a write on a row changed since the snapshot went through")
            } catch let error as PostgresError {
                #expect(error.isSerializationFailure)
                #expect(!error.isDeadlock)
                #expect(error.isRetryable)
                #expect(error.frontdoorError.status == 503)
            }
            #expect(first.transactionStatus == .failed)
            try first.rollback()
            // The whole transaction again, now after the other's commit, goes through.
            try first.transaction { () throws(PostgresError) in
                try first.run("UPDATE \(table) SET v = v + 1 WHERE id = 1")
            }
            #expect(try second.query("SELECT v FROM \(table) WHERE id = 1").rows[0][0] == .integer(2))
        }
    }

    /// The same conflict inside `transaction`: the body runs again from BEGIN and both increments land.
    @Test func transactionRunsTheWholeBodyAgainAfterAConflict() throws {
        let url = try PostgresServers.shared().bouncer
        try Self.withTable(url) { table in
            let connection = try PostgresConnection(url)
            let rival = try PostgresConnection(url)
            defer {
                connection.close()
                rival.close()
            }
            var runs = 0
            let seen = try connection.transaction { () throws(PostgresError) -> Int64 in
                runs += 1
                let v = try connection.query("SELECT v FROM \(table) WHERE id = 1").rows[0].int(0) ?? -1
                if runs == 1 { try rival.run("UPDATE \(table) SET v = v + 10 WHERE id = 1") }
                try connection.run("UPDATE \(table) SET v = $1 WHERE id = 1", [.integer(v + 1)])
                return v
            }
            #expect(runs == 2)
            #expect(seen == 10)
            #expect(try rival.query("SELECT v FROM \(table) WHERE id = 1").rows[0][0] == .integer(11))

            // A conflict at every attempt: given up after `attempts`, with the conflict's error.
            var tries = 0
            do {
                try connection.transaction(attempts: 2) { () throws(PostgresError) in
                    tries += 1
                    _ = try connection.query("SELECT v FROM \(table) WHERE id = 2")
                    try rival.run("UPDATE \(table) SET v = v + 1 WHERE id = 2")
                    try connection.run("UPDATE \(table) SET v = v + 1 WHERE id = 2")
                }
                Issue.record("a transaction conflicting every time committed")
            } catch let error as PostgresError {
                #expect(error.isSerializationFailure)
            }
            #expect(tries == 2)
            #expect(connection.transactionStatus == .idle)
            #expect(try rival.query("SELECT v FROM \(table) WHERE id = 2").rows[0][0] == .integer(2))
        }
    }

    /// Two transactions each hold a row the other then asks for: PostgreSQL's deadlock check
    /// (after `deadlock_timeout`, 1 s) rolls one back with 40P01 and the other goes on.
    @Test func aDeadlockIsReportedAsSuchAndTheOtherGoesOn() throws {
        let url = try PostgresServers.shared().direct
        try Self.withTable(url) { table in
            let bothHold = StoreStartLine(2)
            let outcomes = Locked<[String]>([])
            storeRunThreads(2) { i in
                let mine = Int64(i + 1), theirs = Int64(2 - i)
                var outcome = "committed"
                do throws(PostgresError) {
                    let connection = try PostgresConnection(url, timeoutSeconds: 20)
                    defer { connection.close() }
                    try connection.begin()
                    try connection.run("UPDATE \(table) SET v = v + 1 WHERE id = $1", [.integer(mine)])
                    bothHold.wait()
                    do throws(PostgresError) {
                        try connection.run("UPDATE \(table) SET v = v + 1 WHERE id = $1", [.integer(theirs)])
                        try connection.commit()
                    } catch {
                        let deadlock = error.isDeadlock && error.isRetryable && !error.isSerializationFailure
                        outcome = deadlock ? "deadlock" : "other: \(error)"
                        try? connection.rollback()
                    }
                } catch {
                    outcome = "setup: \(error)"
                }
                outcomes.withLock { $0.append(outcome) }
            }
            #expect(outcomes.current.sorted() == ["committed", "deadlock"])
        }
    }

    /// pgbouncer's pool of two (`frontdoor_pair`), driven so the only server connection free for
    /// the client's second transaction is another one than its first's: the client carries no state
    /// from one to the next (unnamed statements), so both work.
    @Test func pgbouncerHandsConsecutiveTransactionsToDifferentServerConnections() throws {
        let servers = try PostgresServers.shared()
        let client = try PostgresConnection(servers.bouncerPair)
        let holder = try PostgresConnection(servers.bouncerPair)
        let other = try PostgresConnection(servers.bouncerPair)
        defer {
            client.close()
            holder.close()
            other.close()
        }
        func backend(_ c: PostgresConnection) throws -> Int64 {
            try c.query("SELECT pg_backend_pid()").rows[0].int(0) ?? -1
        }
        try client.begin()
        let firstServer = try backend(client)
        #expect(try client.query("SELECT $1::bigint * 2", [.integer(21)]).rows[0][0] == .integer(42))
        try holder.begin()
        let held = try backend(holder)
        #expect(held != firstServer)
        try client.commit()
        // The client's first server connection is the only free one: `other` takes it.
        try other.begin()
        #expect(try backend(other) == firstServer)
        try holder.commit()
        // Now only the one `holder` had is free.
        try client.begin()
        let secondServer = try backend(client)
        #expect(secondServer == held)
        #expect(secondServer != firstServer)
        #expect(try client.query("SELECT $1::text || $2::text", [.text("a"), .text("b")]).rows[0][0] == .text("ab"))
        try client.commit()
        try other.commit()
        // Outside explicit transactions each statement is one, on whichever is free.
        for i in 0..<20 {
            #expect(try client.query("SELECT $1::bigint", [.integer(Int64(i))]).rows[0][0] == .integer(Int64(i)))
        }
    }
}
