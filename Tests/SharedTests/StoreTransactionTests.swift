import Testing
@testable import Shared

@Suite struct StoreTransactionTests {
    static let insertAccount = "INSERT INTO accounts (id, email_key, created_at) VALUES (?, ?, 1)"
    static let insertIdentity =
        "INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('google', ?, ?, 1)"

    static func count(_ db: Database, _ table: String) throws -> Int64? {
        try db.query("SELECT count(*) FROM \(table)").first?.int(0)
    }

    @Test func commits() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            let result = try db.transaction { () throws(FrontdoorError) -> String in
                try db.run(Self.insertAccount, [.text("a1"), .text("one@example.com")])
                try db.run(Self.insertIdentity, [.text("s1"), .text("a1")])
                return "done"
            }
            #expect(result == "done")
            let other = try Database(path: dir.databasePath)
            #expect(try Self.count(other, "accounts") == 1)
            #expect(try Self.count(other, "identities") == 1)
        }
    }

    @Test func throwingBodyRollsBack() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
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

    @Test func uniqueViolationLeavesNothingHalfWritten() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
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

    @Test func foreignKeyViolationLeavesNothingHalfWritten() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            let error = #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    try db.run(Self.insertAccount, [.text("a1"), .null])
                    try db.run(Self.insertIdentity, [.text("s1"), .text("nobody")])
                }
            }
            #expect(error?.detail?.contains("FOREIGN KEY constraint failed") == true)
            #expect(try Self.count(db, "accounts") == 0)
        }
    }

    @Test func refusesNesting() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
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

    @Test func deletingAnAccountCascades() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
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
            for table in ["identities", "sessions", "tickets"] {
                let owners = try db.query("SELECT DISTINCT account_id FROM \(table)").map { $0.text(0) }
                #expect(owners == ["a2"], "\(table)")
            }
            #expect(try Self.count(db, "identities") == 2)
            #expect(try Self.count(db, "sessions") == 2)
        }
    }
}
