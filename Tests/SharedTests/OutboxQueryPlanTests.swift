import Testing
@testable import Shared

/// Issue 19, item 7: every query the delivery runs inside the write lock is an index search, never
/// a scan of the outbox (with 200,000 events waiting each scan held the lock for tenths of a
/// second; what they cost now: `make bench`, `frontdoor-dev outbox-cost`). Read from SQLite's own
/// plans, so no timing is asserted.
@Suite struct OutboxQueryPlanTests {
    /// `EXPLAIN QUERY PLAN`'s detail lines for `sql`.
    func plan(_ db: Database, _ sql: String, _ params: [SQLValue]) throws -> [String] {
        try db.query("EXPLAIN QUERY PLAN " + sql, params).compactMap { $0.text(3) }
    }

    func waiting(_ db: Database, events: Int) throws {
        try db.transaction { () throws(FrontdoorError) in
            for i in 0..<events {
                let event = Event(
                    id: "plan-\(i)", kind: .created, accountId: "account-\(i / 2)", occurredAt: 1_800_000_000 + Int64(i),
                    providers: ["google"], provider: nil)
                try EventOutbox.insert(event, db)
            }
        }
    }

    @Test func theDeliverysQueriesSearchAnIndex() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            try waiting(db, events: 2000)
            let now: SQLValue = .integer(1_800_001_000)
            let cases: [(String, String, [SQLValue], [String])] = [
                ("nextDue", EventOutbox.nextDueSQL, [now], ["SEARCH events USING INDEX events_due (next_attempt_at<?)"]),
                ("nextAttemptAt", EventOutbox.nextAttemptAtSQL, [], ["SEARCH events USING INDEX events_due"]),
                ("expired", EventOutbox.expiredSQL, [now, .integer(100)],
                 ["SEARCH events USING INDEX events_created (created_at<?)"]),
                ("insert", EventOutbox.insertSQL,
                 [.text("x"), .text("account.created"), .text("a"), .text("{}"), now, now, .text("a")],
                 ["SEARCH events USING COVERING INDEX events_account (account_id=?)"]),
                ("remove", EventOutbox.removeSQL, [.integer(1)], ["SEARCH events USING INTEGER PRIMARY KEY (rowid=?)"]),
                ("promote", EventOutbox.promoteSQL, [.text("account-1")], [
                    "SEARCH events USING INTEGER PRIMARY KEY (rowid=?)",
                    "SEARCH events USING COVERING INDEX events_account (account_id=?)",
                ]),
                ("retryNow", EventOutbox.retryNowSQL, [now, now], ["SEARCH events USING INDEX events_due (next_attempt_at>?)"]),
            ]
            for (name, sql, params, expected) in cases {
                let lines = try plan(db, sql, params)
                // Whether SQLite reads the table beside the index is its choice (3.53 covers nextAttemptAt).
                for line in expected {
                    let covering = line.replacing("USING INDEX", with: "USING COVERING INDEX")
                    #expect(lines.contains(line) || lines.contains(covering), "\(name): \(lines)")
                }
                #expect(!lines.contains { $0.hasPrefix("SCAN") }, "\(name) scans: \(lines)")
                #expect(!lines.contains { $0.contains("TEMP B-TREE") }, "\(name) sorts: \(lines)")
            }
        }
    }

    /// The plans serve only if `head` is right: exactly each account's oldest waiting row, through
    /// writes, deliveries and drops alike.
    @Test func eachAccountsOldestWaitingRowIsItsOnlyHead() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            try waiting(db, events: 40)
            func heads() throws -> [Int64] {
                try db.query("SELECT seq FROM events WHERE head = 1 ORDER BY seq").compactMap { $0.int(0) }
            }
            func oldest() throws -> [Int64] {
                try db.query("SELECT min(seq) FROM events GROUP BY account_id ORDER BY 1").compactMap { $0.int(0) }
            }
            #expect(try heads() == oldest() && heads().count == 20)
            try db.transaction { () throws(FrontdoorError) in
                // A head, a row behind a head, and one already gone.
                #expect(try EventOutbox.remove(seq: 1, db))
                #expect(try EventOutbox.remove(seq: 4, db))
                #expect(!(try EventOutbox.remove(seq: 1, db)))
            }
            #expect(try heads() == oldest() && heads().count == 20)
            #expect(try heads().first == 2)
        }
    }

    /// Rows from before the migration get their heads from it.
    @Test func theMigrationMarksTheHeadsOfWhatWaits() throws {
        try withStoreDirectory { dir in
            let before = try #require(Migrations.scripts.firstIndex(of: Migrations.outboxHeads))
            do {
                let db = try Database(path: dir.databasePath, upTo: before)
                for (i, account) in ["a", "b", "a", "c", "b"].enumerated() {
                    try db.run(
                        "INSERT INTO events (id, type, account_id, body, created_at, next_attempt_at) VALUES (?, 't', ?, '{}', ?, ?)",
                        [.text("e\(i)"), .text(account), .integer(Int64(i)), .integer(Int64(i))])
                }
            }
            let db = try Database(path: dir.databasePath)
            let heads = try db.query("SELECT id FROM events WHERE head = 1 ORDER BY seq").compactMap { $0.text(0) }
            #expect(heads == ["e0", "e1", "e3"])
        }
    }
}
