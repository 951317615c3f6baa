#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// A disabled account (rule 14): every way of signing in answers 403 `account_disabled` once the
/// person has proven who they are, and writes nothing (no session, no event, no join, no spent
/// ticket, no new password); a wrong password or code is answered as for any account.
@Suite(.serialized) struct DisabledSignInTests {
    /// Every row that belongs to people or reports on them; rate-limit counters, cached keys and
    /// Apple's nonces and relay records are the attempt's own (rule 5 keeps a nonce spent).
    static let tables = ["accounts", "identities", "sessions", "tickets", "email_tickets", "email_codes", "events",
                         "deletion_audit"]

    static func rows(_ h: Harness) throws -> [String] {
        try tables.flatMap { table in
            // A kind of `ephemeral` named as the table it was.
            let kind = Ephemeral.Kind.allCases.first { $0.name == table }
            let sql = kind.map { "SELECT * FROM ephemeral WHERE kind = \($0.rawValue)" } ?? "SELECT * FROM \(table)"
            return try h.database().query(sql).map { row in
                table + ": " + (0..<row.count).map { "\(row[$0])" }.joined(separator: "|")
            }.sorted()
        }
    }

    static func expectDisabled(_ answer: CGIAnswer, _ what: String) {
        #expect(answer.status == 403, "\(what): \(answer.rawBody)")
        #expect(answer.errorCode == "account_disabled", "\(what): \(answer.rawBody)")
        #expect(answer.body["sessionToken"] == nil)
    }

    @Test func googleAndAppleSignInsAndJoinsAreRefusedAndWriteNothing() throws {
        let w = try AppleWorld()
        let h = w.h
        let events = try EventsFixture(h, settings: EventsFixture.quick)
        try w.writeConfig([events.member])
        let google = try h.signedIn("g-off", email: "switched.off@gmail.com")
        let apple = try w.signInNew(sub: "apple-off", email: "apple.off@example.org")
        let appleId = try #require(apple.body["accountId"]?.stringValue)
        #expect(try h.admin(["disable", google.accountId]).status == 0)
        #expect(try h.admin(["disable", appleId]).status == 0)
        let before = try Self.rows(h)

        Self.expectDisabled(try h.signInGoogle(try h.google.token(sub: "g-off", email: "switched.off@gmail.com")), "google")
        Self.expectDisabled(try w.signInNew(sub: "apple-off", email: "apple.off@example.org"), "apple")
        // Apple with the disabled Google account's verified address would join it: refused, not joined.
        Self.expectDisabled(try w.signInNew(sub: "apple-joiner", email: "switched.off@gmail.com"), "apple join")
        #expect(try Self.rows(h) == before)
        #expect(try h.count("identities") == 2)
    }

    @Test func aPasswordLoginIsRefusedOnlyWithTheRightPassword() throws {
        let h = try Harness()
        let made = try h.register("pass.off@example.org", "the right password")
        let accountId = try #require(made.body["accountId"]?.stringValue)
        #expect(try h.admin(["disable", accountId]).json["ended"] == 1)
        let before = try Self.rows(h)
        let wrong = try h.login("pass.off@example.org", "a wrong password")
        #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials", "the state is shown only to the person")
        Self.expectDisabled(try h.login("PASS.OFF@example.org", "the right password"), "login")
        // Registering the address again is refused as for any taken address.
        #expect(try h.register("pass.off@example.org", "another password").errorCode == "email_taken")
        #expect(try Self.rows(h) == before)
    }

    @Test func aConfirmByCodeOrPasswordIsRefusedAndLeavesTheTicket() throws {
        let h = try Harness()
        let made = try h.register("confirm.off@gmail.com", "typed password")
        let accountId = try #require(made.body["accountId"]?.stringValue)
        let proof = try h.signInGoogle(try h.google.token(sub: "g-confirm-off", email: "confirm.off@gmail.com"))
        let ticket = try #require(proof.body["ticket"]?.stringValue, "\(proof.rawBody)")
        #expect(try h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try #require(h.smtp.lastCode(to: "confirm.off@gmail.com"))
        #expect(try h.admin(["disable", accountId]).status == 0)
        let before = try Self.rows(h)
        let wrongCode = code == "000000" ? "000001" : "000000"
        let wrong = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(wrongCode))])
        #expect(wrong.status == 401 && wrong.errorCode == "invalid_code")
        let afterWrong = try Self.rows(h)  // a wrong code counts, as for any account
        for _ in 0..<2 {
            Self.expectDisabled(
                try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))]), "confirm")
            Self.expectDisabled(
                try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("password", "typed password")]),
                "confirm by password")
        }
        #expect(try Self.rows(h) == afterWrong)
        #expect(before.count == afterWrong.count)
        #expect(try h.count("identities") == 0, "nothing joined")
    }

    @Test func aResetIsRefusedAndKeepsTheOldPassword() throws {
        let h = try Harness()
        let made = try h.register("reset.off@example.org", "the old password")
        let accountId = try #require(made.body["accountId"]?.stringValue)
        // Asked before the disable: a disabled account is mailed no code.
        let asked = try h.verify([("action", "reset_request"), ("email", "reset.off@example.org")])
        #expect(asked.status == 200, "a reset request answers alike for every address")
        let ticket = try #require(asked.body["ticket"]?.stringValue)
        let code = try #require(h.smtp.lastCode(to: "reset.off@example.org"))
        #expect(try h.admin(["disable", accountId]).status == 0)
        let before = try Self.rows(h)
        Self.expectDisabled(try h.verify([
            ("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
            ("password", "a new password"),
        ]), "reset")
        #expect(try Self.rows(h) == before)
        #expect(try h.login("reset.off@example.org", "a new password").status == 401, "the new password was not set")
        Self.expectDisabled(try h.login("reset.off@example.org", "the old password"), "old password")
        #expect(try h.admin(["enable", accountId]).status == 0)
        #expect(try h.login("reset.off@example.org", "the old password").status == 200)
    }

    /// The third review: a disabled account was still mailed reset codes and join codes, which
    /// could only end in 403. Now nothing is mailed to it, and every answer is as for an account
    /// that is not disabled (a reset's code is spoilt, a join's code stored, as for an address a
    /// provider stopped).
    @Test func aDisabledAccountIsMailedNoCodeWithTheSameAnswers() throws {
        let h = try Harness()
        var accounts: [String: String] = [:]
        var tickets: [String: String] = [:]
        for name in ["mail.off", "mail.on"] {
            let email = "\(name)@example.org"
            let made = try h.register(email, "a password for \(name)")
            accounts[name] = try #require(made.body["accountId"]?.stringValue)
            // A Google address Google does not speak for asks to join the typed account by code.
            let proof = try h.signInGoogle(try h.google.token(sub: "g-\(name)", email: email))
            tickets[name] = try #require(proof.body["ticket"]?.stringValue, "\(proof.rawBody)")
        }
        #expect(try h.admin(["disable", accounts["mail.off"] ?? ""]).status == 0)

        let normalReset = try h.verify([("action", "reset_request"), ("email", "mail.on@example.org")])
        #expect(h.smtp.lastCode(to: "mail.on@example.org") != nil)
        let normalSent = try h.verify([("action", "send_code"), ("ticket", .string(tickets["mail.on"] ?? ""))])
        #expect(normalSent.status == 200, "\(normalSent.rawBody)")
        let mails = h.smtp.messages.count
        let codes = try h.count("email_codes")
        let reset = try h.verify([("action", "reset_request"), ("email", "mail.off@example.org")])
        let sent = try h.verify([("action", "send_code"), ("ticket", .string(tickets["mail.off"] ?? ""))])
        #expect(h.smtp.messages.count == mails, "no mail to a disabled account")
        #expect(AppleNotifyRelayTests.same(reset, normalReset), "\(reset.rawBody) vs \(normalReset.rawBody)")
        #expect(AppleNotifyRelayTests.same(sent, normalSent), "\(sent.rawBody) vs \(normalSent.rawBody)")
        #expect(try h.count("email_codes") == codes + 2, "both codes kept as for anyone (the reset's spoilt)")
    }
}
