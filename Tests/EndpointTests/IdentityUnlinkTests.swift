import DevSupport
import Shared
import Testing

/// `account` `unlink` (rule 18), and `passkey` `delete` under the same rule: never the last way
/// in (a password counts only with a proven address; a passkey counts), 404 for what the account
/// does not have, Apple revoked by the deletion's own path when a fresh authorization comes. On
/// both engines.
@Suite struct IdentityUnlinkTests {
    func unlink(_ w: SettingsWorld, _ provider: String, as person: SettingsWorld.Person, _ extra: [(String, JSONValue)] = [])
        throws -> CGIAnswer
    {
        try w.account("unlink", [("provider", .string(provider))] + extra, as: person)
    }

    /// Google goes from an account that keeps a proven password: the answer is the account as
    /// stored without it, `account.unlinked` is delivered, and the Google identity signing in
    /// again is a stranger to the account (rules 2 and 3: here its address is another one).
    @Test func googleGoesWhenThePasswordStays() throws {
        let w = try SettingsWorld(events: true)
        let ada = try w.proven("unlink.ada@example.org")
        let token = try w.h.google.token(sub: "unlink-ada-google", email: "unlink.other@gmail.com")
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(token))], as: ada).status == 200)
        let unlinked = try unlink(w, "google", as: ada)
        #expect(unlinked.status == 200, "\(unlinked.rawBody)")
        #expect(unlinked.body.objectValue?.map(\.0) == AccountTests.accountMembers)
        #expect(unlinked.body["providers"] == .array([]) && unlinked.body["hasPassword"] == true)
        let events = try #require(w.events)
        #expect(events.taken.last == "account.unlinked \(ada.accountId) [password] google", "\(events.taken)")
        let again = try w.h.signInGoogle(token)
        #expect(again.status == 200 && again.body["accountId"]?.stringValue != ada.accountId && again.body["created"] == true)
        // And now the password is the last way in.
        let last = try unlink(w, "password", as: ada)
        #expect(last.status == 409 && last.errorCode == "last_sign_in_method", "\(last.rawBody)")
    }

    /// The password goes from a Google account that has one: login stops working, the address
    /// is told, `account.unlinked` (`password`).
    @Test func thePasswordGoesWhenGoogleStays() throws {
        let w = try SettingsWorld(events: true)
        let ada = try w.google("unlink-password-ada")
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: ada).status == 200)
        let unlinked = try unlink(w, "password", as: ada)
        #expect(unlinked.status == 200 && unlinked.body["hasPassword"] == false, "\(unlinked.rawBody)")
        #expect(try w.h.login("unlink-password-ada@gmail.com", SettingsWorld.password).status == 401)
        let notice = try #require(w.mails(to: "unlink-password-ada@gmail.com").last?.data)
        #expect(notice.contains("Subject: The password was removed from your account") && NoticeLinkTests.onlyLinkIsNotMe(notice))
        let events = try #require(w.events)
        #expect(events.taken.last == "account.unlinked \(ada.accountId) [google] password", "\(events.taken)")
        let none = try unlink(w, "password", as: ada)
        #expect(none.status == 404 && none.errorCode == "not_found")
    }

    /// The last way in stays (409), a password with an unproven address is no way in, a passkey
    /// is one; 404 for a provider the account lacks; 403 first without a recent sign-in; 400
    /// for what is no provider. None changes anything.
    @Test func unlinkRefusals() throws {
        let w = try SettingsWorld()
        let only = try w.google("only-google")
        let typed = try w.typed("typed.unlink@example.org")
        // Google beside a typed address: `link` no longer makes it (T5-1), a store from before may hold it.
        try w.h.database().run(
            "INSERT INTO identities (provider, subject, account_id, created_at, email_proven) VALUES ('google', ?, ?, ?, 1)",
            [.text("typed-unlink-google"), .text(typed.accountId), .integer(Clock.now())])
        let before = try w.snapshot()
        func refused(_ answer: CGIAnswer, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(answer.status == status && answer.errorCode == code, "\(answer.rawBody)", sourceLocation: sourceLocation)
        }
        refused(try unlink(w, "google", as: only), 409, "last_sign_in_method")
        // Google and a password on a typed, never-proven address: the password does not count.
        refused(try unlink(w, "google", as: typed), 409, "last_sign_in_method")
        refused(try unlink(w, "apple", as: only), 404, "not_found")
        refused(try unlink(w, "password", as: only), 404, "not_found")
        refused(try unlink(w, "passkey", as: only), 400, "invalid_request")
        refused(try unlink(w, "facebook", as: only), 400, "invalid_request")
        #expect(try w.snapshot() == before)
        try w.age(only)
        SettingsWorld.expectReauthentication(try unlink(w, "apple", as: only), methods: ["google"])
        // The password itself may go from that account: Google remains.
        #expect(try unlink(w, "password", as: typed).status == 200)
    }

    /// A passkey counts as a way in: Google goes from an account that has one. The last passkey
    /// of an account with nothing else stays (409), and deleting one needs a recent sign-in.
    @Test func aPasskeyIsAWayIn() throws {
        let p = try PasskeyWorld()
        let w = SettingsWorld(h: p.h)
        let ada = try p.person("passkey-unlink-ada")
        let person = SettingsWorld.Person(token: ada.session, accountId: ada.accountId, sessionId: try #require(
            try p.h.database().query("SELECT session_id FROM sessions WHERE account_id = ?", [.text(ada.accountId)])
                .first?.text(0)))
        let phone = try SoftwareAuthenticator()
        let (passkeyId, _) = try p.register(phone, for: ada)
        let unlinked = try unlink(w, "google", as: person)
        #expect(unlinked.status == 200, "\(unlinked.rawBody)")
        #expect(unlinked.body["providers"] == .array([]) && unlinked.body["passkeys"]?.arrayValue?.count == 1)
        let before = try p.snapshot()
        let delete = try p.passkey([("action", "delete"), ("passkeyId", .string(passkeyId))], ada)
        #expect(delete.status == 409 && delete.errorCode == "last_sign_in_method", "\(delete.rawBody)")
        #expect(try p.snapshot() == before)
        try w.age(person)
        SettingsWorld.expectReauthentication(
            try p.passkey([("action", "delete"), ("passkeyId", .string(passkeyId))], ada), methods: ["passkey"])
    }

    /// Apple with a fresh authorization: the identity goes at once, and Sign in with Apple is
    /// revoked after the answer by the deletion's path (relay `revokeToken`); without one, nothing
    /// is revoked.
    @Test func appleIsRevokedAfterTheAnswerWhenAskedTo() throws {
        let d = try DeletionWorld(mode: "relay")
        let w = SettingsWorld(h: d.h)
        let apple = try d.appleAccount("unlink-apple-sub", email: "unlink.apple@example.org")
        let ada = try SettingsWorld.person(try d.h.signInGoogle(try d.h.google.token(sub: "unlink-apple-google", email: nil)))
        _ = ada
        // Give the Apple account a second way in: Google, linked from its own session.
        let appleSession = SettingsWorld.Person(token: apple.session, accountId: apple.id, sessionId: try #require(
            try d.h.database().query("SELECT session_id FROM sessions WHERE account_id = ?", [.text(apple.id)]).first?.text(0)))
        let google = try d.h.google.token(sub: "unlink-apple-second", email: nil)
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(google))], as: appleSession).status == 200)
        let fresh = try d.freshBody(sub: "unlink-apple-sub")
        let extra = try #require(try JSONParser.parse(Array(fresh.body.utf8)).objectValue)
        let unlinked = try unlink(w, "apple", as: appleSession, extra)
        #expect(unlinked.status == 200, "\(unlinked.rawBody) \(unlinked.stderr)")
        #expect(unlinked.body["providers"]?.arrayValue?.compactMap { $0["provider"]?.stringValue } == ["google"])
        #expect(d.firebase.revocations.count == 1 && d.firebase.revocations.first?.token == fresh.code)
        #expect(try d.revocationRow().state == "revoked")
        // Without a fresh authorization: gone, nothing revoked.
        let second = try d.appleAccount("unlink-apple-plain", email: "unlink.plain@example.org")
        let secondSession = SettingsWorld.Person(token: second.session, accountId: second.id, sessionId: try #require(
            try d.h.database().query("SELECT session_id FROM sessions WHERE account_id = ?", [.text(second.id)]).first?.text(0)))
        let other = try d.h.google.token(sub: "unlink-plain-google", email: nil)
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(other))], as: secondSession).status == 200)
        #expect(try unlink(w, "apple", as: secondSession).status == 200)
        #expect(d.firebase.revocations.count == 1)
    }
}
