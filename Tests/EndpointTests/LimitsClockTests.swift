import DevSupport
import Shared
import Testing

/// The rate limits' fixed windows count in a clock the tests set (`FRONTDOOR_TEST_LIMITS_NOW`,
/// read by debug builds only: `TestHooks.limitsNow`), so a test that fills a window never sees
/// it end under it, whenever the run happens (the edge of an hour included), and a test that
/// waits a window out moves the clock instead of sleeping. `Harness.limitsNow` is that clock.
@Suite struct LimitsClockTests {
    static let limits: (String, JSONValue) = ("limits", .object([("registrationsPerClientPerHour", 2)]))

    /// The hour's last second by the test's clock: full after two, then one second later a new
    /// hour. By the wall clock neither would hold (its Retry-After would be whatever is left of
    /// the real hour, and moving a clock nobody reads would change nothing).
    @Test func aWindowEndsWhenTheTestsClockSaysSoAndNotBefore() throws {
        let h = try Harness(config: [Self.limits])
        h.limitsNow -= 1
        #expect(try h.register("clock-1@example.org", "a password for the clock").status == 201)
        #expect(try h.register("clock-2@example.org", "a password for the clock").status == 201)
        let full = try h.register("clock-3@example.org", "a password for the clock")
        #expect(full.status == 429 && full.errorCode == "rate_limited", "\(full.rawBody)")
        #expect(full.header("Retry-After") == "1", "the window ends at the next second of the test's clock")
        h.limitsNow += 1
        #expect(try h.register("clock-3@example.org", "a password for the clock").status == 201)
    }

    /// Through nginx and fcgiwrap the programs count in the same clock (fcgiwrap hands its
    /// environment on): the two-box and integration tests count limits this way.
    @Test func theProgramsBehindAStackCountInTheSameClock() throws {
        let h = try Harness(config: [Self.limits])
        h.limitsNow -= 1
        let stack = try Stack(h)
        func register(_ n: Int) throws -> HTTPResponse {
            try stack.post(
                "/auth/signin-email",
                json: #"{"action":"register","email":"stacked-\#(n)@example.org","password":"a password for the clock"}"#)
        }
        #expect(try register(1).status == 201)
        #expect(try register(2).status == 201)
        let full = try register(3)
        #expect(full.status == 429, "\(String(decoding: full.body, as: UTF8.self))")
        #expect(full.header("Retry-After") == "1")
    }
}
