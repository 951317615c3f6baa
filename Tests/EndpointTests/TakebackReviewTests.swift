import DevSupport
import Shared
import Testing

/// The fourth review's T5-3 and T5-4 (issue 44): what a stolen recent session did must not outlive
/// the owner's taking the account back. An identity it linked goes as its passkeys go, and an
/// address change it began is voided, by every takeback (and by a change of password). The
/// review's sequences, on both engines.
@Suite struct TakebackReviewTests {
    static let takebacks = ["reset", "sign-out all", "admin disable", "admin sign-out"]

    /// The owner (a proven password account, signed in twice: one session is the thief's) takes
    /// the account back by `takeback`.
    static func takeBack(_ takeback: String, _ w: SettingsWorld, owner: SettingsWorld.Person, address: String) throws {
        switch takeback {
        case "reset":
            #expect(try LinkPreHijackTests.resetByCode(w, address).status == 200)
        case "sign-out all":
            let out = try w.h.run("sign-out", json: #"{"scope":"all"}"#, authorization: owner.bearer)
            #expect(out.status == 200, "\(out.rawBody)")
        case "change_password":
            let changed = try w.account(
                "change_password", [("currentPassword", .string(SettingsWorld.password)),
                                    ("newPassword", .string(SettingsWorld.newPassword))], as: owner)
            #expect(changed.status == 200, "\(changed.rawBody)")
        case "admin disable":
            #expect(try w.h.admin(["disable", owner.accountId]).status == 0)
            #expect(try w.h.admin(["enable", owner.accountId]).status == 0)
        default:
            #expect(try w.h.admin(["sign-out", owner.accountId]).status == 0)
        }
    }

    /// T5-4: the thief links his Google with the stolen recent session; after the takeback his
    /// Google no longer reaches the owner's account (it makes one of its own), and the app hears
    /// `account.unlinked`.
    @Test(arguments: takebacks)
    func anIdentityAStolenSessionLinkedIsTakenBack(_ takeback: String) throws {
        let w = try SettingsWorld(events: true)
        let address = "owner.t54.\(takeback.replacingAll(" ", with: "-"))@example.org"
        let thief = try w.proven(address)
        let owner = try SettingsWorld.person(try w.h.login(address, SettingsWorld.password))
        let his = try w.h.google.token(sub: "thief-t54-\(takeback.replacingAll(" ", with: "-"))", email: "thief.t54@gmail.com")
        let linked = try w.account("link", [("provider", "google"), ("idToken", .string(his))], as: thief)
        #expect(linked.status == 200, "\(linked.rawBody)")
        try Self.takeBack(takeback, w, owner: owner, address: address)
        #expect(try w.h.count("identities") == 0, "\(takeback)")
        let after = try w.h.signInGoogle(his)
        #expect(after.status == 200 && after.body["accountId"]?.stringValue != owner.accountId, "\(takeback): \(after.rawBody)")
        let events = try #require(w.events)
        #expect(events.taken.contains { $0.hasPrefix("account.unlinked \(owner.accountId) ") && $0.hasSuffix(" google") },
                "\(takeback): \(events.taken)")
    }

    /// An identity that came by a sign-in (the Google she signed up with) was linked by no
    /// session: a takeback leaves it.
    @Test func anIdentityThatCameByASignInStays() throws {
        let w = try SettingsWorld()
        let ada = try w.google("t54-ada")
        let out = try w.h.run("sign-out", json: #"{"scope":"all"}"#, authorization: ada.bearer)
        #expect(out.status == 200)
        #expect(try w.h.count("identities") == 1)
        #expect(try w.google("t54-ada").accountId == ada.accountId)
    }

    /// The last way in stays: an account whose only way in is the Google a session linked keeps it
    /// (syslog says so); the person removes what they do not know.
    @Test func theLastWayInIsNeverTakenBack() throws {
        let w = try SettingsWorld()
        let address = "t54.last@example.org"
        let ada = try w.proven(address)
        let google = try w.h.google.token(sub: "t54-last", email: "t54.last.google@gmail.com")
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(google))], as: ada).status == 200)
        #expect(try w.account("unlink", [("provider", "password")], as: ada).status == 200)
        let out = try w.h.run("sign-out", json: #"{"scope":"all"}"#, authorization: ada.bearer)
        #expect(out.status == 200)
        #expect(try w.h.count("identities") == 1)
        let back = try w.h.signInGoogle(google)
        #expect(back.body["accountId"]?.stringValue == ada.accountId, "\(back.rawBody)")
    }

    /// T5-3: the thief begins an address change to his own address with the stolen recent
    /// session; after the owner's takeback (or change of password) its code confirms nothing.
    @Test(arguments: takebacks + ["change_password"])
    func anAddressChangeAStolenSessionBeganIsVoided(_ takeback: String) throws {
        let w = try SettingsWorld()
        let tag = takeback.replacingAll(" ", with: "-").replacingAll("_", with: "-")
        let address = "owner.t53.\(tag)@example.org"
        let thiefAddress = "thief.t53.\(tag)@example.net"
        let thief = try w.proven(address)
        let owner = try SettingsWorld.person(try w.h.login(address, SettingsWorld.password))
        let change = try w.account("change_email", [("newEmail", .string(thiefAddress))], as: thief)
        #expect(change.status == 200, "\(change.rawBody)")
        let ticket = try #require(change.body["ticket"]?.stringValue)
        let code = try #require(w.h.smtp.lastCode(to: thiefAddress))
        try Self.takeBack(takeback, w, owner: owner, address: address)
        let confirm = try w.h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(confirm.status == 400 && confirm.errorCode == "invalid_ticket", "\(takeback): \(confirm.rawBody)")
        let stored = try w.h.database().query("SELECT email FROM accounts WHERE id = ?", [.text(owner.accountId)])
        #expect(stored.first?.text(0) == address, "\(takeback)")
    }

    /// T5-5: a reset asked at the old address and confirmed after the account moved resets nothing.
    @Test func aCodeMailedToTheOldAddressDiesWithTheMove() throws {
        let w = try SettingsWorld()
        let old = "t55.old@example.org", new = "t55.new@example.net"
        let ada = try w.proven(old)
        let asked = try w.h.verify([("action", "reset_request"), ("email", .string(old))])
        let oldCode = try #require(w.h.smtp.lastCode(to: old))
        let change = try w.account("change_email", [("newEmail", .string(new))], as: ada)
        let moved = try w.h.verify([
            ("action", "confirm"), ("ticket", try #require(change.body["ticket"])),
            ("code", .string(try #require(w.h.smtp.lastCode(to: new)))),
        ])
        #expect(moved.status == 200 && moved.body["email"]?.stringValue == new, "\(moved.rawBody)")
        let reset = try w.h.verify([
            ("action", "reset_confirm"), ("ticket", asked.body["ticket"] ?? .null), ("code", .string(oldCode)),
            ("password", .string(SettingsWorld.newPassword)),
        ])
        #expect(reset.status == 400 && reset.errorCode == "invalid_ticket", "\(reset.rawBody)")
        #expect(try w.h.login(new, SettingsWorld.password).status == 200)
    }

    /// T5-6: the person is told at their address of a link and an unlink, and at the old address
    /// as soon as an address change is begun (not only once it is done). No notice carries a link.
    @Test func linksUnlinksAndABegunAddressChangeAreTold() throws {
        let w = try SettingsWorld()
        let address = "t56.told@example.org"
        let ada = try w.proven(address)
        let told = { w.mails(to: address).count }
        var seen = told()
        let google = try w.h.google.token(sub: "t56-told", email: "t56.someone@gmail.com")
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(google))], as: ada).status == 200)
        #expect(told() == seen + 1)
        let linked = try #require(w.mails(to: address).last?.data)
        #expect(linked.contains("Subject: Google sign-in was added to your account") && NoticeLinkTests.onlyLinkIsNotMe(linked), "\(linked)")
        seen = told()
        #expect(try w.account("unlink", [("provider", "google")], as: ada).status == 200)
        #expect(told() == seen + 1)
        #expect(w.mails(to: address).last?.data.contains("Subject: Google sign-in was removed from your account") == true)
        seen = told()
        let change = try w.account("change_email", [("newEmail", "t56.elsewhere@example.net")], as: ada)
        #expect(change.status == 200, "\(change.rawBody)")
        #expect(told() == seen + 1, "the old address is told at the start")
        let begun = try #require(w.mails(to: address).last?.data)
        #expect(begun.contains("Subject: A change of your account's email address was asked for") && NoticeLinkTests.onlyLinkIsNotMe(begun))
        #expect(!begun.contains("t56.elsewhere"), "the old address is not told the new one")
    }
}
