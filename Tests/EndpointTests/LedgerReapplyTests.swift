#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 29, findings 3 and 8, on both engines: `reapply-deletions` over a store put back by other
/// means (PostgreSQL's own restore; here the rows a snapshot would hold, written back) ends again
/// what the providers' events, a join by code and the operator took away, and skips what an
/// attempt withdrew.
@Suite struct LedgerReapplyTests {
    /// The rows that security actions take away, as a snapshot taken now would hold them.
    struct Saved {
        static let sessions = "token_hash, session_id, account_id, device_name, created_at, last_used_at, expires_at"
        static let identities = "provider, subject, account_id, created_at, email_proven, blocked_at, mail_off_at"
        let sessions: [Row]
        let identities: [Row]
        let accounts: [Row]

        init(_ db: Database) throws {
            sessions = try db.query("SELECT \(Self.sessions) FROM sessions")
            identities = try db.query("SELECT \(Self.identities) FROM identities")
            accounts = try db.query("SELECT id, password_hash, password_version, disabled_at, email_verified FROM accounts")
        }

        /// What a restore of that snapshot does to these rows.
        func putBack(_ db: Database) throws {
            try db.transaction { () throws(FrontdoorError) in
                let conflicts = [
                    "ON CONFLICT DO NOTHING",
                    "ON CONFLICT (provider, subject) DO UPDATE SET blocked_at = excluded.blocked_at",
                ]
                for (table, columns, rows, conflict) in [
                    ("sessions", Self.sessions, sessions, conflicts[0]), ("identities", Self.identities, identities, conflicts[1]),
                ] {
                    let marks = Array(repeating: "?", count: columns.split(separator: ",").count).joined(separator: ", ")
                    for row in rows {
                        try db.run(
                            "INSERT INTO \(table) (\(columns)) VALUES (\(marks)) \(conflict)", (0..<row.count).map { row[$0] })
                    }
                }
                for row in accounts {
                    try db.run(
                        "UPDATE accounts SET password_hash = ?, password_version = ?, disabled_at = ?, email_verified = ? WHERE id = ?",
                        [row[1], row[2], row[3], row[4], row[0]])
                }
            }
        }
    }

    @Test func whatAStoreRestoredByOtherMeansBroughtBackIsTakenAwayAgain() throws {
        let p = try ProviderEventsWorld()
        let h = p.h
        // Someone typed the victim's address with a password; the victim joins with Google by code.
        let typed = try h.register("victim@gmail.com", "the squatter's password")
        let squatter = SignedIn(
            token: try #require(typed.body["sessionToken"]?.stringValue),
            accountId: try #require(typed.body["accountId"]?.stringValue),
            sessionId: try #require(typed.body["sessionId"]?.stringValue))
        let revoked = try h.signedIn("g-revoked", email: "revoked@gmail.com")
        let hijacked = try h.signedIn("g-hijacked", email: "hijacked@gmail.com")
        let purged = try h.signedIn("g-purged", email: "purged@gmail.com")
        #expect(try p.appleSignedIn("apple-purged", email: "purged@gmail.com").accountId == purged.accountId)
        let signedOut = try h.signedIn("g-operator-out", email: "operator.out@gmail.com")
        let unlinked = try h.signedIn("g-unlinked", email: "unlinked@gmail.com")
        #expect(try p.appleSignedIn("apple-unlinked", email: "unlinked@gmail.com").accountId == unlinked.accountId)
        let bystander = try h.signedIn("g-bystander", email: "bystander@gmail.com")
        let db = try h.database()
        let saved = try Saved(db)

        let proof = try h.signInGoogle(try h.google.token(sub: "g-victim", email: "victim@gmail.com"))
        let ticket = try #require(proof.body["ticket"]?.stringValue, "\(proof.rawBody)")
        #expect(try h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try #require(h.smtp.lastCode(to: "victim@gmail.com"))
        let joined = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(joined.status == 200, "\(joined.rawBody)")
        for (event, sub, reason) in [
            ("sessions-revoked", "g-revoked", nil), ("account-disabled", "g-hijacked", "hijacking"),
            ("account-purged", "g-purged", nil),
        ] as [(String, String, String?)] {
            let token = try p.google.securityEvent([FakeGoogle.riscEvent(event, sub: sub, reason: reason)])
            #expect(try p.risc(token).status == 202, "\(event)")
        }
        #expect(try h.admin(["sign-out", signedOut.accountId]).status == 0)
        #expect(try h.admin(["unlink", unlinked.accountId, "google"]).status == 0)

        try saved.putBack(db)
        // The check below can fail: the rows are back.
        for back in [squatter, revoked, hijacked, purged, signedOut] {
            #expect(try h.check(back.bearer).status == 200, "\(back.sessionId) is back")
        }
        #expect(try h.login("victim@gmail.com", "the squatter's password").status == 200)

        let run = try h.admin(["reapply-deletions", h.ledgerPath])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let reapplied = try #require(run.json["reapplied"], "\(run.json)")
        #expect(reapplied["passwordsCleared"] == 1 && reapplied["identitiesRemoved"] == 2, "\(reapplied)")
        #expect(reapplied["identityBlocksChanged"] == 1, "\(reapplied)")
        for gone in [squatter, revoked, hijacked, purged, signedOut] {
            #expect(try h.check(gone.bearer).status == 401, "\(gone.sessionId)")
        }
        #expect(try h.check(bystander.bearer).status == 200)
        #expect(try h.login("victim@gmail.com", "the squatter's password").status == 401)
        let blocked = try h.signInGoogle(try h.google.token(sub: "g-hijacked", email: "hijacked@gmail.com"))
        #expect(blocked.status == 401 && blocked.errorCode == "invalid_token", "\(blocked.rawBody)")
        for (account, left) in [(purged.accountId, ["apple"]), (unlinked.accountId, ["apple"])] {
            let providers = try db.query("SELECT provider FROM identities WHERE account_id = ?", [.text(account)])
                .compactMap { $0.text(0) }
            #expect(providers == left)
        }
        #expect(try StoreInvariants.violations(h.database()) == [])
    }

    /// Lines of an attempt that withdrew them (PostgreSQL ran the transaction again, or refused its
    /// COMMIT) are skipped; the same lines without the withdrawal are re-applied.
    @Test func withdrawnLinesAreSkipped() throws {
        let h = try Harness()
        let kept = try h.signedIn("g-withdrawn", email: "withdrawn@gmail.com")
        let gone = try h.signedIn("g-not-withdrawn", email: "not.withdrawn@gmail.com")
        let ledger = h.dir + "/handwritten.ledger"
        try h.writeText(ledger, """
            1700000000 attemptOne deleted \(kept.accountId)
            1700000000 attemptOne sessions \(kept.accountId) \(kept.sessionId)
            1700000001 attemptOne withdrawn
            1700000002 attemptTwo sessions \(gone.accountId) \(gone.sessionId)

            """)
        let run = try h.admin(["reapply-deletions", ledger])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.json["deletionsReapplied"] == 0 && run.json["withdrawnLines"] == 2, "\(run.json)")
        #expect(run.json["reapplied"]?["sessionsEnded"] == 1)
        #expect(try h.holds(kept.accountId))
        #expect(try h.check(kept.bearer).status == 200)
        #expect(try h.check(gone.bearer).status == 401)
    }
}
