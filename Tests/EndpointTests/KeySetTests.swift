import DevSupport
import Shared
import Testing

/// Google's published keys: fetched once, shared by every process, rotated, and survived without.
@Suite struct KeySetTests {
    @Test func keysAreFetchedOnceForManySignInsAcrossProcesses() throws {
        let h = try Harness()
        for i in 0..<5 {
            let answer = try h.signInGoogle(try h.google.token(sub: "g-many-\(i)"))
            #expect(answer.status == 200)
        }
        #expect(h.google.certFetches == 1)
        let row = try h.database().query("SELECT expires_at - fetched_at FROM key_sets").first
        #expect(row?.int(0) == 3600)   // from Cache-Control: max-age
    }

    @Test func rotationRefetchesOnceAndSucceeds() throws {
        let h = try Harness()
        #expect(try h.signInGoogle(try h.google.token(sub: "g-rot")).status == 200)
        let newKey = try TestKeys.p256("rotated-ec")
        h.google.setKeys([newKey])
        let answer = try h.signInGoogle(try h.google.token(sub: "g-rot", key: newKey))
        #expect(answer.status == 200)
        #expect(h.google.certFetches == 2)
        #expect(try h.signInGoogle(try h.google.token(sub: "g-rot", key: newKey)).status == 200)
        #expect(h.google.certFetches == 2)
    }

    @Test func keyEndpointDownWithFreshCacheStillSignsIn() throws {
        let h = try Harness()
        #expect(try h.signInGoogle(try h.google.token(sub: "g-down")).status == 200)
        h.google.setDown(true)
        #expect(try h.signInGoogle(try h.google.token(sub: "g-down")).status == 200)
        h.google.server.stop()
        #expect(try h.signInGoogle(try h.google.token(sub: "g-down")).status == 200)
    }

    @Test func expiredKeysServeThroughTheGracePeriodThenAnswer503() throws {
        let h = try Harness()
        #expect(try h.signInGoogle(try h.google.token(sub: "g-grace")).status == 200)
        h.google.setDown(true)
        let now = Clock.now()
        // Expired an hour ago: inside the default six-hour grace.
        try h.database().run("UPDATE key_sets SET expires_at = ?", [.integer(now - 3600)])
        let stale = try h.signInGoogle(try h.google.token(sub: "g-grace"))
        #expect(stale.status == 200)
        #expect(stale.stderr.contains("keys=stale"))
        // Expired a day ago: past the grace.
        try h.database().run("UPDATE key_sets SET expires_at = ?", [.integer(now - 86_400)])
        let gone = try h.signInGoogle(try h.google.token(sub: "g-grace"))
        #expect(gone.status == 503)
        #expect(gone.errorCode == "upstream_unavailable")
    }

    @Test func noCacheAndNoKeyEndpointAnswers503() throws {
        let h = try Harness()
        h.google.setDown(true)
        let answer = try h.signInGoogle(try h.google.token(sub: "g-cold"))
        #expect(answer.status == 503)
        #expect(try h.count("accounts") == 0)
    }
}
