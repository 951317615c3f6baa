import Testing
@testable import Shared

@Suite struct StoreTransactionTests {
    static let insertAccount = "INSERT INTO accounts (id, email_key, created_at) VALUES (?, ?, 1)"
    static let insertIdentity =
        "INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('google', ?, ?, 1)"

    static func count(_ db: Database, _ table: String) throws -> Int64? {
        try db.query("SELECT count(*) FROM \(table)").first?.int(0)
    }

    @Test(arguments: StoreEngine.allCases) func commits(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            let result = try db.transaction { () throws(FrontdoorError) -> String in
                try db.run(Self.insertAccount, [.text("a1"), .text("one@example.com")])
                try db.run(Self.insertIdentity, [.text("s1"), .text("a1")])
                return "done"
            }
            #expect(result == "done")
            let other = try store.open()
            #expect(try Self.count(other, "accounts") == 1)
            #expect(try Self.count(other, "identities") == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases) func throwingBodyRollsBack(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            let error = #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    try db.run(Self.insertAccount, [.text("a1"), .text("one@example.com")])
                    throw FrontdoorError.invalidRequest("changed my mind")
                }
            }
            #expect(error?.code == .invalidRequest)
            #expect(try Self.count(db, "accounts") == 0)
            // The connection is usable again, outside any transaction.
            try db.transaction { () throws(FrontdoorError) in try db.run(Self.insertAccount, [.text("a2"), .null]) }
            #expect(try Self.count(db, "accounts") == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases) func uniqueViolationLeavesNothingHalfWritten(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            try db.run(Self.insertAccount, [.text("a1"), .text("taken@example.com")])
            #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    try db.run(Self.insertAccount, [.text("a2"), .text("fresh@example.com")])
                    try db.run(Self.insertIdentity, [.text("s2"), .text("a2")])
                    try db.run(Self.insertAccount, [.text("a3"), .text("taken@example.com")])
                }
            }
            #expect(try db.query("SELECT id FROM accounts").map { $0.text(0) } == ["a1"])
            #expect(try Self.count(db, "identities") == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases) func foreignKeyViolationLeavesNothingHalfWritten(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            let error = #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    try db.run(Self.insertAccount, [.text("a1"), .null])
                    try db.run(Self.insertIdentity, [.text("s1"), .text("nobody")])
                }
            }
            #expect(error?.detail?.contains(engine == .sqlite ? "FOREIGN KEY constraint failed" : "23503") == true)
            #expect(try Self.count(db, "accounts") == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases) func refusesNesting(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    try db.run(Self.insertAccount, [.text("a1"), .null])
                    try db.transaction { () throws(FrontdoorError) in
                        try db.run(Self.insertAccount, [.text("a2"), .null])
                    }
                }
            }
            #expect(try Self.count(db, "accounts") == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases) func deletingAnAccountCascades(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            for id in ["a1", "a2"] {
                try db.run(Self.insertAccount, [.text(id), .null])
                try db.run(Self.insertIdentity, [.text("sub-\(id)"), .text(id)])
                try db.run(
                    "INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('apple', ?, ?, 1)",
                    [.text("sub-\(id)"), .text(id)])
                for n in 0..<2 {
                    try db.run(
                        """
                        INSERT INTO sessions (token_hash, session_id, account_id, created_at, last_used_at, expires_at)
                        VALUES (?, ?, ?, 1, 1, 2)
                        """,
                        [.blob(Array("\(id)-\(n)".utf8)), .text("\(id)-\(n)"), .text(id)])
                }
                try db.run(
                    """
                    INSERT INTO tickets (ticket_hash, account_id, provider, subject, methods, created_at, expires_at)
                    VALUES (?, ?, 'google', 's', 'password,email_code', 1, 2)
                    """,
                    [.blob(Array(id.utf8)), .text(id)])
            }
            #expect(try db.run("DELETE FROM accounts WHERE id = ?", [.text("a1")]) == 1)
            // On SQLite the sessions are in a file of their own, which no cascade reaches: a
            // deletion ends them by name (`AccountDeletion.remove`, `SessionFile`).
            if engine == .sqlite {
                #expect(try Self.count(db, "sessions") == 4)
                try db.run("DELETE FROM sessions WHERE account_id = ?", [.text("a1")])
            }
            for table in ["identities", "sessions", "tickets"] {
                let owners = try db.query("SELECT DISTINCT account_id FROM \(table)").map { $0.text(0) }
                #expect(owners == ["a2"], "\(table)")
            }
            #expect(try Self.count(db, "identities") == 2)
            #expect(try Self.count(db, "sessions") == 2)
        }
    }

    /// PostgreSQL: a transaction the server aborts for a conflict (here: a row another connection
    /// changed and committed after this transaction's snapshot) runs again from its start, and the
    /// second attempt sees the other's write.
    @Test func aSerializationFailureRunsTheWholeBodyAgain() throws {
        try withStore(.postgres) { db, store throws in
            let other = try store.open()
            try db.run(Self.insertAccount, [.text("a1"), .null])
            var attempts = 0
            let seen = try db.transaction { () throws(FrontdoorError) -> String? in
                attempts += 1
                let name = try db.query("SELECT name FROM accounts WHERE id = 'a1'").first?.text(0)
                if attempts == 1 { try other.run("UPDATE accounts SET name = 'other' WHERE id = 'a1'") }
                try db.run("UPDATE accounts SET name = ? WHERE id = 'a1'", [.text((name ?? "none") + "+mine")])
                return name
            }
            #expect(attempts == 2)
            #expect(seen == "other")
            #expect(try other.query("SELECT name FROM accounts WHERE id = 'a1'").first?.text(0) == "other+mine")
        }
    }

    /// A conflict at every attempt gives up with 503 once the retry budget or the attempts
    /// (`PostgresDatabase.maxAttempts`) run out, and nothing of the body stays.
    @Test func aConflictThatStaysIsUnavailable() throws {
        try withStore(.postgres) { db, store throws in
            let other = try store.open()
            try db.run(Self.insertAccount, [.text("a1"), .null])
            var attempts = 0
            let error = #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    attempts += 1
                    _ = try db.query("SELECT name FROM accounts WHERE id = 'a1'")
                    try other.run("UPDATE accounts SET name = ? WHERE id = 'a1'", [.text("other \(attempts)")])
                    try db.run(Self.insertIdentity, [.text("s\(attempts)"), .text("a1")])
                    try db.run("UPDATE accounts SET name = 'mine' WHERE id = 'a1'")
                }
            }
            #expect(attempts > 1 && attempts <= PostgresDatabase.maxAttempts)
            #expect(error?.code == .upstreamUnavailable)
            #expect(error?.detail?.contains("40001") == true)
            #expect(try Self.count(db, "identities") == 0)
            #expect(try db.query("SELECT name FROM accounts").first?.text(0) == "other \(attempts)")
        }
    }

    /// A failed statement ends a PostgreSQL transaction where SQLite's goes on, so a body never
    /// swallows a store error: whatever it does next, the transaction does not commit on either.
    @Test(arguments: StoreEngine.allCases) func aSwallowedFailureStillFailsOnPostgres(_ engine: StoreEngine) throws {
        try withStore(engine) { db, _ throws in
            try db.run(Self.insertAccount, [.text("a1"), .text("taken@example.com")])
            let outcome = Result { () throws(FrontdoorError) in
                try db.transaction { () throws(FrontdoorError) in
                    try db.run(Self.insertAccount, [.text("a2"), .null])
                    _ = try? db.run(Self.insertAccount, [.text("a3"), .text("taken@example.com")])
                }
            }
            switch engine {
            case .sqlite:
                #expect(throws: Never.self) { try outcome.get() }
                #expect(try Self.count(db, "accounts") == 2)
            case .postgres:
                #expect(throws: FrontdoorError.self) { try outcome.get() }
                #expect(try Self.count(db, "accounts") == 1)
            }
        }
    }
}
