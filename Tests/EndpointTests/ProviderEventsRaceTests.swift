import DevSupport
import Shared
import Testing

/// Issue 23, rule 16 with two deliveries at once (Apple: "duplicate notifications may occur";
/// Google retries what it thinks was lost): one is held after its checks, before its
/// transaction, while the other runs through. The held one then finds the `jti` and does nothing.
@Suite struct ProviderEventsRaceTests {
    @Test func twoDeliveriesOfAnAppleDeletionDeleteOnce() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-race-1")
        let body = FakeApple.notificationBody(try p.apple.notificationToken(type: "account-deleted", sub: "apple-race-1"))
        let held = try HeldRequest(p.h, "apple-notify", json: body, holdAt: "provider-event-verified")
        try held.waitUntilHeld()
        let first = try p.notify(body: body)
        #expect(first.status == 200 && first.stderr.contains("outcome=applied"), "\(first.stderr)")
        #expect(try !p.h.holds(me.accountId))

        let second = try held.release()
        #expect(second.status == 200, "\(second.rawBody) \(second.stderr)")
        #expect(second.stderr.contains("outcome=repeat"), "\(second.stderr)")
        #expect(try p.accountEvents(me.accountId).filter { $0 == "account.deleted" }.count == 1)
        #expect(try p.h.count("deletion_audit") == 1)
        #expect(p.h.ledgerLines.count == 1)
        let rows = try p.rows()
        #expect(rows.count == 1 && rows.first?.hasSuffix(" account-deleted applied 1") == true, "\(rows)")
        #expect(try StoreInvariants.violations(p.h.database()) == [])
    }

    /// A held `account-disabled` whose twin went through, followed by Google's `account-enabled`:
    /// the held one, let go last, must not block the person again.
    @Test func aHeldTwinOfABlockDoesNotBlockAgainAfterTheLifting() throws {
        let p = try ProviderEventsWorld()
        let me = try p.h.signedIn("g-race-1", email: "race.one@gmail.com")
        try p.h.age(me.sessionId, by: 600)
        let now = Clock.now()
        let disabled = try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-disabled", sub: "g-race-1", reason: "hijacking")], now: now - 60)
        TestLogs.register(disabled)
        let held = try HeldRequest(
            p.h, "google-risc", json: disabled, holdAt: "provider-event-verified", contentType: "application/secevent+jwt")
        try held.waitUntilHeld()
        #expect(try p.risc(disabled).status == 202)
        #expect(try p.h.check(me.bearer).status == 401)
        #expect(try p.h.signInGoogle(try p.google.token(sub: "g-race-1")).status == 401)
        #expect(try p.risc(try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-enabled", sub: "g-race-1")], now: now)).status == 202)

        let twin = try held.release()
        #expect(twin.status == 202, "\(twin.rawBody) \(twin.stderr)")
        #expect(twin.stderr.contains("outcome=repeat"), "\(twin.stderr)")
        let back = try p.h.signInGoogle(try p.google.token(sub: "g-race-1"))
        #expect(back.status == 200, "the lifting stands: \(back.rawBody)")
        #expect(back.body["accountId"]?.stringValue == me.accountId)
    }
}
