#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `account` `change_email` and its `verify-email` `confirm` (rule 18): a code to the new
/// address, the change in one transaction that checks the address is still free, sessions kept,
/// the old address told. On both engines.
@Suite struct EmailChangeTests {
    func start(_ w: SettingsWorld, _ person: SettingsWorld.Person, _ email: String, acceptAsTyped: Bool? = nil) throws
        -> CGIAnswer
    {
        var members: [(String, JSONValue)] = [("newEmail", .string(email))]
        if let acceptAsTyped { members.append(("acceptAsTyped", .bool(acceptAsTyped))) }
        return try w.account("change_email", members, as: person)
    }

    func confirm(_ w: SettingsWorld, ticket: String, code: String, as person: SettingsWorld.Person? = nil) throws
        -> CGIAnswer
    {
        try w.h.verify(
            [("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))], authorization: person?.bearer)
    }

    /// The whole change: the code goes to the new address only; `confirm` makes it the account's,
    /// proven, answers a new session, keeps every session, tells the old address, and writes
    /// `account.updated` (`changed: ["email"]`). The password then logs in with the new address.
    @Test func aChangeMovesTheAccountToTheNewAddress() throws {
        let w = try SettingsWorld(events: true)
        let ada = try w.proven("old.ada@example.org")
        let started = try start(w, ada, "New.Ada@Example.org")
        #expect(started.status == 200, "\(started.rawBody)")
        #expect(started.body["email"]?.stringValue == "New.Ada@example.org")
        #expect(started.body["codeExpiresAt"]?.stringValue != nil)
        let ticket = try #require(started.body["ticket"]?.stringValue)
        let code = try #require(w.h.smtp.lastCode(to: "new.ada@example.org"))
        #expect(w.mails(to: "new.ada@example.org").last?.data.contains("new email address") == true)
        let oldMails = w.mails(to: "old.ada@example.org").count
        // Nothing changed yet.
        #expect(try w.account("get", as: ada).body["email"]?.stringValue == "old.ada@example.org")
        let confirmed = try confirm(w, ticket: ticket, code: code)
        #expect(confirmed.status == 200, "\(confirmed.rawBody)")
        #expect(confirmed.body["email"]?.stringValue == "New.Ada@example.org")
        #expect(confirmed.body["accountId"]?.stringValue == ada.accountId)
        #expect(confirmed.body["sessionId"]?.stringValue != ada.sessionId, "a new session, as every confirm")
        #expect(confirmed.body["reauthenticated"] == nil)
        let account = try w.account("get", as: ada)
        #expect(account.body["email"]?.stringValue == "New.Ada@example.org" && account.body["emailVerified"] == true)
        #expect(account.body["sessions"]?.arrayValue?.count == 2, "sessions stay")
        #expect(try w.h.login("new.ada@example.org", SettingsWorld.password).status == 200)
        #expect(try w.h.login("old.ada@example.org", SettingsWorld.password).status == 401)
        let notices = w.mails(to: "old.ada@example.org").dropFirst(oldMails)
        #expect(notices.count == 1)
        let notice = try #require(notices.first?.data)
        #expect(notice.contains("Subject: Your account's email address was changed") && NoticeLinkTests.onlyLinkIsNotMe(notice))
        #expect(!notice.contains("new.ada") && !notice.contains("New.Ada"), "the old address is not told the new one")
        let events = try #require(w.events)
        let updated = events.receiver.accepted.compactMap(\.body).filter { $0["type"] == "account.updated" }
        #expect(updated.count == 1 && updated.first?["changed"] == .array(["email"]))
        #expect(updated.first.map { !$0.serialized.contains("ada@") } == true)
        // The ticket is spent.
        let again = try confirm(w, ticket: ticket, code: code)
        #expect(again.status == 400 && again.errorCode == "invalid_ticket")
    }

    /// Confirmed with the session that asked, it is proven again in place; an unproven address
    /// becomes proven (`account.email_verified` too), and identities keep their place.
    @Test func aConfirmWithTheBearerProvesItInPlace() throws {
        let w = try SettingsWorld(events: true)
        let ada = try w.google("change-google", email: "unproven.google@example.org")
        let started = try start(w, ada, "proven.now@example.org")
        let ticket = try #require(started.body["ticket"]?.stringValue, "\(started.rawBody)")
        let code = try #require(w.h.smtp.lastCode(to: "proven.now@example.org"))
        let confirmed = try confirm(w, ticket: ticket, code: code, as: ada)
        #expect(confirmed.status == 200 && confirmed.body["reauthenticated"] == true, "\(confirmed.rawBody)")
        #expect(confirmed.body["sessionId"]?.stringValue == ada.sessionId)
        #expect(try w.h.count("sessions") == 1)
        let account = try w.account("get", as: ada)
        #expect(account.body["emailVerified"] == true)
        let events = try #require(w.events)
        #expect(events.taken.suffix(2) == [
            "account.email_verified \(ada.accountId) [google]", "account.updated \(ada.accountId) [google]",
        ], "\(events.taken)")
        // The Google identity signs in to it still, and set_password is now allowed.
        #expect(try w.h.signInGoogle(try w.h.google.token(sub: "change-google", email: "unproven.google@example.org"))
            .body["accountId"]?.stringValue == ada.accountId)
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.newPassword))], as: ada).status == 200)
    }

    /// The address is checked as at registration: 422 `invalid_email` with a suggestion for a
    /// slip, sent again with `acceptAsTyped` it goes as typed; 409 `email_taken` for another
    /// account's; 403 first without a recent sign-in; nothing is mailed or written for any.
    @Test func startRefusals() throws {
        let w = try SettingsWorld()
        let ada = try w.google("start-ada")
        _ = try w.typed("taken@example.org")
        let before = try w.snapshot()
        let mails = w.h.smtp.messages.count
        let slip = try start(w, ada, "ada@gmial.com")
        #expect(slip.status == 422 && slip.errorCode == "invalid_email", "\(slip.rawBody)")
        #expect(slip.body["suggestion"]?.stringValue == "ada@gmail.com")
        let malformed = try start(w, ada, "not an address")
        #expect(malformed.status == 422 && malformed.errorCode == "invalid_email")
        let lookalike = try start(w, ada, "\u{212A}ada@example.org")
        #expect(lookalike.status == 422 && lookalike.errorCode == "invalid_email", "\(lookalike.rawBody)")
        let taken = try start(w, ada, "TAKEN@example.org")
        #expect(taken.status == 409 && taken.errorCode == "email_taken", "\(taken.rawBody)")
        #expect(try w.snapshot() == before)
        try w.age(ada)
        SettingsWorld.expectReauthentication(try start(w, ada, "ada@gmial.com"), methods: ["google"])
        #expect(w.h.smtp.messages.count == mails)
        let fresh = try w.google("start-ada")
        let asTyped = try start(w, fresh, "ada@gmial.com", acceptAsTyped: true)
        #expect(asTyped.status == 200 && asTyped.body["email"]?.stringValue == "ada@gmial.com", "\(asTyped.rawBody)")
    }

    /// Another account takes the address between the code and the confirm: 409 `email_taken`,
    /// and nothing changes (the account keeps its address, the ticket stays).
    @Test func anAddressTakenByConfirmTimeIsRefused() throws {
        let w = try SettingsWorld()
        let ada = try w.google("taken-later-ada")
        let started = try start(w, ada, "contested@example.org")
        let ticket = try #require(started.body["ticket"]?.stringValue)
        let code = try #require(w.h.smtp.lastCode(to: "contested@example.org"))
        _ = try w.typed("contested@example.org")
        let before = try w.snapshot()
        let refused = try confirm(w, ticket: ticket, code: code)
        #expect(refused.status == 409 && refused.errorCode == "email_taken", "\(refused.rawBody)")
        #expect(try w.snapshot() == before)
        #expect(try w.account("get", as: ada).body["email"]?.stringValue == "taken-later-ada@gmail.com")
    }

    /// The ticket takes only its code (five tries, then `too_many_attempts`), never a password;
    /// `send_code` mails the new address again; a newer change replaces the older.
    @Test func theTicketFollowsTheCodeRules() throws {
        let w = try SettingsWorld(config: [("limits", .object([("mailIntervalSeconds", 1)]))])
        let ada = try w.proven("rules.ada@example.org")
        let first = try start(w, ada, "first.choice@example.org")
        let firstTicket = try #require(first.body["ticket"]?.stringValue)
        let byPassword = try w.h.verify(
            [("action", "confirm"), ("ticket", .string(firstTicket)), ("password", .string(SettingsWorld.password))])
        #expect(byPassword.status == 400 && byPassword.errorCode == "invalid_request")
        let second = try start(w, ada, "second.choice@example.org")
        let ticket = try #require(second.body["ticket"]?.stringValue)
        let firstCode = try #require(w.h.smtp.lastCode(to: "first.choice@example.org"))
        #expect(try confirm(w, ticket: firstTicket, code: firstCode).errorCode == "invalid_ticket", "replaced")
        // The one-a-minute interval (1 s here) goes by on the limits' clock: the new address gets it.
        w.h.limitsNow += 1
        let resent = try w.h.verify([("action", "send_code"), ("ticket", .string(ticket))])
        #expect(resent.status == 200, "\(resent.rawBody)")
        // The account's own address: its proof's code and each change's notice (T5-6), never a change's code.
        #expect(w.mails(to: "second.choice@example.org").count == 2 && w.mails(to: "rules.ada@example.org").count == 3)
        let code = try #require(w.h.smtp.lastCode(to: "second.choice@example.org"))
        let wrong = code == "000000" ? "111111" : "000000"
        for _ in 0..<5 { #expect(try confirm(w, ticket: ticket, code: wrong).errorCode == "invalid_code") }
        #expect(try confirm(w, ticket: ticket, code: code).errorCode == "too_many_attempts")
        #expect(try w.account("get", as: ada).body["email"]?.stringValue == "rules.ada@example.org")
    }

    /// The mail server refusing: 503, no ticket and no code kept, the limits given back.
    @Test func aMailServerDownChangesNothing() throws {
        let w = try SettingsWorld()
        let ada = try w.google("mail-down-ada")
        let before = try w.snapshot().filter { !$0.hasPrefix("ephemeral:") }
        w.h.smtp.setMode(.refuse)
        let answer = try start(w, ada, "unreachable@example.org")
        #expect(answer.status == 503 && answer.errorCode == "upstream_unavailable", "\(answer.rawBody)")
        #expect(try w.snapshot().filter { !$0.hasPrefix("ephemeral:") } == before)
        w.h.smtp.setMode(.accept)
        #expect(try start(w, ada, "unreachable@example.org").status == 200, "the limits were given back")
    }
}
