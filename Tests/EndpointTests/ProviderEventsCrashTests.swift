#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

extension CrashSafetyTests {
    /// Issue 23, rule 16: a notification killed between its `jti` row and its commit leaves nothing
    /// (its deletion's ledger line is written after the body, just before the commit); Apple's
    /// retry then applies it, once.
    @Test func anAppleDeletionKilledBeforeItsCommitIsAppliedByTheRetry() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-crash-1")
        let body = FakeApple.notificationBody(try p.apple.notificationToken(type: "account-deleted", sub: "apple-crash-1"))
        let before = try p.snapshot()
        let held = try HeldRequest(p.h, "apple-notify", json: body, holdAt: "provider-event-acted")
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try p.snapshot() == before, "nothing committed: no jti row, the account whole")
        #expect(try p.h.holds(me.accountId))
        #expect(p.h.ledgerLines.isEmpty, "killed inside the body, before its line")
        #expect(try StoreInvariants.violations(p.h.database()) == [])

        let retry = try p.notify(body: body)
        #expect(retry.status == 200, "\(retry.stderr)")
        #expect(try !p.h.holds(me.accountId))
        #expect(try p.accountEvents(me.accountId) == ["account.created", "account.deleted"])
        #expect(p.h.deletionLines.count == 1)
        #expect(try p.rows().count == 1)
        #expect(try p.h.count("deletion_audit") == 1)
        // A third delivery changes nothing.
        #expect(try p.notify(body: body).status == 200)
        #expect(try p.h.count("deletion_audit") == 1)
        #expect(try StoreInvariants.violations(p.h.database()) == [])
    }

    /// The same for Google: a `sessions-revoked` killed before its commit ends nothing and records
    /// nothing; the retry ends the sessions.
    @Test func aGoogleEventKilledBeforeItsCommitIsAppliedByTheRetry() throws {
        let p = try ProviderEventsWorld()
        let me = try p.h.signedIn("g-crash-1", email: "crash.risc@gmail.com")
        let set = try p.google.securityEvent([FakeGoogle.riscEvent("account-disabled", sub: "g-crash-1", reason: "hijacking")])
        TestLogs.register(set)
        let before = try p.snapshot()
        let held = try HeldRequest(
            p.h, "google-risc", json: set, holdAt: "provider-event-acted", contentType: "application/secevent+jwt")
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try p.snapshot() == before)
        #expect(try p.h.check(me.bearer).status == 200)
        #expect(try p.h.signInGoogle(try p.google.token(sub: "g-crash-1")).status == 200, "not blocked")

        #expect(try p.risc(set).status == 202)
        #expect(try p.h.check(me.bearer).status == 401)
        #expect(try p.h.signInGoogle(try p.google.token(sub: "g-crash-1")).status == 401)
        let rows = try p.rows()
        #expect(rows.count == 1 && rows.first?.hasSuffix(" account-disabled applied 0") == true, "\(rows)")
    }
}
