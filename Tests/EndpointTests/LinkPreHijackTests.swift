import DevSupport
import Shared
import Testing

/// The fourth review's T5-1 (issue 44): a squatter who typed someone's address must not link a
/// way in of his own with that session, or it outlives the owner's proof of the inbox (account
/// pre-hijacking). `link` on an address nobody proved is 403 `email_not_verified`, unless the
/// linked provider proves that very address. The review's sequences F1 and F1b, on both engines.
@Suite struct LinkPreHijackTests {
    static func resetByCode(_ w: SettingsWorld, _ address: String) throws -> CGIAnswer {
        let request = try w.h.verify([("action", "reset_request"), ("email", .string(address))])
        let code = try #require(w.h.smtp.lastCode(to: address))
        return try w.h.verify([
            ("action", "reset_confirm"), ("ticket", try #require(request.body["ticket"])), ("code", .string(code)),
            ("password", .string(SettingsWorld.newPassword)),
        ])
    }

    /// F1: the squatter registers the owner's Gmail address and links his own Google. Refused; the
    /// owner's own Google is then asked for proof (not `email_taken`), the reset by code gives the
    /// owner the account, and the squatter's Google makes an account of its own.
    @Test func aSquattersGoogleIsNotLinkedToAnAddressNobodyProved() throws {
        let w = try SettingsWorld()
        let victim = "victim.f1@gmail.com"
        let squatter = try w.typed(victim)
        let his = try w.h.google.token(sub: "squatter-f1", email: "squatter.f1@gmail.com")
        let link = try w.account("link", [("provider", "google"), ("idToken", .string(his))], as: squatter)
        #expect(link.status == 403 && link.errorCode == "email_not_verified", "\(link.rawBody)")
        #expect(try w.h.count("identities") == 0)
        let owners = try w.h.google.token(sub: "owner-f1", email: victim)
        let owner = try w.h.signInGoogle(owners)
        #expect(owner.status == 409 && owner.errorCode == "proof_required", "\(owner.rawBody)")
        let reset = try Self.resetByCode(w, victim)
        #expect(reset.status == 200 && reset.body["providers"]?.arrayValue == ["password"], "\(reset.rawBody)")
        let after = try w.h.signInGoogle(his)
        #expect(after.status == 200 && after.body["created"] == true, "\(after.rawBody)")
        #expect(after.body["accountId"]?.stringValue != squatter.accountId)
    }

    /// F1b: the squatter's Google carries the owner's non-Gmail address (Google does not speak for
    /// it, so the account's address is not proven), then he links his Apple ID. Refused; after the
    /// owner's reset neither of his ways in reaches the owner's account.
    @Test func aSquattersAppleIsNotLinkedToAnAddressHisGoogleDidNotProve() throws {
        let world = try AppleWorld()
        let w = SettingsWorld(h: world.h)
        let victim = "victim.f1b@example.org"
        let squatter = try w.google("squatter-f1b", email: victim)
        let nonce = AppleWorld.nonce()
        let apple = try world.apple.token(sub: "squatter-f1b-apple", rawNonce: nonce, email: "f1b@privaterelay.appleid.com")
        let link = try w.account(
            "link", [("provider", "apple"), ("identityToken", .string(apple)), ("rawNonce", .string(nonce))], as: squatter)
        #expect(link.status == 403 && link.errorCode == "email_not_verified", "\(link.rawBody)")
        #expect(try w.h.count("identities") == 1)
        #expect(world.firebase.userCount == 0, "the relay user is deleted all the same")
        _ = try w.h.register(victim, SettingsWorld.password)  // the owner's own attempt: the address is taken
        let reset = try Self.resetByCode(w, victim)
        #expect(reset.status == 200, "\(reset.rawBody)")
        let relink = try world.signInNew(sub: "squatter-f1b-apple", email: "f1b@privaterelay.appleid.com")
        #expect(relink.body["accountId"]?.stringValue != squatter.accountId, "\(relink.rawBody)")
    }

    /// The way that stays open: a provider that proves the account's very address links, and the
    /// address is proven by it (`account.email_verified`), as a join by password proves it.
    @Test func aProviderThatProvesTheVeryAddressLinksAndProvesIt() throws {
        let w = try SettingsWorld(events: true)
        let address = "proves.f1@gmail.com"
        let ada = try w.typed(address)
        let token = try w.h.google.token(sub: "proves-f1", email: address)
        let link = try w.account("link", [("provider", "google"), ("idToken", .string(token))], as: ada)
        #expect(link.status == 200 && link.body["emailVerified"] == true, "\(link.rawBody)")
        let events = try #require(w.events)
        #expect(events.taken.suffix(2) == [
            "account.email_verified \(ada.accountId) [password]", "account.linked \(ada.accountId) [google,password] google",
        ], "\(events.taken)")
        // Another Google's verified address that is not the account's proves nothing of it.
        let bob = try w.typed("proves.bob@gmail.com")
        let other = try w.h.google.token(sub: "proves-bob", email: "someone.else@gmail.com")
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(other))], as: bob).errorCode
            == "email_not_verified")
    }
}
