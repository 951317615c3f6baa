import Testing
@testable import Shared

/// Rule 11's arithmetic, with the clock a parameter: no test here sleeps.
@Suite struct SessionPolicyTests {
    let day: Int64 = 86_400
    func policy(lifetime: Int64 = 30 * 86_400, renewAfter: Int64 = 86_400, max: Int64? = nil) -> SessionPolicy {
        SessionPolicy(lifetimeSeconds: lifetime, renewAfterSeconds: renewAfter, maxLifetimeSeconds: max)
    }

    @Test func theFirstExpiryIsTheLifetimeOrTheCap() {
        #expect(policy().firstExpiry(createdAt: 1000) == 1000 + 30 * day)
        #expect(policy(max: 7 * day).firstExpiry(createdAt: 1000) == 1000 + 7 * day)
        #expect(policy(max: 60 * day).firstExpiry(createdAt: 1000) == 1000 + 30 * day)
        #expect(policy(lifetime: 1, renewAfter: 0).firstExpiry(createdAt: 5) == 6)
    }

    @Test func aCheckWithinTheIntervalIsAPlainRead() {
        let p = policy()
        let made: Int64 = 1_000_000
        for now in [made, made + 1, made + day - 1] {
            #expect(p.verdict(createdAt: made, lastUsedAt: made, expiresAt: made + 30 * day, now: now) == .live)
        }
    }

    @Test func aCheckAfterTheIntervalRenewsOnceFromNow() {
        let p = policy()
        let made: Int64 = 1_000_000
        let now = made + day
        #expect(p.verdict(createdAt: made, lastUsedAt: made, expiresAt: made + 30 * day, now: now)
            == .renew(expiresAt: now + 30 * day))
        // Renewed at `now`: the next checks that day read only.
        #expect(p.verdict(createdAt: made, lastUsedAt: now, expiresAt: now + 30 * day, now: now + day - 1) == .live)
        // Someone who uses the app every day never meets the expiry.
        var lastUsed = made, expiry = made + 30 * day
        for dayNumber in 1...400 {
            let check = made + Int64(dayNumber) * day
            if case .renew(let next) = p.verdict(createdAt: made, lastUsedAt: lastUsed, expiresAt: expiry, now: check) {
                lastUsed = check
                expiry = next
            }
            #expect(expiry > check)
        }
    }

    @Test func anExpiredSessionIsEnded() {
        let p = policy()
        #expect(p.verdict(createdAt: 0, lastUsedAt: 0, expiresAt: 100, now: 100) == .ended)
        #expect(p.verdict(createdAt: 0, lastUsedAt: 0, expiresAt: 100, now: 5000) == .ended)
    }

    @Test func zeroRenewsAtEveryCheck() {
        let p = policy(lifetime: 10, renewAfter: 0)
        #expect(p.verdict(createdAt: 100, lastUsedAt: 100, expiresAt: 110, now: 100) == .renew(expiresAt: 110))
        #expect(p.verdict(createdAt: 100, lastUsedAt: 100, expiresAt: 110, now: 105) == .renew(expiresAt: 115))
    }

    @Test func theCapHoldsAcrossRenewals() {
        let p = policy(lifetime: 10 * day, renewAfter: day, max: 15 * day)
        let made: Int64 = 0
        #expect(p.verdict(createdAt: made, lastUsedAt: 8 * day, expiresAt: 18 * day, now: 12 * day)
            == .renew(expiresAt: 15 * day))
        // At the cap the renewal ends it: the write sets an expiry that is already past.
        #expect(p.verdict(createdAt: made, lastUsedAt: 14 * day, expiresAt: 15 * day, now: 15 * day) == .ended)
    }

    @Test func aCapConfiguredLaterAppliesAtOnce() {
        // A session from before the cap: its stored expiry lies past it, so the next check writes.
        let p = policy(lifetime: 30 * day, renewAfter: day, max: 7 * day)
        #expect(p.verdict(createdAt: 0, lastUsedAt: 9 * day, expiresAt: 39 * day, now: 9 * day + 60)
            == .renew(expiresAt: 7 * day))
        #expect(p.verdict(createdAt: 0, lastUsedAt: day, expiresAt: 7 * day, now: day + 60) == .live)
    }

    @Test func extremeStoredTimesDoNotTrap() {
        let p = policy(max: 7 * day)
        #expect(p.verdict(createdAt: .max, lastUsedAt: .min, expiresAt: .max, now: 0) == .renew(expiresAt: 30 * day))
        #expect(p.firstExpiry(createdAt: .max - 5) == .max)
    }
}
