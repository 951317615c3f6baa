import DevSupport
import Shared
import Testing

/// The third review's second finding (issue 29): a passkey a stolen session added must not
/// outlive the person's (or Google's, or the operator's) taking the account back, and the person
/// is told at their address whenever a passkey is added (`PasskeyTakeback`, `PasskeyNotice`).
@Suite struct PasskeyTakebackTests {
    /// A passkey world with the app's events, and a Google person (a gmail address) signed in.
    struct World {
        let w: PasskeyWorld
        let events: EventsFixture
        var h: Harness { w.h }

        init() throws {
            w = try PasskeyWorld()
            events = try EventsFixture(w.h, settings: EventsFixture.quick)
            try w.h.writeConfig([PasskeyWorld.section, events.member])
        }

        func person(_ sub: String, deviceName: String? = nil) throws -> (PasskeyWorld.Person, SignedIn) {
            let signed = try h.signedIn(sub, email: "\(sub)@gmail.com", deviceName: deviceName)
            return (PasskeyWorld.Person(accountId: signed.accountId, session: signed.token), signed)
        }

        /// The account's events, delivered or waiting, as `type [providers] provider`.
        func events(of accountId: String) throws -> [String] {
            let taken = events.receiver.accepted.compactMap(\.body)
            let waiting = try EventsFixture.waiting(h.database())
            return (taken + waiting).filter { $0["accountId"]?.stringValue == accountId }.map(EventsFixture.line)
        }

        func passkeys(of accountId: String) throws -> Int64 {
            try h.database().query("SELECT count(*) FROM passkeys WHERE account_id = ?", [.text(accountId)]).first?.int(0)
                ?? -1
        }
    }

    /// Each takeback that ends every session: the passkey the session added goes, the app hears
    /// `account.unlinked` (`passkey`), and the passkey no longer signs in.
    @Test(arguments: ["reset", "sign-out all", "admin disable", "admin sign-out"])
    func aTakebackRemovesThePasskeysItsEndedSessionsAdded(_ takeback: String) throws {
        let t = try World()
        let (ada, signed) = try t.person("take-\(takeback.replacingAll(" ", with: "-"))")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try t.w.register(phone, for: ada)
        #expect(try t.w.signInWith(phone, userHandle: handle).status == 200)
        switch takeback {
        case "reset":
            let email = "take-reset@gmail.com"
            let asked = try t.h.verify([("action", "reset_request"), ("email", .string(email))])
            let code = try #require(t.h.smtp.lastCode(to: email))
            let password = "a brand new password to take it back"
            TestLogs.register(password)
            let done = try t.h.verify([
                ("action", "reset_confirm"), ("ticket", asked.body["ticket"] ?? .null), ("code", .string(code)),
                ("password", .string(password)),
            ])
            #expect(done.status == 200, "\(done.rawBody)")
        case "sign-out all":
            let out = try t.h.run("sign-out", json: #"{"scope":"all"}"#, authorization: signed.bearer)
            #expect(out.status == 200 && out.body["ended"] == 2, "\(out.rawBody)")
        case "admin disable":
            #expect(try t.h.admin(["disable", ada.accountId]).status == 0)
            #expect(try t.h.admin(["enable", ada.accountId]).status == 0)
        default:
            #expect(try t.h.admin(["sign-out", ada.accountId]).status == 0)
        }
        #expect(try t.passkeys(of: ada.accountId) == 0, "\(takeback)")
        #expect(try t.w.signInWith(phone, userHandle: handle).status == 401, "\(takeback)")
        let all = try t.events(of: ada.accountId)
        let unlinked = all.filter { $0.hasPrefix("account.unlinked") }
        #expect(unlinked == ["account.unlinked \(ada.accountId) [google\(takeback == "reset" ? ",password" : "")] passkey"],
                "\(takeback): \(all)")
    }

    /// A stolen session that adds a passkey and then signs itself out is no longer among the
    /// sessions a takeback ends: its passkey goes all the same, since the session that added it
    /// was made before the takeback.
    @Test func aStolenSessionThatSignedItselfOutLosesItsPasskeyToo() throws {
        let t = try World()
        let (ada, own) = try t.person("take-hidden")
        let (stolen, _) = try t.person("take-hidden", deviceName: "Not Ada's phone")
        let intruder = try SoftwareAuthenticator()
        let (_, handle) = try t.w.register(intruder, for: stolen)
        let out = try t.h.run("sign-out", json: "{}", authorization: stolen.bearer)
        #expect(out.status == 200 && out.body["ended"] == 1)
        #expect(try t.w.signInWith(intruder, userHandle: handle).status == 200, "a way in of its own")
        let everywhere = try t.h.run("sign-out", json: #"{"scope":"all"}"#, authorization: own.bearer)
        #expect(everywhere.status == 200, "\(everywhere.rawBody)")
        #expect(try t.passkeys(of: ada.accountId) == 0)
        #expect(try t.w.signInWith(intruder, userHandle: handle).status == 401)
    }

    /// Signing out the other sessions, or one of them, is no takeback: the caller's own session
    /// stays, and so do the passkeys.
    @Test func signingOutOthersKeepsThePasskeys() throws {
        let t = try World()
        let (ada, own) = try t.person("take-others")
        let (other, _) = try t.person("take-others")
        let phone = try SoftwareAuthenticator()
        _ = try t.w.register(phone, for: other)
        #expect(try t.h.run("sign-out", json: #"{"scope":"others"}"#, authorization: own.bearer).body["ended"] == 1)
        #expect(try t.passkeys(of: ada.accountId) == 1)
    }

    /// Google's `account-disabled` for hijacking ends the sessions from before the event and the
    /// passkeys they added (a session already signed out included); a session made after the event,
    /// and the passkey it added, stay.
    @Test func googlesHijackingEventRemovesThePasskeysOfSessionsFromBeforeIt() throws {
        let p = try ProviderEventsWorld(config: [PasskeyWorld.section])
        let keys = PasskeyWorld(on: p.h)
        let before = try p.h.signedIn("g-hijacked-1", email: "hijacked.one@gmail.com")
        let hidden = try p.h.signedIn("g-hijacked-1", email: "hijacked.one@gmail.com")
        try p.h.age(before.sessionId, by: 120)
        try p.h.age(hidden.sessionId, by: 120)
        let intruder = try SoftwareAuthenticator()
        let (_, handle) = try keys.register(intruder, for: PasskeyWorld.Person(accountId: hidden.accountId, session: hidden.token))
        #expect(try p.h.run("sign-out", json: "{}", authorization: hidden.bearer).status == 200)
        let after = try p.h.signedIn("g-hijacked-1", email: "hijacked.one@gmail.com")
        let own = try SoftwareAuthenticator()
        _ = try keys.register(own, for: PasskeyWorld.Person(accountId: after.accountId, session: after.token))

        let event = try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-disabled", sub: "g-hijacked-1", reason: "hijacking")], now: Clock.now() - 60)
        #expect(try p.risc(event).status == 202)
        #expect(try p.h.check(before.bearer).status == 401)
        #expect(try p.h.check(after.bearer).status == 200, "a session from after the event stays")
        #expect(try keys.signInWith(intruder, userHandle: handle).status == 401, "the passkey from before it went")
        let left = try p.h.database().query("SELECT session_id FROM passkeys WHERE account_id = ?", [.text(after.accountId)])
        #expect(left.compactMap { $0.text(0) } == [after.sessionId], "the passkey from after it stays")
        #expect(try p.accountEvents(after.accountId).filter { $0 == "account.unlinked" }.count == 1)
        // Without `hijacking` the sessions stay, and so do the passkeys.
        let other = try p.h.signedIn("g-hijacked-2", email: "hijacked.two@gmail.com")
        try p.h.age(other.sessionId, by: 120)
        _ = try keys.register(try SoftwareAuthenticator(), for: PasskeyWorld.Person(accountId: other.accountId, session: other.token))
        #expect(try p.risc(try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-disabled", sub: "g-hijacked-2")], now: Clock.now() - 60)).status == 202)
        #expect(try p.h.database().query("SELECT count(*) FROM passkeys WHERE account_id = ?", [.text(other.accountId)])
            .first?.int(0) == 1)
    }

    /// A join by code that ends the sessions of an account whose address was typed and never
    /// proven (which no passkey can be added to today: the address is brought back to unproven by
    /// hand here) removes the passkeys those sessions added.
    @Test func aJoinByCodeThatEndsTheSessionsRemovesTheirPasskeys() throws {
        let t = try World()
        let email = "typed.keys@example.org"
        let password = "the typed password for the keys"
        TestLogs.register(password)
        let made = try t.h.register(email, password)
        let token = try #require(made.body["sessionToken"]?.stringValue)
        let accountId = try #require(made.body["accountId"]?.stringValue)
        try t.h.database().run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(accountId)])
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try t.w.register(phone, for: PasskeyWorld.Person(accountId: accountId, session: token))
        try t.h.database().run("UPDATE accounts SET email_verified = 0 WHERE id = ?", [.text(accountId)])
        let proof = try t.h.signInGoogle(try t.h.google.token(sub: "g-typed-keys", email: email))
        let ticket = try #require(proof.body["ticket"]?.stringValue, "\(proof.rawBody)")
        #expect(try t.h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try #require(t.h.smtp.lastCode(to: email))
        let joined = try t.h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(joined.status == 200, "\(joined.rawBody)")
        #expect(try t.passkeys(of: accountId) == 0)
        #expect(try t.w.signInWith(phone, userHandle: handle).status == 401)
    }

    /// A takeback never removes the last way in: an account whose only way in is its passkeys
    /// keeps them (its sessions end all the same).
    @Test func theLastWayInIsKept() throws {
        let t = try World()
        let (ada, signed) = try t.person("take-last")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try t.w.register(phone, for: ada)
        #expect(try t.h.admin(["unlink", ada.accountId, "google"]).status == 0)
        let out = try t.h.run("sign-out", json: #"{"scope":"all"}"#, authorization: signed.bearer)
        #expect(out.status == 200)
        #expect(try t.h.check(signed.bearer).status == 401)
        #expect(try t.passkeys(of: ada.accountId) == 1)
        #expect(try t.w.signInWith(phone, userHandle: handle).status == 200)
        #expect(try t.events(of: ada.accountId).filter { $0.hasPrefix("account.unlinked") }.isEmpty)
    }

    /// Every registration mails the account's address after the answer: what was added, from
    /// which device, and what to do if it was not them, with no link. An account without an
    /// address gets none.
    @Test func addingAPasskeyIsToldAtTheAddress() throws {
        let t = try World()
        let (ada, _) = try t.person("told-once", deviceName: "Ada's tablet")
        let before = t.h.smtp.messages.count
        _ = try t.w.register(try SoftwareAuthenticator(), for: ada)
        let mails = t.h.smtp.messages.dropFirst(before)
        #expect(mails.count == 1)
        let mail = try #require(mails.first)
        #expect(mail.recipients == ["<told-once@gmail.com>"] || mail.recipients == ["told-once@gmail.com"], "\(mail.recipients)")
        #expect(mail.data.contains("Subject: A passkey was added to your account"))
        #expect(mail.data.contains(#"A passkey named "My phone" was added"#), "\(mail.data)")
        #expect(mail.data.contains(#"calls itself "Ada's tablet""#), "\(mail.data)")
        #expect(mail.data.contains("sign\r\nout of every device, or reset your password"), "\(mail.data)")
        #expect(NoticeLinkTests.onlyLinkIsNotMe(mail.data), "no link")
        #expect(mail.code == nil)

        let nobody = try t.h.signedIn("told-none")
        let count = t.h.smtp.messages.count
        _ = try t.w.register(
            try SoftwareAuthenticator(), for: PasskeyWorld.Person(accountId: nobody.accountId, session: nobody.token))
        #expect(t.h.smtp.messages.count == count, "an account without an address gets no mail")
    }
}
