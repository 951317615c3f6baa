import DevSupport
import Shared
import Testing

/// Rule 3 of DESIGN.md: when an email may join an existing account.
@Suite struct JoiningTests {
    /// An account as another sign-in left it, written straight into the store.
    func seedAccount(
        _ h: Harness, email: String, verified: Bool, passwordHash: String? = nil, identity: (String, String)? = nil
    ) throws -> String {
        let db = try h.database()
        let id = "seed-\(email.hashValue & 0xffff)"
        try db.run(
            "INSERT INTO accounts (id, email, email_key, email_verified, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(id), .text(email), .text(EmailAddress.matchKey(email)), .integer(verified ? 1 : 0),
             passwordHash.map(SQLValue.text) ?? .null, .integer(Clock.now())])
        if let (provider, subject) = identity {
            try db.run(
                "INSERT INTO identities (provider, subject, account_id, created_at) VALUES (?, ?, ?, ?)",
                [.text(provider), .text(subject), .text(id), .integer(Clock.now())])
        }
        return id
    }

    @Test func verifiedGmailJoinsAVerifiedAccount() throws {
        let h = try Harness()
        let id = try seedAccount(h, email: "Lin@Gmail.com", verified: true, identity: ("apple", "apple-sub-1"))
        let answer = try h.signInGoogle(try h.google.token(sub: "g-join", email: "  lin@gmail.COM "))
        #expect(answer.status == 200)
        #expect(answer.body["accountId"]?.stringValue == id)
        #expect(answer.body["created"] == false)
        #expect(answer.body["providers"] == .array(["apple", "google"]))
        #expect(try h.count("accounts") == 1)
    }

    @Test func workspaceAddressWithHostedDomainJoins() throws {
        let h = try Harness()
        let id = try seedAccount(h, email: "kim@school.example", verified: true, identity: ("apple", "apple-sub-2"))
        let answer = try h.signInGoogle(
            try h.google.token(sub: "g-hd", email: "kim@school.example", overrides: [("hd", "school.example")]))
        #expect(answer.status == 200)
        #expect(answer.body["accountId"]?.stringValue == id)
    }

    @Test func typedEmailAccountAsksForProof() throws {
        let h = try Harness()
        let id = try seedAccount(h, email: "sam@gmail.com", verified: false, passwordHash: "$argon2id$seeded")
        let answer = try h.signInGoogle(try h.google.token(sub: "g-typed", email: "sam@gmail.com"))
        #expect(answer.status == 409)
        #expect(answer.errorCode == "proof_required")
        #expect(answer.body["email"]?.stringValue == "sam@gmail.com")
        #expect(answer.body["methods"] == .array(["password", "email_code"]))
        let ticket = try #require(answer.body["ticket"]?.stringValue)
        // The ticket is stored hashed, bound to the Google identity, expiring; nothing is joined yet.
        let rows = try h.database().query(
            "SELECT account_id, provider, subject, expires_at - created_at FROM tickets WHERE ticket_hash = ?",
            [.blob(SHA256.hash(Array(ticket.utf8)))])
        #expect(rows.count == 1)
        #expect(rows.first?.text(0) == id)
        #expect(rows.first?.text(1) == "google")
        #expect(rows.first?.text(2) == "g-typed")
        #expect((rows.first?.int(3) ?? 0) > 0)
        #expect(try h.count("identities") == 0)
        #expect(try h.count("sessions") == 0)
    }

    @Test func typedEmailAccountWithoutPasswordOffersOnlyACode() throws {
        let h = try Harness()
        _ = try seedAccount(h, email: "nopw@gmail.com", verified: false)
        let answer = try h.signInGoogle(try h.google.token(sub: "g-typed-2", email: "nopw@gmail.com"))
        #expect(answer.status == 409)
        #expect(answer.body["methods"] == .array(["email_code"]))
    }

    @Test func nonGmailWithoutHostedDomainNeedsACodeToJoin() throws {
        let h = try Harness()
        _ = try seedAccount(h, email: "pat@example.org", verified: true, identity: ("apple", "apple-sub-3"))
        let answer = try h.signInGoogle(try h.google.token(sub: "g-other", email: "Pat@Example.org"))
        #expect(answer.status == 409)
        #expect(answer.errorCode == "proof_required")
        #expect(answer.body["methods"] == .array(["email_code"]))
        #expect(try h.count("identities") == 1)
    }

    @Test func nonGmailAddressNobodyHasMakesANewAccount() throws {
        let h = try Harness()
        let answer = try h.signInGoogle(try h.google.token(sub: "g-new-other", email: "new@example.org"))
        #expect(answer.status == 200)
        #expect(answer.body["created"] == true)
    }
}
