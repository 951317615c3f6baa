import DevSupport
import Shared
import Testing

/// `account` `link` (rule 18): Google or Apple added to the signed-in account, the token checked
/// by its sign-in's own code, never an identity another account has, one per provider, and the
/// token's address changing nothing. On both engines.
@Suite struct IdentityLinkTests {
    func linkGoogle(_ w: SettingsWorld, _ person: SettingsWorld.Person, _ token: String) throws -> CGIAnswer {
        try w.account("link", [("provider", "google"), ("idToken", .string(token))], as: person)
    }

    /// A password account gains Google: the answer is the account as stored, the identity then
    /// signs in to it, its address (another one) changes nothing, `account.linked` is delivered.
    @Test func googleJoinsAPasswordAccount() throws {
        let w = try SettingsWorld(events: true)
        let ada = try w.proven("link.ada@example.org")
        let token = try w.h.google.token(sub: "link-ada-google", email: "someone.else@gmail.com")
        let linked = try linkGoogle(w, ada, token)
        #expect(linked.status == 200, "\(linked.rawBody)")
        #expect(linked.body.objectValue?.map(\.0) == AccountTests.accountMembers)
        #expect(linked.body["email"]?.stringValue == "link.ada@example.org" && linked.body["emailVerified"] == true)
        #expect(linked.body["providers"]?.arrayValue?.compactMap { $0["provider"]?.stringValue } == ["google"])
        let signIn = try w.h.signInGoogle(token)
        #expect(signIn.body["accountId"]?.stringValue == ada.accountId && signIn.body["created"] == false)
        #expect(signIn.body["email"]?.stringValue == "link.ada@example.org")
        let events = try #require(w.events)
        #expect(events.taken.last == "account.linked \(ada.accountId) [google,password] google", "\(events.taken)")
        // A later reset is a takeback (rule 18): what a session from before it linked goes with
        // that session, since nothing tells the person's link from a thief's (the review's T5-4).
        let request = try w.h.verify([("action", "reset_request"), ("email", "link.ada@example.org")])
        let code = try #require(w.h.smtp.lastCode(to: "link.ada@example.org"))
        let reset = try w.h.verify([
            ("action", "reset_confirm"), ("ticket", try #require(request.body["ticket"])), ("code", .string(code)),
            ("password", .string(SettingsWorld.newPassword)),
        ])
        #expect(reset.body["providers"]?.arrayValue == ["password"], "\(reset.rawBody)")
    }

    /// Refusals, each changing nothing: 403 without a recent sign-in (before anything else),
    /// 409 `provider_linked` (before the token is looked at), 409 `identity_taken`, 401 for a token
    /// its sign-in would refuse, 400 for an unknown provider.
    @Test func linkRefusals() throws {
        let w = try SettingsWorld()
        let ada = try w.proven("refuse.link@example.org")
        let bob = try w.google("link-bob")
        let before = try w.snapshot()
        let bobs = try w.h.google.token(sub: "link-bob", email: "link-bob@gmail.com")
        let taken = try linkGoogle(w, ada, bobs)
        #expect(taken.status == 409 && taken.errorCode == "identity_taken", "\(taken.rawBody)")
        let forged = try linkGoogle(w, ada, "not.a.token")
        #expect(forged.status == 401 && forged.errorCode == "invalid_token")
        let otherApp = try w.h.google.token(sub: "link-other-app", email: nil, overrides: [("aud", "someone-elses-app")])
        #expect(try linkGoogle(w, ada, otherApp).errorCode == "invalid_token")
        let own = try linkGoogle(w, bob, try w.h.google.token(sub: "link-bob-second", email: nil))
        #expect(own.status == 409 && own.errorCode == "provider_linked", "\(own.rawBody)")
        let unknown = try w.account("link", [("provider", "facebook"), ("idToken", "x")], as: ada)
        #expect(unknown.status == 400 && unknown.errorCode == "invalid_request")
        #expect(try w.snapshot() == before)
        try w.age(ada)
        SettingsWorld.expectReauthentication(try linkGoogle(w, ada, bobs), methods: ["password"])
    }

    /// A Google token's nonce is checked as `signin-google` checks it: with `rawNonce` its claim
    /// must be the raw value's hash, and with `google.requireNonce` a link without one is refused.
    @Test func googlesNonceIsCheckedAsAtSignIn() throws {
        let w = try SettingsWorld()
        let ada = try w.proven("nonce.link@example.org")
        let raw = AppleWorld.nonce()
        let token = try w.h.google.token(sub: "nonce-link", email: nil, overrides: [("nonce", .string(FakeApple.nonceClaim(raw)))])
        let wrong = try w.account(
            "link", [("provider", "google"), ("idToken", .string(token)), ("rawNonce", .string(raw + "x"))], as: ada)
        #expect(wrong.status == 401 && wrong.errorCode == "invalid_token", "\(wrong.rawBody)")
        try w.h.writeConfig([("google", .object([
            ("clientIds", .array([.string(FakeGoogle.clientId)])), ("certsUrl", .string(w.h.google.certsURL)),
            ("requireNonce", true),
        ]))])
        let without = try w.account("link", [("provider", "google"), ("idToken", .string(token))], as: ada)
        #expect(without.status == 401 && without.errorCode == "invalid_token", "\(without.rawBody)")
        #expect(try w.h.count("identities") == 0)
        let right = try w.account(
            "link", [("provider", "google"), ("idToken", .string(token)), ("rawNonce", .string(raw))], as: ada)
        #expect(right.status == 200, "\(right.rawBody)")
    }

    /// Apple through the relay: the nonce is spent, the relay user is deleted after the answer,
    /// and the Apple identity then signs in to the account. Without a recent sign-in, or with an
    /// Apple identity already linked, the nonce is not spent and Firebase is not asked.
    @Test func appleJoinsThroughTheRelay() throws {
        let world = try AppleWorld()
        let w = SettingsWorld(h: world.h)
        let ada = try w.google("apple-link-ada")
        let nonce = AppleWorld.nonce()
        let token = try world.apple.token(sub: "apple-link-sub", rawNonce: nonce, email: "relay@privaterelay.appleid.com")
        let body: [(String, JSONValue)] = [("provider", "apple"), ("identityToken", .string(token)), ("rawNonce", .string(nonce))]
        let linked = try w.account("link", body, as: ada)
        #expect(linked.status == 200, "\(linked.rawBody) \(linked.stderr)")
        #expect(linked.body["providers"]?.arrayValue?.compactMap { $0["provider"]?.stringValue } == ["apple", "google"])
        #expect(linked.body["email"]?.stringValue == "apple-link-ada@gmail.com")
        #expect(world.firebase.usersCreated == 1 && world.firebase.userCount == 0, "the relay user is deleted")
        #expect(try w.h.count("relay_cleanups") == 0)
        // The same token and nonce again: the nonce is spent (rule 5).
        #expect(try w.account("link", body, as: ada).errorCode == "provider_linked")
        let signIn = try world.signInNew(sub: "apple-link-sub", email: "relay@privaterelay.appleid.com")
        #expect(signIn.body["accountId"]?.stringValue == ada.accountId, "\(signIn.rawBody)")
        // Refused before the token: no nonce spent, Firebase not asked.
        let bob = try w.google("apple-link-bob")
        try w.age(bob)
        let asked = world.firebase.signInRequests
        let nonces = try w.h.count(.nonce)
        let freshNonce = AppleWorld.nonce()
        let fresh = try world.apple.token(sub: "apple-link-bob-sub", rawNonce: freshNonce)
        let old = try w.account(
            "link", [("provider", "apple"), ("identityToken", .string(fresh)), ("rawNonce", .string(freshNonce))], as: bob)
        SettingsWorld.expectReauthentication(old, methods: ["google"])
        #expect(try world.firebase.signInRequests == asked && w.h.count(.nonce) == nonces)
        // A replayed nonce is refused as its sign-in refuses it.
        let carol = try w.google("apple-link-carol")
        let replay = try w.account("link", body, as: carol)
        #expect(replay.status == 401 && replay.errorCode == "invalid_token", "\(replay.rawBody)")
    }
}

extension SettingsWorld {
    /// A world over a harness made elsewhere (an `AppleWorld`'s).
    init(h: Harness) {
        self.h = h
        events = nil
    }
}
