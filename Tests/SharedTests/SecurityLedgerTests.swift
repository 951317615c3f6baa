import Testing
@testable import Shared

/// The ledger's lines (issue 29): what they hold, and when a transaction writes them. A line is
/// appended and synced just before the COMMIT of the attempt that staged it; a body that throws
/// writes none, and on PostgreSQL an attempt refused at its COMMIT is followed by its withdrawal.
@Suite struct SecurityLedgerTests {
    @Test func everyLineReadsBackAsWritten() throws {
        let actions: [LedgerEntry.Action] = [
            .deleted, .sessionsEnded(["0123abcd0123abcd0123abcd0123abcd", "ffff"]), .passkeyRemoved("AQIDBA"),
            .passwordChanged("v3rsion_-"), .disabled, .enabled, .identityRemoved("google"), .identityBlocked("google"),
            .identityUnblocked("google"),
        ]
        for action in actions {
            let entry = LedgerEntry(time: 1_700_000_000, attempt: "attempt-1", accountId: "acc_ount-1", action: action)
            #expect(LedgerEntry.parse(Array(entry.line.utf8.dropLast())[...]) == entry, "\(entry.line)")
        }
        let withdrawn = LedgerEntry(time: 5, attempt: "a1", accountId: "", action: .withdrawn)
        #expect(withdrawn.line == "5 a1 withdrawn\n")
        #expect(LedgerEntry.parse(Array("5 a1 withdrawn".utf8)[...]) == withdrawn)
        // The form ledgers had before: a deletion.
        #expect(LedgerEntry.parse(Array("1700000000 AAAAAAAAAAAAAAAAAAAAAA".utf8)[...])
            == LedgerEntry(time: 1_700_000_000, attempt: nil, accountId: "AAAAAAAAAAAAAAAAAAAAAA", action: .deleted))
        for torn in [
            "", "1700000000", "x AAAA", "1700000000 a1 deleted", "1700000000 a1 sessions acc", "1700000000 a1 frobbed acc",
            "1700000000 a1 deleted acc extra", "1700000000 a1 unlinked acc Google", "1700000000 a1 sessions acc a,,b",
            "1700000000 a1 deleted a@b", "1700000000 a1 withdrawn acc",
        ] {
            #expect(LedgerEntry.parse(Array(torn.utf8)[...]) == nil, "\(torn)")
        }
    }

    static func insertAccount(_ db: Database, _ id: String) throws {
        try db.run("INSERT INTO accounts (id, created_at) VALUES (?, 1)", [.text(id)])
    }

    static func lines(_ store: TestStore) -> [LedgerEntry] {
        (try? LedgerFile.read(store.dir.path + "/" + LedgerFile.defaultName).entries) ?? []
    }

    /// Nothing is written for a body that throws, and a staged action outside a transaction is refused.
    @Test(arguments: StoreEngine.allCases) func aBodyThatThrowsWritesNoLine(_ engine: StoreEngine) throws {
        try withStore(engine) { db, store throws in
            try Self.insertAccount(db, "gone")
            #expect(throws: FrontdoorError.self) {
                try db.transaction { () throws(FrontdoorError) in
                    try SecurityLedger.deleted("gone", db: db, now: 1)
                    throw FrontdoorError.invalidRequest("changed my mind")
                }
            }
            #expect(Self.lines(store).isEmpty)
            #expect(throws: FrontdoorError.self) { try SecurityLedger.disabled("gone", db: db, now: 1) }
            try db.transaction { () throws(FrontdoorError) in
                try SecurityLedger.disabled("gone", db: db, now: 2)
                try SecurityLedger.sessionsEnded(["s1", "s2"], accountId: "gone", db: db, now: 2)
            }
            let written = Self.lines(store)
            #expect(written.map(\.action) == [.disabled, .sessionsEnded(["s1", "s2"])])
            #expect(Set(written.compactMap(\.attempt)).count == 1, "one attempt, one id")
        }
    }

    /// Finding 8: on PostgreSQL a transaction may be run again, and its second attempt may decide
    /// otherwise (here: not to delete). The first attempt's line was written before its COMMIT,
    /// which the server refused (write skew between two serializable transactions: the second to
    /// commit loses); its withdrawal follows it, and what re-applies the ledger skips both.
    @Test func anAttemptRefusedAtItsCommitWithdrawsItsLines() throws {
        try withStore(.postgres) { db, store throws in
            let other = try store.open()
            try Self.insertAccount(db, "a")
            try Self.insertAccount(db, "b")
            var attempts = 0
            try db.transaction { () throws(FrontdoorError) in
                attempts += 1
                guard attempts == 1 else { return }
                _ = try db.query("SELECT name FROM accounts WHERE id = 'a'")
                try db.run("UPDATE accounts SET name = 'mine' WHERE id = 'b'")
                try SecurityLedger.deleted("b", db: db, now: 1)
                // The other reads what this one wrote and writes what this one read, and commits first.
                try other.transaction { () throws(FrontdoorError) in
                    _ = try other.query("SELECT name FROM accounts WHERE id = 'b'")
                    try other.run("UPDATE accounts SET name = 'theirs' WHERE id = 'a'")
                }
            }
            #expect(attempts == 2, "the first attempt was refused at its COMMIT")
            let written = Self.lines(store)
            #expect(written.map(\.action) == [.deleted, .withdrawn], "\(written)")
            #expect(written.first?.attempt == written.last?.attempt)
            #expect(Reapply.effective(written).isEmpty)
        }
    }
}
