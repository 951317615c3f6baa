#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

extension CrashSafetyTests {
    /// Issue 24: a registration killed between writing its credential (and its event, and taking
    /// its ceremony) and its commit leaves nothing of it; the same ceremony then finishes once.
    @Test func aPasskeyRegistrationKilledBeforeItsCommitLeavesNothing() throws {
        let w = try PasskeyWorld()
        let events = try EventsFixture(w.h)
        try w.h.writeConfig([PasskeyWorld.section, events.member])
        let ada = try w.person("ada-crash-register")
        let phone = try SoftwareAuthenticator()
        let begun = try w.registerBegin(ada)
        let before = try w.snapshot()
        let response = try phone.register(challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
        let json = JSONValue.object([
            ("action", "register_finish"), ("ceremonyId", .string(begun.ceremonyId)),
            ("credential", SoftwareAuthenticator.json(response)),
        ]).serialized
        let held = try HeldRequest(w.h, "passkey", json: json, holdAt: "passkey-registered", authorization: ada.bearer)
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try w.snapshot() == before, "nothing committed: no credential, the ceremony still there")
        #expect(try StoreInvariants.violations(w.h.database()) == [])
        let again = try w.registerFinish(ada, begun, SoftwareAuthenticator.json(response))
        #expect(again.status == 200, "\(again.rawBody)")
        #expect(try w.h.count("passkeys") == 1)
        #expect(events.taken.last == "account.linked \(ada.accountId) [google,passkey] passkey", "\(events.taken)")
        #expect(try w.registerFinish(ada, begun, SoftwareAuthenticator.json(response)).errorCode == "invalid_ticket")
        #expect(try StoreInvariants.violations(w.h.database()) == [])
    }

    /// A sign-in killed after its session and the record's update were written, before the
    /// commit: no session, the record as it was, and the ceremony signs in once afterwards.
    @Test func aPasskeySignInKilledBeforeItsCommitLeavesNothing() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-crash-signin")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try w.register(phone, for: ada)
        let begun = try w.signInBegin()
        let before = try w.snapshot()
        var spoil = SoftwareAuthenticator.Spoil()
        spoil.signCount = 4
        let response = try phone.assert(
            challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle,
            spoil: spoil)
        let json = JSONValue.object([
            ("action", "finish"), ("ceremonyId", .string(begun.ceremonyId)),
            ("credential", SoftwareAuthenticator.json(response)),
        ]).serialized
        let held = try HeldRequest(w.h, "signin-passkey", json: json, holdAt: "passkey-signed-in")
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try w.snapshot() == before, "nothing committed: no session, the counter as it was")
        #expect(try StoreInvariants.violations(w.h.database()) == [])
        let again = try w.signInFinish(begun, SoftwareAuthenticator.json(response))
        #expect(again.status == 200, "\(again.rawBody)")
        #expect(try w.h.database().query("SELECT sign_count FROM passkeys").first?.int(0) == 4)
    }
}
