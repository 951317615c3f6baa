import DevSupport
import Shared
import Testing

/// Issue 15: `frontdoor-check` says ✗ for relay users Firebase keeps past the deletion window (how
/// many, their uids, how to remove them), for a service account that cannot sign, and for every
/// revocation the `c_hash` gate refused; `--forget-relay-users` drops the records the operator
/// has dealt with.
@Suite struct SelfCheckRelayTests {
    func check(_ w: AppleWorld, _ arguments: [String] = ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "2"])
        throws -> ChildProcess.Result
    {
        try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--config", w.h.configPath] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], workDir: w.h.dir)
    }

    @Test func relayUsersPastTheWindowAreCountedWithTheirUidsAndCanBeForgotten() throws {
        let w = try AppleWorld()
        #expect(try w.signInNew(sub: "apple-check-ok").status == 200)
        var out = try check(w).stdoutText
        #expect(out.contains("✓ relay: no relay user past the deletion window (0 being deleted)"), "\(out)")

        try AppleRelayCleanupTests.strandedRelayUser(w, sub: "apple-check-1")
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        let uid = try #require(try w.h.database().query("SELECT relay_uid FROM relay_cleanups").first?.text(0))
        let result = try check(w)
        out = result.stdoutText
        #expect(result.exitStatus == 1)
        #expect(out.contains("✗ relay: 1 relay users past the deletion window are kept by Firebase"), "\(out)")
        #expect(out.contains("Authentication → Users; search by uid"))
        #expect(out.contains("uids: \(uid)"))

        let forget = try check(w, ["--forget-relay-users"])
        #expect(forget.exitStatus == 0)
        #expect(forget.stdoutText.contains("✓ forgot 1 relay users past the deletion window: \(uid)"))
        #expect(try w.count("relay_cleanups") == 0)
    }

    /// Issue 19, item 10: with a service account `--forget-relay-users` asks Firebase first
    /// (`accounts:lookup` by `localId`): it drops only the records of users Firebase no longer
    /// has, keeps the ones it still has (✗, exit 1) and those it cannot look up, and keeps the
    /// records the Admin API is still deleting.
    @Test func withAServiceAccountEachUidIsLookedUpBeforeItsRecordIsForgotten() throws {
        let w = try AppleWorld()
        for sub in ["apple-forget-1", "apple-forget-2", "apple-forget-3"] {
            try AppleRelayCleanupTests.strandedRelayUser(w, sub: sub)
        }
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        let db = try w.h.database()
        let uids = try db.query("SELECT relay_uid FROM relay_cleanups ORDER BY id").compactMap { $0.text(0) }
        try #require(uids.count == 3)
        #expect(try db.query("SELECT count(*) FROM relay_cleanups WHERE state = 'admin'").first?.int(0) == 3)
        try w.useServiceAccount()
        // Two the Admin API gave up on; the console has removed the first. The third still waits.
        try db.run("UPDATE relay_cleanups SET state = 'stuck' WHERE relay_uid IN (?, ?)", [.text(uids[0]), .text(uids[1])])
        w.firebase.removeUser(uids[0])
        w.firebase.resetLog()

        var result = try check(w, ["--forget-relay-users"])
        var out = result.stdoutText
        #expect(result.exitStatus == 1, "\(out)")
        #expect(out.contains("✓ forgot 1 relay users past the deletion window that Firebase no longer has: \(uids[0])"), "\(out)")
        #expect(out.contains("✗ kept 1 relay users Firebase still has: remove them in the Firebase console"), "\(out)")
        #expect(out.contains("uids: \(uids[1])"))
        #expect(out.contains("✓ kept 1 relay users past the deletion window that the Admin API is deleting"), "\(out)")
        #expect(w.firebase.adminLookups == 2)
        let lookups = w.firebase.requests.filter { $0.path.hasSuffix("/accounts:lookup") }
        #expect(lookups.allSatisfy { $0.path == "/v1/projects/\(FakeFirebase.projectId)/accounts:lookup" })
        #expect(lookups.allSatisfy { $0.header("authorization")?.hasPrefix("Bearer ya29.") == true })
        #expect(try db.query("SELECT relay_uid FROM relay_cleanups ORDER BY id").compactMap { $0.text(0) }
            == [uids[1], uids[2]])
        #expect(w.firebase.userExists(uids[1]) && w.firebase.userExists(uids[2]))

        // Firebase cannot be asked: nothing is dropped on a guess.
        w.firebase.removeUser(uids[1])
        w.firebase.setAdminLookupFailure(status: 503, message: "UNAVAILABLE")
        result = try check(w, ["--forget-relay-users"])
        out = result.stdoutText
        #expect(result.exitStatus == 1)
        #expect(out.contains("✗ kept relay user \(uids[1]): it could not be looked up (admin lookup: HTTP 503 UNAVAILABLE)"), "\(out)")
        #expect(try w.count("relay_cleanups") == 2)
    }

    @Test func callsNeverAnsweredAreCountedUntilForgotten() throws {
        let w = try AppleWorld()
        w.firebase.setSignIn(.acceptThenHang(seconds: 3600))
        #expect(try w.signInNew(sub: "apple-check-lost").body["startOver"] == true)
        // Young marks are calls that may still be answered: not counted.
        #expect(!(try check(w).stdoutText.contains("got no answer")))
        try w.h.database().run(
            "UPDATE ephemeral SET since = since - 3600 WHERE kind = ?", [.integer(Ephemeral.Kind.relaySend.rawValue)])
        let out = try check(w).stdoutText
        #expect(out.contains("✗ relay: 1 relay sign-ins got no answer after sending"), "\(out)")
        #expect(try check(w, ["--forget-relay-users"]).exitStatus == 0)
        #expect(try w.count(.relaySend) == 0)
    }

    @Test func aServiceAccountIsCheckedByReadingItsKeyAndSigning() throws {
        let w = try AppleWorld()
        try w.useServiceAccount()
        var out = try check(w).stdoutText
        #expect(out.contains("✓ Firebase service account \(AppleWorld.serviceAccountEmail): signs"), "\(out)")
        #expect(out.contains("✓ secret firebase.serviceAccountFile"))
        try w.h.writeText(try #require(w.serviceAccountFile), #"{"type":"authorized_user"}"#)
        out = try check(w).stdoutText
        #expect(out.contains("✗ Firebase service account: config: firebase.serviceAccountFile: type is not"), "\(out)")
    }

    @Test func everyCHashRefusalIsCounted() throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-check-chash")
        let body = try d.freshBody(sub: "apple-check-chash", codeHashOf: try d.apple.issueCode())
        #expect(try d.delete(session, body: body.body).body["appleRevocation"] == "scheduled")
        let result = try check(d.w)
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains(
            "✗ Apple revocation: 1 relay revocations in the last 30 days revoked nothing because the fresh token's c_hash"),
            "\(result.stdoutText)")
    }
}
