import Testing
@testable import Shared

@Suite struct StoreQueryTests {
    static let values: [SQLValue] = [
        .null, .integer(0), .integer(-1), .integer(.min), .integer(.max),
        .text(""), .text("héllo wörld 😀 日本語"), .text("nul\u{0}inside"),
        .blob([]), .blob([0, 255, 1, 0]), .blob((0..<300).map { UInt8(truncatingIfNeeded: $0) }),
    ]

    @Test func everyValueRoundTrips() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            try db.run("CREATE TABLE t (v ANY) STRICT")
            for value in Self.values {
                try db.run("INSERT INTO t (v) VALUES (?)", [value])
            }
            let rows = try db.query("SELECT v, typeof(v) FROM t ORDER BY rowid")
            #expect(rows.map { $0[0] } == Self.values)
            #expect(rows[5].text(1) == "text")
            #expect(rows[8].text(1) == "blob")
            #expect(rows[8].blob(0) == [])
            #expect(rows[0].blob(0) == nil && rows[0].int(0) == nil && rows[0].text(0) == nil)
            #expect(rows[1].int(0) == 0 && rows[1].text(0) == nil)
        }
    }

    /// What each column type of the schema holds comes back as it went in, on both engines: a
    /// typed table, since PostgreSQL has no column of any type (SQLite's `ANY` above).
    @Test(arguments: StoreEngine.allCases) func everyTypedValueRoundTrips(_ engine: StoreEngine) throws {
        try withStore(engine) { db, _ throws in
            let integers: [Int64] = [0, -1, .min, .max, 42]
            let texts: [SQLValue] = [.null, .text(""), .text("héllo wörld 😀 日本語"), .text("x'y\"z\\? $1"), .text("a")]
            let blobs: [SQLValue] = [
                .null, .blob([]), .blob([0, 255, 1, 0]), .blob((0..<300).map { UInt8(truncatingIfNeeded: $0) }), .blob([0]),
            ]
            for n in 0..<integers.count {
                try db.run(
                    "INSERT INTO ephemeral (kind, key, number, value, note, expires_at) VALUES (1, ?, ?, ?, ?, 0)",
                    [.blob([UInt8(n)]), .integer(integers[n]), blobs[n], texts[n]])
            }
            let rows = try db.query("SELECT number, value, note, key = ? FROM ephemeral ORDER BY key", [.blob([2])])
            #expect(rows.map { $0.int(0) } == integers)
            #expect(rows.map { $0[1] } == blobs)
            #expect(rows.map { $0[2] } == texts)
            // A comparison's truth reads as 1 or 0 on both.
            #expect(rows.map { $0.int(3) } == [0, 0, 1, 0, 0])
            #expect(rows[1].blob(1) == [] && rows[0].blob(1) == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases) func cachedStatementsRebindEachTime(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            for i in 0..<3 {
                try db.run("INSERT INTO accounts (id, created_at) VALUES (?, ?)", [.text("a\(i)"), .integer(Int64(i))])
            }
            for i in 0..<3 {
                let rows = try db.query("SELECT created_at FROM accounts WHERE id = ?", [.text("a\(i)")])
                #expect(rows.map { $0.int(0) } == [Int64(i)])
            }
        }
    }

    @Test(arguments: StoreEngine.allCases) func runCountsChanges(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            for i in 0..<5 {
                let params: [SQLValue] = [.text("a\(i)"), .integer(Int64(i))]
                #expect(try db.run("INSERT INTO accounts (id, created_at) VALUES (?, ?)", params) == 1)
            }
            #expect(try db.run("UPDATE accounts SET name = ? WHERE created_at < ?", [.text("n"), .integer(3)]) == 3)
            #expect(try db.run("DELETE FROM accounts WHERE created_at >= ?", [.integer(1)]) == 4)
            #expect(try db.run("INSERT INTO accounts (id, created_at) VALUES ('a0', 9) ON CONFLICT DO NOTHING") == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases) func parametersStayData(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            let hostile = "x'); DROP TABLE accounts; -- \" ? ?1 :a $b"
            try db.run("INSERT INTO accounts (id, email, created_at) VALUES (?, ?, 1)", [.text("a1"), .text(hostile)])
            let found = try db.query("SELECT email FROM accounts WHERE email = ?", [.text(hostile)])
            #expect(found.map { $0.text(0) } == [hostile])
            let injected = try db.query("SELECT count(*) FROM accounts WHERE id = ?", [.text("a1' OR '1'='1")])
            #expect(injected.first?.int(0) == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases) func refusesSecondStatementAndWrongParameterCount(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            #expect(throws: FrontdoorError.self) { try db.run("SELECT 1; DROP TABLE accounts") }
            #expect(throws: FrontdoorError.self) { try db.query("SELECT ?", []) }
            #expect(throws: FrontdoorError.self) { try db.query("SELECT ?", [.null, .null]) }
            #expect(throws: FrontdoorError.self) { try db.query("SELEC 1") }
            #expect(try db.query("SELECT count(*) FROM accounts").first?.int(0) == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases) func errorsNameNoBoundValue(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            let email = "private.person@example.com"
            let insert = "INSERT INTO accounts (id, email_key, created_at) VALUES (?, ?, 1)"
            try db.run(insert, [.text("a1"), .text(email)])
            let error = #expect(throws: FrontdoorError.self) { try db.run(insert, [.text("a2"), .text(email)]) }
            #expect(error?.code == .internal)
            let named = engine == .sqlite ? "UNIQUE constraint failed: accounts.email_key" : "23505"
            #expect(error?.detail?.contains(named) == true)
            #expect(error?.detail?.contains(email) == false)
            #expect(error?.description.contains(email) == false)
        }
    }

    @Test func lockHeldPastTheTimeoutIsBusy() throws {
        try withStoreDirectory { dir in
            let holder = try Database(path: dir.databasePath)
            let waiter = try Database(path: dir.databasePath, busyTimeoutMillis: 50)
            try holder.transaction { () throws(FrontdoorError) in
                try holder.run("INSERT INTO accounts (id, created_at) VALUES ('a1', 1)")
                let start = Clock.monotonicMillis()
                let error = #expect(throws: FrontdoorError.self) {
                    try waiter.run("INSERT INTO accounts (id, created_at) VALUES ('a2', 1)")
                }
                let waited = Clock.monotonicMillis() - start
                #expect(error?.code == .upstreamUnavailable)
                #expect(error?.status == 503)
                #expect(waited >= 45 && waited < 1000)
            }
            // Readers are never blocked by a writer in WAL mode.
            #expect(try waiter.query("SELECT id FROM accounts").map { $0.text(0) } == ["a1"])
        }
    }
}
