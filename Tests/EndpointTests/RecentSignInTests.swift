import DevSupport
import Shared
import Testing

/// Rule 18's recent sign-in: a session made, or proven again by a real sign-in sent with its own
/// bearer, within `sessions.recentSignInSeconds`; a renewal is not one. Every kind of sign-in
/// proves a session in place (same token and `sessionId`, no new session); another account's is
/// 409 `account_mismatch` with nothing changed. On both engines.
@Suite struct RecentSignInTests {
    /// The session made by a sign-in is recent; aged past the window it is not (403 with the
    /// account's ways in); the same Google sign-in sent with its bearer proves it again in place.
    @Test func aGoogleSignInWithTheBearerProvesTheSessionAgainInPlace() throws {
        let w = try SettingsWorld()
        let ada = try w.google("recent-ada")
        try w.age(ada)
        SettingsWorld.expectReauthentication(
            try w.account("change_email", [("newEmail", "ada.new@example.org")], as: ada), methods: ["google"])
        let sessions = try w.h.count("sessions")
        let token = try w.h.google.token(sub: "recent-ada", email: "recent-ada@gmail.com")
        let again = try w.h.run(
            "signin-google", json: JSONValue.object([("idToken", .string(token)), ("deviceName", "Other name")]).serialized,
            authorization: ada.bearer)
        #expect(again.status == 200, "\(again.rawBody)")
        #expect(again.body["reauthenticated"] == true && again.body["created"] == false)
        #expect(again.body["sessionToken"]?.stringValue == ada.token)
        #expect(again.body["sessionId"]?.stringValue == ada.sessionId)
        #expect(again.body["accountId"]?.stringValue == ada.accountId)
        #expect(try w.h.count("sessions") == sessions, "no new session, no new device row")
        // The device keeps its name: a reauthentication is no new device.
        let device = try w.h.database().query("SELECT device_name FROM sessions WHERE session_id = ?", [.text(ada.sessionId)])
        #expect(device.first?.text(0) == nil)
        #expect(try w.signedInAt(ada).map { $0 >= Clock.now() - 60 } == true)
        let changed = try w.account("change_email", [("newEmail", "ada.new@example.org")], as: ada)
        #expect(changed.status == 200, "\(changed.rawBody)")
        // A sign-in without the bearer still makes a session of its own, and says nothing of it.
        let plain = try w.h.signInGoogle(token)
        #expect(plain.status == 200 && plain.body["reauthenticated"] == nil)
        #expect(plain.body["sessionId"]?.stringValue != ada.sessionId)
    }

    /// A renewal (rule 11) moves the expiry, never the recent sign-in.
    @Test func aRenewalIsNotASignIn() throws {
        let w = try SettingsWorld(config: [("sessions", .object([("renewAfterSeconds", 0)]))])
        let ada = try w.google("renewed-ada")
        try w.age(ada)
        let before = try w.signedInAt(ada)
        try w.h.age(ada.sessionId, by: 5)
        let checked = try w.h.check(ada.bearer)
        #expect(checked.status == 200)
        #expect(try w.h.stored(ada.sessionId).map { $0.lastUsedAt >= Clock.now() - 60 } == true, "renewed")
        #expect(try w.signedInAt(ada) == before)
        SettingsWorld.expectReauthentication(
            try w.account("set_password", [("newPassword", .string(SettingsWorld.newPassword))], as: ada),
            methods: ["google"])
    }

    /// `sessions.recentSignInSeconds` sets the window.
    @Test func theWindowIsTheConfiguredOne() throws {
        let w = try SettingsWorld(config: [("sessions", .object([("recentSignInSeconds", 60)]))])
        let ada = try w.google("window-ada")
        try w.age(ada, by: 30)
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.newPassword))], as: ada).status == 200)
        let bob = try w.google("window-bob")
        try w.age(bob, by: 90)
        SettingsWorld.expectReauthentication(
            try w.account("set_password", [("newPassword", .string(SettingsWorld.newPassword))], as: bob),
            methods: ["google"])
    }

    /// A password login, and a reset, sent with the bearer prove the session in place; a reset
    /// ends every other session all the same.
    @Test func aLoginAndAResetProveTheSessionInPlace() throws {
        let w = try SettingsWorld()
        let ada = try w.proven("login.ada@example.org")
        let other = try SettingsWorld.person(try w.h.login("login.ada@example.org", SettingsWorld.password))
        try w.age(ada)
        let login = try w.h.run(
            "signin-email",
            json: JSONValue.object([
                ("action", "login"), ("email", "login.ada@example.org"), ("password", .string(SettingsWorld.password)),
            ]).serialized, authorization: ada.bearer)
        #expect(login.status == 200 && login.body["reauthenticated"] == true, "\(login.rawBody)")
        #expect(login.body["sessionId"]?.stringValue == ada.sessionId)
        #expect(login.body["providers"]?.arrayValue == ["password"])
        try w.age(ada)
        let request = try w.h.verify([("action", "reset_request"), ("email", "login.ada@example.org")])
        let ticket = try #require(request.body["ticket"]?.stringValue)
        let code = try #require(w.h.smtp.lastCode(to: "login.ada@example.org"))
        let reset = try w.h.verify(
            [("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
             ("password", .string(SettingsWorld.newPassword))], authorization: ada.bearer)
        #expect(reset.status == 200 && reset.body["reauthenticated"] == true, "\(reset.rawBody)")
        #expect(reset.body["sessionToken"]?.stringValue == ada.token)
        #expect(try w.h.check(ada.bearer).status == 200)
        #expect(try w.h.check(other.bearer).status == 401, "a reset ends every other session")
        #expect(try w.h.count("sessions") == 1)
        #expect(try w.signedInAt(ada).map { $0 >= Clock.now() - 60 } == true)
    }

    /// Apple (through the relay) proves a session of the same account in place.
    @Test func anAppleSignInProvesTheSessionInPlace() throws {
        let world = try AppleWorld()
        let first = try world.signInNew(sub: "apple-recent", email: "apple.recent@example.org")
        let ada = try SettingsWorld.person(first)
        try world.h.database().run(
            "UPDATE sessions SET signed_in_at = signed_in_at - 700 WHERE session_id = ?", [.text(ada.sessionId)])
        let nonce = AppleWorld.nonce()
        let token = try world.apple.token(sub: "apple-recent", rawNonce: nonce, email: "apple.recent@example.org")
        let again = try world.h.run("signin-apple", json: AppleWorld.body(token, nonce: nonce), authorization: ada.bearer)
        #expect(again.status == 200 && again.body["reauthenticated"] == true, "\(again.rawBody)")
        #expect(again.body["sessionId"]?.stringValue == ada.sessionId && again.body["sessionToken"]?.stringValue == ada.token)
        #expect(try world.h.count("sessions") == 1)
        #expect(world.firebase.userCount == 0, "the relay user is deleted as for any sign-in")
        // Another person's Apple token with this bearer: 409, nothing written, its nonce spent.
        let otherNonce = AppleWorld.nonce()
        let other = try world.apple.token(sub: "apple-someone-else", rawNonce: otherNonce, email: "else@example.org")
        let before = try DeviceNameTests.snapshot(world.h).filter { !$0.hasPrefix("ephemeral:") }
        let refused = try world.h.run("signin-apple", json: AppleWorld.body(other, nonce: otherNonce), authorization: ada.bearer)
        #expect(refused.status == 409 && refused.errorCode == "account_mismatch", "\(refused.rawBody)")
        #expect(try DeviceNameTests.snapshot(world.h).filter { !$0.hasPrefix("ephemeral:") } == before)
        #expect(try world.h.count("accounts") == 1)
    }

    /// A passkey sign-in proves the session in place; another account's passkey is 409.
    @Test func aPasskeySignInProvesTheSessionInPlace() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("passkey-recent-ada")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try w.register(phone, for: ada)
        let session = try #require(try w.h.database().query(
            "SELECT session_id FROM sessions WHERE account_id = ?", [.text(ada.accountId)]).first?.text(0))
        try w.h.database().run("UPDATE sessions SET signed_in_at = 1 WHERE session_id = ?", [.text(session)])
        let begun = try w.signInBegin()
        let response = try phone.assert(
            challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle)
        let body = JSONValue.object([
            ("action", "finish"), ("ceremonyId", .string(begun.ceremonyId)),
            ("credential", SoftwareAuthenticator.json(response)),
        ]).serialized
        let again = try w.h.run("signin-passkey", json: body, authorization: ada.bearer)
        #expect(again.status == 200 && again.body["reauthenticated"] == true, "\(again.rawBody)")
        #expect(again.body["sessionId"]?.stringValue == session && again.body["sessionToken"]?.stringValue == ada.session)
        #expect(try w.h.count("sessions") == 1)
        // Bob's session with Ada's passkey: 409, and the ceremony is not spent by it.
        let bob = try w.person("passkey-recent-bob")
        let begunAgain = try w.signInBegin()
        let assertion = try phone.assert(
            challenge: begunAgain.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle)
        let crossed = JSONValue.object([
            ("action", "finish"), ("ceremonyId", .string(begunAgain.ceremonyId)),
            ("credential", SoftwareAuthenticator.json(assertion)),
        ]).serialized
        let before = try w.snapshot()
        let refused = try w.h.run("signin-passkey", json: crossed, authorization: bob.bearer)
        #expect(refused.status == 409 && refused.errorCode == "account_mismatch", "\(refused.rawBody)")
        #expect(try w.snapshot() == before)
    }

    /// Every sign-in of another account, or of an identity no account has, sent with a bearer:
    /// 409 `account_mismatch`, and the store is as it was (no account, session, join or ticket).
    @Test func anotherAccountsSignInIsRefusedAndChangesNothing() throws {
        let w = try SettingsWorld()
        let ada = try w.google("mismatch-ada")
        let bob = try w.proven("mismatch.bob@example.org")
        let before = try w.snapshot()
        func refused(_ answer: CGIAnswer, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(answer.status == 409 && answer.errorCode == "account_mismatch", "\(label): \(answer.rawBody)",
                    sourceLocation: sourceLocation)
            #expect(try w.snapshot().filter { !$0.hasPrefix("ephemeral:") } == before.filter { !$0.hasPrefix("ephemeral:") },
                    "\(label) changed the store", sourceLocation: sourceLocation)
        }
        // Bob's returning Google... Bob has none: a new Google identity (no account has it).
        let stranger = try w.h.google.token(sub: "mismatch-stranger", email: "stranger@gmail.com")
        try refused(
            try w.h.run("signin-google", json: JSONValue.object([("idToken", .string(stranger))]).serialized,
                        authorization: ada.bearer), "a new identity")
        // A Google token whose address would join Bob's account (proven, Google speaks for gmail).
        let joining = try w.h.google.token(sub: "mismatch-joiner", email: "mismatch.bob@example.org")
        try refused(
            try w.h.run("signin-google", json: JSONValue.object([("idToken", .string(joining))]).serialized,
                        authorization: ada.bearer), "a join by address")
        // Ada's Google with Bob's session.
        let adas = try w.h.google.token(sub: "mismatch-ada", email: "mismatch-ada@gmail.com")
        try refused(
            try w.h.run("signin-google", json: JSONValue.object([("idToken", .string(adas))]).serialized,
                        authorization: bob.bearer), "another account's identity")
        // Bob's password with Ada's session (after the password: a wrong one is 401 as ever).
        let login = { (password: String) in
            JSONValue.object([
                ("action", "login"), ("email", "mismatch.bob@example.org"), ("password", .string(password)),
            ]).serialized
        }
        let wrong = try w.h.run("signin-email", json: login("not the password at all"), authorization: ada.bearer)
        #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials")
        let right = try w.h.run("signin-email", json: login(SettingsWorld.password), authorization: ada.bearer)
        #expect(right.status == 409 && right.errorCode == "account_mismatch", "\(right.rawBody)")
        // A registration with a session makes no account.
        let register = JSONValue.object([
            ("action", "register"), ("email", "never.made@example.org"), ("password", .string(SettingsWorld.password)),
        ]).serialized
        try refused(try w.h.run("signin-email", json: register, authorization: ada.bearer), "a registration")
        #expect(try w.h.count("accounts") == 2)
    }

    /// A confirm whose ticket is of another account is refused before its code counts a try;
    /// the same confirm with the right session then works, in place.
    @Test func aConfirmWithAnotherAccountsSessionCountsNoTry() throws {
        let w = try SettingsWorld()
        let ada = try w.google("confirm-ada")
        let bob = try w.typed("confirm.bob@example.org")
        let own = try w.h.verify([("action", "verify_own_email")], authorization: bob.bearer)
        let ticket = try #require(own.body["ticket"]?.stringValue)
        #expect(try w.h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try #require(w.h.smtp.lastCode(to: "confirm.bob@example.org"))
        let before = try w.snapshot()
        let crossed = try w.h.verify(
            [("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))], authorization: ada.bearer)
        #expect(crossed.status == 409 && crossed.errorCode == "account_mismatch", "\(crossed.rawBody)")
        #expect(try w.snapshot() == before, "no try counted, the ticket unspent")
        let confirmed = try w.h.verify(
            [("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))], authorization: bob.bearer)
        #expect(confirmed.status == 200 && confirmed.body["reauthenticated"] == true, "\(confirmed.rawBody)")
        #expect(confirmed.body["sessionId"]?.stringValue == bob.sessionId)
    }

    /// A code-proof join to an address that was typed and never proven clears the password and
    /// ends the account's sessions (rule 3); sent with a session of that account, it proves that
    /// one in place and ends every other (docs/security.md says why).
    @Test func aCodeProofJoinWithTheBearerEndsEveryOtherSession() throws {
        let w = try SettingsWorld()
        let typed = try w.typed("join.typed@gmail.com")
        let second = try SettingsWorld.person(try w.h.login("join.typed@gmail.com", SettingsWorld.password))
        let proof = try w.h.signInGoogle(try w.h.google.token(sub: "join-typed-google", email: "join.typed@gmail.com"))
        #expect(proof.status == 409, "\(proof.rawBody)")
        let ticket = try #require(proof.body["ticket"]?.stringValue)
        #expect(try w.h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try #require(w.h.smtp.lastCode(to: "join.typed@gmail.com"))
        let joined = try w.h.verify(
            [("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))], authorization: typed.bearer)
        #expect(joined.status == 200 && joined.body["reauthenticated"] == true, "\(joined.rawBody)")
        #expect(joined.body["providers"]?.arrayValue == ["google"], "the typed password is cleared")
        #expect(try w.h.check(typed.bearer).status == 200)
        #expect(try w.h.check(second.bearer).status == 401)
    }

    /// A bearer that is no live session is 401 on a sign-in, before anything is made.
    @Test func aDeadBearerIsRefused() throws {
        let w = try SettingsWorld()
        let ada = try w.google("dead-ada")
        #expect(try w.h.run("sign-out", json: "{}", authorization: ada.bearer).status == 200)
        let before = try w.snapshot()
        let token = try w.h.google.token(sub: "dead-ada", email: "dead-ada@gmail.com")
        let answer = try w.h.run(
            "signin-google", json: JSONValue.object([("idToken", .string(token))]).serialized, authorization: ada.bearer)
        #expect(answer.status == 401 && answer.errorCode == "unauthorized", "\(answer.rawBody)")
        #expect(try w.snapshot() == before)
    }

    /// The review's finding (issue 29, 2): a session alone adds no passkey; once proven again it can.
    @Test func registerBeginNeedsARecentSignIn() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("passkey-gate-ada")
        try w.h.database().run("UPDATE sessions SET signed_in_at = signed_in_at - 700 WHERE account_id = ?", [.text(ada.accountId)])
        let before = try w.snapshot()
        let begin = try w.passkey([("action", "register_begin")], ada)
        SettingsWorld.expectReauthentication(begin, methods: ["google"])
        #expect(try w.snapshot() == before, "no ceremony, nothing counted")
        let token = try w.h.google.token(sub: "passkey-gate-ada", email: "passkey-gate-ada@gmail.com")
        let again = try w.h.run(
            "signin-google", json: JSONValue.object([("idToken", .string(token))]).serialized, authorization: ada.bearer)
        #expect(again.body["reauthenticated"] == true, "\(again.rawBody)")
        _ = try w.registerBegin(ada)
    }
}
