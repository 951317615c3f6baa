import DevSupport
import Shared
import Testing

/// `verify-email`: proof before joining (rule 3 of DESIGN.md), own-email verification, password
/// reset, with the mail going to a real SMTP server on loopback.
// One test at a time: each runs Argon2id (19 MiB) in several processes, and all of them at once
// slow every fsync on the box enough to push the store's concurrency tests past their busy timeout.
@Suite(.serialized) struct VerifyEmailTests {
    /// A typed-email account with a password, then a Google sign-in with the same address: the ticket.
    func pendingJoin(_ h: Harness, email: String, sub: String) throws -> (accountId: String, ticket: String) {
        let made = try h.register(email, "typed by someone")
        let accountId = try #require(made.body["accountId"]?.stringValue, "\(made.rawBody)")
        let answer = try h.signInGoogle(try h.google.token(sub: sub, email: email))
        #expect(answer.status == 409)
        #expect(answer.errorCode == "proof_required")
        #expect(answer.body["methods"] == .array(["password", "email_code"]))
        return (accountId, try #require(answer.body["ticket"]?.stringValue))
    }

    func sendCode(_ h: Harness, _ ticket: String) throws -> CGIAnswer {
        try h.verify([("action", "send_code"), ("ticket", .string(ticket))])
    }

    func confirm(_ h: Harness, _ ticket: String, code: String) throws -> CGIAnswer {
        try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
    }

    @Test func joinByPasswordKeepsPasswordAndSessions() throws {
        let h = try Harness()
        let (accountId, ticket) = try pendingJoin(h, email: "sam@gmail.com", sub: "g-sam")
        let wrong = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("password", "not it at all")])
        #expect(wrong.status == 401)
        #expect(wrong.errorCode == "invalid_credentials")
        let joined = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("password", "typed by someone")])
        #expect(joined.status == 200, "\(joined.rawBody)")
        #expect(joined.body["accountId"]?.stringValue == accountId)
        #expect(joined.body["providers"] == .array(["google", "password"]))
        #expect(try h.count("sessions") == 2)
        #expect(try h.database().query("SELECT email_verified FROM accounts").first?.int(0) == 1)
        // From now on Google signs straight in.
        let again = try h.signInGoogle(try h.google.token(sub: "g-sam", email: "sam@gmail.com"))
        #expect(again.status == 200)
        #expect(again.body["accountId"]?.stringValue == accountId)
        #expect(try h.login("sam@gmail.com", "typed by someone").status == 200)
    }

    @Test func joinByCodeClearsTheTypedPasswordAndEndsSessions() throws {
        let h = try Harness()
        // Someone registered the victim's address with a name and a password of their own.
        let made = try h.signInEmail([
            ("action", "register"), ("email", "victim@gmail.com"), ("password", "attacker's password"),
            ("name", "Mallory Name"),
        ])
        let accountId = try #require(made.body["accountId"]?.stringValue)
        #expect(try h.login("victim@gmail.com", "attacker's password").status == 200)
        let proof = try h.signInGoogle(try h.google.token(sub: "g-victim", email: "victim@gmail.com"))
        let ticket = try #require(proof.body["ticket"]?.stringValue)
        let sent = try sendCode(h, ticket)
        #expect(sent.status == 200, "\(sent.rawBody)")
        #expect(sent.body["sent"] == true)
        let message = try #require(h.smtp.messages.last)
        #expect(message.recipients == ["victim@gmail.com"])
        #expect(message.from == "frontdoor-test@localhost")
        #expect(!message.data.contains("Mallory"))
        let code = try #require(message.code)
        #expect(!sent.stderr.contains(code) && !sent.stderr.contains("victim"))
        #expect(try h.database().query("SELECT count(*) FROM ephemeral WHERE kind = ? AND value = ?",
                                       [.integer(Ephemeral.Kind.emailCode.rawValue), .blob(Array(code.utf8))]).first?.int(0) == 0)

        let joined = try confirm(h, ticket, code: code)
        #expect(joined.status == 200, "\(joined.rawBody)")
        #expect(joined.body["accountId"]?.stringValue == accountId)
        #expect(joined.body["providers"] == .array(["google"]))
        let row = try #require(try h.database().query("SELECT email_verified, password_hash FROM accounts").first)
        #expect(row.int(0) == 1 && row[1] == .null)
        // Only the session just answered is left; the typed password no longer works.
        #expect(try h.count("sessions") == 1)
        #expect(try h.login("victim@gmail.com", "attacker's password").status == 401)
        // The ticket is spent.
        #expect(try confirm(h, ticket, code: code).errorCode == "invalid_ticket")
        #expect(try sendCode(h, ticket).errorCode == "invalid_ticket")
    }

    @Test func wrongCodeFiveTimesThenTheRightOneIsRefused() throws {
        let h = try Harness()
        let (_, ticket) = try pendingJoin(h, email: "five@gmail.com", sub: "g-five")
        #expect(try sendCode(h, ticket).status == 200)
        let code = try #require(h.smtp.lastCode(to: "five@gmail.com"))
        let wrongCode = code == "000000" ? "000001" : "000000"
        for _ in 0..<5 {
            let wrong = try confirm(h, ticket, code: wrongCode)
            #expect(wrong.status == 401)
            #expect(wrong.errorCode == "invalid_code")
        }
        let right = try confirm(h, ticket, code: code)
        #expect(right.status == 429)
        #expect(right.errorCode == "too_many_attempts")
        #expect(try h.count("identities") == 0)
    }

    @Test func expiredCodeIsRefused() throws {
        let h = try Harness()
        let (_, ticket) = try pendingJoin(h, email: "late@gmail.com", sub: "g-late")
        #expect(try sendCode(h, ticket).status == 200)
        let code = try #require(h.smtp.lastCode(to: "late@gmail.com"))
        let lifetime = try h.database().query(
            "SELECT expires_at - since FROM ephemeral WHERE kind = ?", [.integer(Ephemeral.Kind.emailCode.rawValue)]).first?.int(0)
        #expect(lifetime == 600)
        try h.database().run(
            "UPDATE ephemeral SET since = since - 601, expires_at = expires_at - 601 WHERE kind = ?",
            [.integer(Ephemeral.Kind.emailCode.rawValue)])
        let answer = try confirm(h, ticket, code: code)
        #expect(answer.status == 401)
        #expect(answer.errorCode == "invalid_code")
        #expect(try h.count("identities") == 0)
    }

    @Test func ticketsAreBoundToTheIdentityTheyWereMadeFor() throws {
        let h = try Harness()
        let (accountA, ticketA) = try pendingJoin(h, email: "anne@gmail.com", sub: "g-anne")
        let (_, ticketB) = try pendingJoin(h, email: "bert@gmail.com", sub: "g-bert")
        #expect(try sendCode(h, ticketA).status == 200)
        #expect(try sendCode(h, ticketB).status == 200)
        let codeA = try #require(h.smtp.lastCode(to: "anne@gmail.com"))
        let codeB = try #require(h.smtp.lastCode(to: "bert@gmail.com"))
        // A's code is worth nothing with B's ticket (unless the two codes happen to be equal).
        if codeA != codeB { #expect(try confirm(h, ticketB, code: codeA).errorCode == "invalid_code") }
        #expect(try confirm(h, ticketA, code: codeA).status == 200)
        let linked = try h.database().query("SELECT provider, subject, account_id FROM identities")
        #expect(linked.count == 1)
        #expect(linked.first?.text(1) == "g-anne" && linked.first?.text(2) == accountA)
        // B's identity was linked elsewhere meanwhile: B's ticket no longer joins anything.
        try h.database().run(
            "INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('google', 'g-bert', ?, 0)",
            [.text(accountA)])
        #expect(try confirm(h, ticketB, code: codeB).errorCode == "invalid_ticket")
        for bad in ["nope", String(repeating: "A", count: 43), ticketA] {
            #expect(try confirm(h, bad, code: "123456").errorCode == "invalid_ticket")
        }
    }

    @Test func passwordProofOnlyWhereTheTicketOffersIt() throws {
        let h = try Harness()
        // A verified account whose address Google does not speak for: a code only.
        #expect(try h.register("pat@example.org", "pat's own password").status == 201)
        try h.database().run("UPDATE accounts SET email_verified = 1")
        let proof = try h.signInGoogle(try h.google.token(sub: "g-second", email: "pat@example.org"))
        #expect(proof.body["methods"] == .array(["email_code"]))
        let ticket = try #require(proof.body["ticket"]?.stringValue)
        let answer = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("password", "guessing now")])
        #expect(answer.status == 400)
        #expect(answer.errorCode == "invalid_request")
        // Joining a proven account by code ends nobody's session.
        #expect(try sendCode(h, ticket).status == 200)
        #expect(try confirm(h, ticket, code: try #require(h.smtp.lastCode(to: "pat@example.org"))).status == 200)
        #expect(try h.count("sessions") == 2)
    }

    @Test func sendsAreLimitedPerAddress() throws {
        let h = try Harness()
        let (_, ticket) = try pendingJoin(h, email: "often@gmail.com", sub: "g-often")
        #expect(try sendCode(h, ticket).status == 200)
        let again = try sendCode(h, ticket)
        #expect(again.status == 429)
        #expect(again.errorCode == "rate_limited")
        #expect(Int(again.header("Retry-After") ?? "") ?? 0 > 0)
        #expect(h.smtp.messages.count == 1)
    }

    @Test func globalMailCapApplies() throws {
        let h = try Harness(config: [("limits", .object([("mailPerHour", 1)]))])
        let (_, first) = try pendingJoin(h, email: "cap1@gmail.com", sub: "g-cap1")
        let (_, second) = try pendingJoin(h, email: "cap2@gmail.com", sub: "g-cap2")
        #expect(try sendCode(h, first).status == 200)
        #expect(try sendCode(h, second).errorCode == "rate_limited")
    }

    @Test(arguments: [SMTPSink.Mode.refuse, .hang])
    func smtpDownAnswers503AndLeavesNothingHalfDone(_ mode: SMTPSink.Mode) throws {
        let h = try Harness()
        try h.writeConfig([("mail", .object([("smtpUrl", .string(h.smtp.url)), ("from", "t@localhost"), ("timeoutSeconds", 1)]))])
        let (_, ticket) = try pendingJoin(h, email: "down@gmail.com", sub: "g-down")
        h.smtp.setMode(mode)
        let answer = try sendCode(h, ticket)
        #expect(answer.status == 503)
        #expect(answer.errorCode == "upstream_unavailable")
        #expect(!answer.stderr.contains("down@gmail"))
        #expect(try h.count(.emailCode) == 0)
        // The limits were given back: once the server is up, the person can ask at once.
        h.smtp.setMode(.accept)
        #expect(try sendCode(h, ticket).status == 200)
        #expect(h.smtp.lastCode(to: "down@gmail.com") != nil)
    }

    @Test func smtpServerGoneAnswers503() throws {
        let h = try Harness()
        let (_, ticket) = try pendingJoin(h, email: "gone@gmail.com", sub: "g-gone")
        h.smtp.stop()
        #expect(try sendCode(h, ticket).status == 503)
        #expect(try h.count(.emailCode) == 0)
    }

    @Test func ownEmailVerification() throws {
        let h = try Harness()
        let made = try h.register("own@example.org", "my own long passphrase")
        let session = try #require(made.body["sessionToken"]?.stringValue)
        #expect(try h.verify([("action", "verify_own_email")]).errorCode == "unauthorized")
        let start = try h.verify([("action", "verify_own_email")], authorization: "Bearer \(session)")
        #expect(start.status == 200, "\(start.rawBody)")
        #expect(start.body["emailVerified"] == false)
        #expect(start.body["methods"] == .array(["email_code"]))
        let ticket = try #require(start.body["ticket"]?.stringValue)
        #expect(try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("password", "my own long passphrase")])
            .errorCode == "invalid_request")
        #expect(try sendCode(h, ticket).status == 200)
        let done = try confirm(h, ticket, code: try #require(h.smtp.lastCode(to: "own@example.org")))
        #expect(done.status == 200)
        #expect(done.body["providers"] == .array(["password"]))
        #expect(try h.database().query("SELECT email_verified FROM accounts").first?.int(0) == 1)
        #expect(try h.count("sessions") == 2)
        let again = try h.verify([("action", "verify_own_email")], authorization: "Bearer \(session)")
        #expect(again.body == .object([("emailVerified", true)]))
    }

    @Test func resetAnswersAlikeForKnownAndUnknownAddresses() throws {
        let h = try Harness()
        #expect(try h.register("forgot@example.org", "the old password").status == 201)
        #expect(try h.login("forgot@example.org", "the old password").status == 200)
        let known = try h.verify([("action", "reset_request"), ("email", " Forgot@Example.org")])
        let unknown = try h.verify([("action", "reset_request"), ("email", "stranger@example.org")])
        #expect(known.status == 200 && unknown.status == 200)
        #expect(known.body.objectValue?.map(\.0) == unknown.body.objectValue?.map(\.0))
        #expect(known.body["ticket"]?.stringValue?.utf8.count == 43)
        #expect(unknown.body["ticket"]?.stringValue?.utf8.count == 43)
        // The mail went after the answer, to the account's address only.
        #expect(h.smtp.messages.count == 1)
        let code = try #require(h.smtp.lastCode(to: "forgot@example.org"))
        let knownTicket = try #require(known.body["ticket"]?.stringValue)
        let unknownTicket = try #require(unknown.body["ticket"]?.stringValue)

        // Every limit is the address's, known or not.
        #expect(try h.verify([("action", "reset_request"), ("email", "forgot@example.org")]).status == 429)
        #expect(try h.verify([("action", "reset_request"), ("email", "stranger@example.org")]).status == 429)

        func resetConfirm(_ ticket: String, _ code: String, _ password: String) throws -> CGIAnswer {
            try h.verify([("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
                          ("password", .string(password))])
        }
        let wrongKnown = try resetConfirm(knownTicket, code == "999999" ? "999998" : "999999", "a new password")
        let wrongUnknown = try resetConfirm(unknownTicket, code, "a new password")
        #expect(wrongKnown.status == 401 && wrongKnown.rawBody == wrongUnknown.rawBody)
        #expect(try resetConfirm(knownTicket, code, "short").errorCode == "invalid_password")

        let done = try resetConfirm(knownTicket, code, "a new password")
        #expect(done.status == 200, "\(done.rawBody)")
        #expect(done.body["providers"] == .array(["password"]))
        #expect(try h.count("sessions") == 1)
        #expect(try h.database().query("SELECT email_verified FROM accounts").first?.int(0) == 1)
        #expect(try h.login("forgot@example.org", "the old password").status == 401)
        #expect(try h.login("forgot@example.org", "a new password").status == 200)
        #expect(try resetConfirm(knownTicket, code, "a new password").errorCode == "invalid_ticket")
        // A reset ticket is not a join ticket, and the other actions' tickets are not reset tickets.
        #expect(try sendCode(h, unknownTicket).errorCode == "invalid_ticket")
        #expect(try confirm(h, unknownTicket, code: code).errorCode == "invalid_ticket")
    }
}
