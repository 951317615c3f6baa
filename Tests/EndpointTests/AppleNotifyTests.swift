import DevSupport
import Shared
import Testing

/// Issue 23, `apple-notify`: every form Apple has been seen to send, every refusal, and what each
/// notification does, once.
@Suite struct AppleNotifyTests {
    /// The forms: `events` a string (the wire) or an object (the docs), `event_time` in ms or s,
    /// with and without `exp`, to either bundle id or the Services ID.
    @Test(arguments: [
        ("string, ms", false, true, true, FakeApple.bundleId),
        ("object, s", true, false, true, FakeApple.bundleId),
        ("string, s, no exp", false, false, false, "com.example.frontdoor.second"),
        ("object, ms, services id", true, true, true, "com.example.frontdoor.web"),
    ])
    func everyFormOfConsentRevokedSignsThePersonOut(
        _ form: String, _ asObject: Bool, _ milliseconds: Bool, _ expires: Bool, _ audience: String
    ) throws {
        let p = try ProviderEventsWorld(apple: [("servicesId", "com.example.frontdoor.web")])
        let me = try p.appleSignedIn("apple-form-1")
        let now = Clock.now()
        let time: JSONValue = .number(milliseconds ? Double(now) * 1000 + 250 : Double(now))
        let token = try p.apple.notificationToken(
            type: "consent-revoked", sub: "apple-form-1", eventTime: time, eventsAsObject: asObject, audience: audience,
            now: now, expires: expires)
        let answer = try p.notify(token)
        #expect(answer.status == 200, "\(form): \(answer.rawBody) \(answer.stderr)")
        #expect(answer.rawBody == #"{"received":true}"# + "\n")
        #expect(try p.sessions(of: me.accountId) == 0, "\(form)")
        #expect(try p.h.check(me.bearer).status == 401)
        // The link stays: Apple again brings the person back to the same account.
        let again = try p.appleSignedIn("apple-form-1")
        #expect(again.accountId == me.accountId)
        let rows = try p.rows()
        #expect(rows.count == 1 && rows.first?.hasSuffix(" consent-revoked applied 0") == true, "\(rows)")
        #expect(answer.stderr.contains("event=consent-revoked outcome=applied"))
    }

    /// Both spellings of the deletion, and the Apple-only account goes the normal way: one
    /// `account.deleted`, its ledger line, its audit row, no revocation of Apple.
    @Test(arguments: ["account-delete", "account-deleted"])
    func deletingAnAppleOnlyAccountEmitsOneAccountDeleted(_ spelling: String) throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-del-1", email: "del1@privaterelay.appleid.com")
        let token = try p.apple.notificationToken(type: spelling, sub: "apple-del-1")
        let answer = try p.notify(token)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(try !p.h.holds(me.accountId))
        #expect(try p.accountEvents(me.accountId).filter { $0 == "account.deleted" }.count == 1)
        #expect(p.h.ledgerLines.count == 1 && p.h.ledgerLines.first?.hasSuffix(" \(me.accountId)") == true)
        let audit = try p.h.database().query("SELECT providers, apple_revocation FROM deletion_audit")
        #expect(audit.count == 1 && audit.first?.text(0) == "apple" && audit.first?.text(1) == "not_requested")
        #expect(try p.h.count("apple_revocations") == 0)
        #expect(p.apple.revokedTokens.isEmpty)
        #expect(try p.h.check(me.bearer).status == 401)
        // A repeat finds the row and does nothing more: no second deletion, event or ledger line.
        let repeated = try p.notify(token)
        #expect(repeated.status == 200)
        #expect(try p.accountEvents(me.accountId).filter { $0 == "account.deleted" }.count == 1)
        #expect(p.h.ledgerLines.count == 1)
        let rows = try p.rows()
        #expect(rows.first?.hasSuffix(" account-deleted applied 1") == true, "\(rows)")
        #expect(try StoreInvariants.violations(p.h.database()) == [])
    }

    /// An account with another way in keeps it: the Apple identity goes, the sessions from before
    /// the event end, and no `account.deleted` is written.
    @Test func deletionOfAnAccountWithAPasswordUnlinksApple() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-del-2", email: "both.ways@example.org")
        // A password by reset: the account now has two ways in.
        let reset = try p.h.verify([("action", "reset_request"), ("email", "both.ways@example.org")])
        let resetTicket = try #require(reset.body["ticket"]?.stringValue)
        let resetCode = try #require(p.h.smtp.lastCode(to: "both.ways@example.org"))
        let password = "a long enough password 1"
        TestLogs.register(password)
        let confirmed = try p.h.verify([
            ("action", "reset_confirm"), ("ticket", .string(resetTicket)), ("code", .string(resetCode)),
            ("password", .string(password)),
        ])
        #expect(confirmed.status == 200, "\(confirmed.rawBody)")
        let before = try #require(confirmed.body["sessionToken"]?.stringValue)
        try p.h.age(try #require(confirmed.body["sessionId"]?.stringValue), by: 120)
        let after = try p.h.login("both.ways@example.org", password)
        let afterToken = try #require(after.body["sessionToken"]?.stringValue)
        let answer = try p.notify(try p.apple.notificationToken(
            type: "account-deleted", sub: "apple-del-2", eventTime: .number(Double(Clock.now() - 60) * 1000)))
        #expect(answer.status == 200, "\(answer.stderr)")
        #expect(try p.h.holds(me.accountId))
        #expect(try p.h.database().query("SELECT provider FROM identities WHERE account_id = ?", [.text(me.accountId)]).isEmpty)
        #expect(try p.h.check("Bearer \(before)").status == 401, "a session from before the event ended")
        #expect(try p.h.check("Bearer \(afterToken)").status == 200, "a session from after it stays")
        #expect(try p.accountEvents(me.accountId).contains("account.deleted") == false)
        #expect(p.h.ledgerLines.isEmpty)
        // A later Apple sign-in of that sub is someone new at Apple's word: a new account.
        #expect(try p.appleSignedIn("apple-del-2").accountId != me.accountId)
    }
}
