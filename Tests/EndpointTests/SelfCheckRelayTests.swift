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

    @Test func callsNeverAnsweredAreCountedUntilForgotten() throws {
        let w = try AppleWorld()
        w.firebase.setSignIn(.acceptThenHang(seconds: 3600))
        #expect(try w.signInNew(sub: "apple-check-lost").body["startOver"] == true)
        // Young marks are calls that may still be answered: not counted.
        #expect(!(try check(w).stdoutText.contains("got no answer")))
        try w.h.database().run("UPDATE relay_sends SET sent_at = sent_at - 3600")
        let out = try check(w).stdoutText
        #expect(out.contains("✗ relay: 1 relay sign-ins got no answer after sending"), "\(out)")
        #expect(try check(w, ["--forget-relay-users"]).exitStatus == 0)
        #expect(try w.count("relay_sends") == 0)
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
