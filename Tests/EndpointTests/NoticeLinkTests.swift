import DevSupport
import Shared
import Testing

/// Rule 18's "This wasn't me" (issue 44, T5-6): every notice of a change to a way in carries a
/// link to the kit's page, whose one button (`verify-email` `not_me`) signs the account out
/// everywhere as a takeback, once, within the notice's life. On both engines.
@Suite struct NoticeLinkTests {
    /// The token of the last notice mailed to `address`, read from its link.
    static func token(_ w: SettingsWorld, to address: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let mail = try #require(w.mails(to: address).last, sourceLocation: sourceLocation)
        let prefix = Harness.pageUrl + "#not-me="
        let line = try #require(
            mail.data.split(separator: "\r\n").first { $0.hasPrefix(prefix) }, "\(mail.data)", sourceLocation: sourceLocation)
        return String(line.dropFirst(prefix.count))
    }

    /// A notice's one link is its "This wasn't me": nothing in it signs anyone in.
    static func onlyLinkIsNotMe(_ mail: String) -> Bool {
        let links = mail.split(separator: "\r\n").filter { $0.contains("http") }
        return links.count == 1 && links[0].hasPrefix(Harness.pageUrl + "#not-me=")
    }

    static func notMe(_ w: SettingsWorld, _ token: String) throws -> CGIAnswer {
        try w.h.verify([("action", "not_me"), ("token", .string(token))])
    }

    static func alive(_ w: SettingsWorld, _ person: SettingsWorld.Person) throws -> Bool {
        try w.h.run("session", json: "{}", authorization: person.bearer).status == 200
    }

    /// The review's sequence told: a thief's stolen recent session links his Google; the owner's
    /// notice of it carries the link; pressing it ends both sessions and takes his Google back.
    /// The link works once: pressed again it is `invalid_ticket` and changes nothing.
    @Test func theLinkSignsOutEverywhereAndTakesBackWhatTheyAdded() throws {
        let w = try SettingsWorld()
        let address = "owner.notme@example.org"
        let thief = try w.proven(address)
        let owner = try SettingsWorld.person(try w.h.login(address, SettingsWorld.password))
        let his = try w.h.google.token(sub: "thief-notme", email: "thief.notme@gmail.com")
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(his))], as: thief).status == 200)
        let mail = try #require(w.mails(to: address).last)
        #expect(mail.data.contains("Subject: Google sign-in was added to your account"), "\(mail.data)")
        let token = try Self.token(w, to: address)

        let used = try Self.notMe(w, token)
        #expect(used.status == 200, "\(used.rawBody) \(used.stderr)")
        #expect(used.body["signedOut"] == true && used.body["ended"] == 2, "\(used.rawBody)")
        #expect(try !Self.alive(w, thief) && !Self.alive(w, owner))
        #expect(try w.h.count("identities") == 0)
        let after = try w.h.signInGoogle(his)
        #expect(after.body["accountId"]?.stringValue != owner.accountId, "\(after.rawBody)")

        let back = try SettingsWorld.person(try w.h.login(address, SettingsWorld.password))
        let before = try w.snapshot()
        let again = try Self.notMe(w, token)
        #expect(again.status == 400 && again.errorCode == "invalid_ticket", "\(again.rawBody)")
        #expect(try w.snapshot() == before)
        #expect(try Self.alive(w, back))
    }

    /// Every change rule 18 tells carries its own link: a password changed, an address change
    /// begun (to the old address), a provider unlinked, a password set, a passkey removed is in
    /// PasskeyTests' world.
    @Test(arguments: ["change_password", "change_email", "unlink", "set_password"])
    func everyNoticeCarriesALinkThatWorks(_ change: String) throws {
        let w = try SettingsWorld()
        // Google proves a Gmail address: the unlink and the set start from a Google account.
        let address = [
            "change_password": "notme.password@example.org", "change_email": "notme.email@example.org",
            "unlink": "notme.unlink@gmail.com", "set_password": "notme.set@gmail.com",
        ][change] ?? ""
        var person: SettingsWorld.Person
        switch change {
        case "change_password":
            person = try w.proven(address)
            let answer = try w.account(
                change, [("currentPassword", .string(SettingsWorld.password)), ("newPassword", .string(SettingsWorld.newPassword))],
                as: person)
            #expect(answer.status == 200, "\(answer.rawBody)")
        case "change_email":
            person = try w.proven(address)
            #expect(try w.account(change, [("newEmail", "elsewhere.notme@example.org")], as: person).status == 200)
        case "unlink":
            person = try w.google("notme-unlink", email: address)
            #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: person).status == 200)
            #expect(try w.account(change, [("provider", "google")], as: person).status == 200)
        default:
            person = try w.google("notme-set", email: address)
            #expect(try w.account(change, [("newPassword", .string(SettingsWorld.password))], as: person).status == 200)
        }
        let token = try Self.token(w, to: address)
        #expect(try Self.alive(w, person))
        let used = try Self.notMe(w, token)
        #expect(used.status == 200 && used.body["ended"] == 1, "\(change): \(used.rawBody)")
        #expect(try !Self.alive(w, person), "\(change)")
        if change == "change_email" {
            // The takeback voids the change the notice told of: its code no longer moves the account.
            #expect(try w.h.count("email_tickets") == 0)
        }
    }

    /// Past the notice's life, with a forged tag, or malformed: `invalid_ticket`, nothing changes.
    @Test func anOldForgedOrMalformedLinkChangesNothing() throws {
        let w = try SettingsWorld()
        let ada = try w.proven("ada.notme@example.org")
        let bob = try w.proven("bob.notme@example.org")
        #expect(try w.account("change_email", [("newEmail", "ada.elsewhere@example.org")], as: ada).status == 200)
        let adas = try Self.token(w, to: "ada.notme@example.org")
        #expect(try w.account("change_email", [("newEmail", "bob.elsewhere@example.org")], as: bob).status == 200)
        let bobs = try Self.token(w, to: "bob.notme@example.org")
        let ada2 = try #require(Base64URL.decode(adas)), bob2 = try #require(Base64URL.decode(bobs))
        // Ada's account tag with Bob's secret, and the other way round: neither is a link.
        let forged = [Base64URL.encode(ada2.prefix(16) + bob2.suffix(32)), Base64URL.encode(bob2.prefix(16) + ada2.suffix(32))]
        let before = try w.snapshot()
        for token in forged + ["", "not base64!", String(adas.dropLast()), adas + "AA", String(repeating: "A", count: 200)] {
            let answer = try Self.notMe(w, token)
            #expect(answer.status == 400, "\(token): \(answer.rawBody)")
            #expect(["invalid_ticket", "invalid_request"].contains(answer.errorCode ?? ""), "\(token): \(answer.rawBody)")
        }
        #expect(try w.snapshot() == before)
        try w.h.database().run("UPDATE ephemeral SET expires_at = 1 WHERE kind = ?", [.integer(Ephemeral.Kind.noticeLink.rawValue)])
        let old = try Self.notMe(w, adas)
        #expect(old.status == 400 && old.errorCode == "invalid_ticket", "\(old.rawBody)")
        #expect(try Self.alive(w, ada) && Self.alive(w, bob))
    }

    /// The links are the account's: deleting it removes them, and nothing of it stays behind.
    @Test func deletingTheAccountRemovesItsLinks() throws {
        let w = try SettingsWorld()
        let ada = try w.proven("ada.gone@example.org")
        let bob = try w.proven("bob.stays@example.org")
        for person in [ada, bob] {
            #expect(try w.account("change_email", [("newEmail", .string("\(person.accountId)@example.net"))], as: person).status == 200)
        }
        #expect(try w.h.count(.noticeLink) == 2)
        let token = try Self.token(w, to: "ada.gone@example.org")
        #expect(try w.h.run("delete-account", json: "{}", authorization: ada.bearer).status == 200)
        #expect(try w.h.count(.noticeLink) == 1)
        #expect(try Self.notMe(w, token).errorCode == "invalid_ticket")
        #expect(try Self.notMe(w, try Self.token(w, to: "bob.stays@example.org")).status == 200)
    }

    /// Without a page (no `mail.pageUrl`, no passkeys) the notice goes as before, without a link,
    /// and the store keeps nothing for it.
    @Test func withoutAPageTheNoticeGoesWithoutALink() throws {
        let w = try SettingsWorld()
        try w.h.writeConfig([("mail", .object([
            ("smtpUrl", .string(w.h.smtp.url)), ("from", "frontdoor-test@localhost"), ("timeoutSeconds", 3),
        ]))])
        let ada = try w.google("notme-nopage", email: "nopage@gmail.com")
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: ada).status == 200)
        let mail = try #require(w.mails(to: "nopage@gmail.com").last)
        #expect(mail.data.contains("A password was added") && !mail.data.contains("not-me"), "\(mail.data)")
        #expect(try w.h.count(.noticeLink) == 0)
    }
}
