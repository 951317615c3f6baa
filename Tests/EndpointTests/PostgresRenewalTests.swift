#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 35: on PostgreSQL the session check's renewal commits without waiting for the WAL flush
/// (`SessionCheck.renew`), and nothing else does. On servers of the test's own, durable as in
/// production (`synchronous_commit` on: make test's shared servers run with it off), since one is
/// stopped at once. Always on PostgreSQL; the Makefile runs it on the first pass only.
@Suite(.serialized) struct PostgresRenewalTests {
    @Test func theRenewalAloneWaitsForNoFlushAndAnImmediateStopLosesAtMostTheExtension() throws {
        let pair = try PostgresServers.start(in: PostgresServers.makeTemporaryFolder(), durable: true)
        defer {
            PostgresServers.stop(pair.dir)
            PostgresServers.recordLogs(pair.dir)
            _ = ChildProcess.removeTree(pair.dir)
        }
        let h = try Harness(
            config: [("sessionLifetimeSeconds", 100), ("sessions", .object([("renewAfterSeconds", 10)]))], pair: pair)
        let me = try h.signedIn("g-renew-unflushed")
        try h.age(me.sessionId, by: 30)
        let aged = try #require(try h.stored(me.sessionId))
        let notes = h.dir + "/renewal-notes"
        let answer = try h.check(
            me.bearer, extraEnvironment: SessionCheckTests.headersOnly.merging(["FRONTDOOR_TEST_NOTES": notes]) { $1 })
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        // The statement reports the setting it ran with; the server's, which every other commit
        // keeps, is on.
        let lines = String(decoding: FileIO.readFile(notes) ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines == ["renewal synchronous_commit=off", "renewed"], "\(lines)")
        #expect(try h.database().query("SELECT current_setting('synchronous_commit')").first?.text(0) == "on")
        let renewed = try #require(try h.stored(me.sessionId))
        #expect(renewed.expiresAt > aged.expiresAt)

        // Stopped at once (a crash) and started again: the renewal may or may not have reached the
        // disk; the session is there with one expiry or the other, and nothing else changed.
        try PostgresServers.stopPostgres(pair, mode: "immediate")
        try PostgresServers.startPostgres(pair)
        var after: Harness.StoredSession?
        let deadline = Clock.monotonicMillis() + 30_000
        while after == nil && Clock.monotonicMillis() < deadline {
            after = try? h.stored(me.sessionId)
            if after == nil { usleep(200_000) }
        }
        let kept = try #require(after, "the session is gone after the restart")
        #expect(kept == renewed || kept == aged, "\(kept) against \(aged) and \(renewed)")
        #expect(try h.database().query("SELECT count(*) FROM accounts").first?.int(0) == 1)
    }
}
