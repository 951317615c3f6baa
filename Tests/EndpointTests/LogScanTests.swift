import DevSupport
import Shared
import Testing

/// `scripts/check-logs` (run by `make test` over everything the tests' processes wrote) must
/// really fail when a secret is logged, and pass when none is.
@Suite struct LogScanTests {
    @Test func theScanFindsAPlantedSecretAndPassesWithoutIt() throws {
        let h = try Harness()
        let dir = h.dir + "/logs"
        _ = try ChildProcess.run("/bin/mkdir", arguments: [dir], environment: [:], workDir: h.dir)
        try h.writeText(dir + "/secrets.txt", "eyJhbGciOiJSUzI1NiJ9.planted.token\nsomeone@example.org\n")
        try h.writeText(dir + "/stderr.log", "frontdoor endpoint=signin-google status=401 error=invalid_token ms=3.1\n")
        #expect(try scan(dir, h).exitStatus == 0)
        try h.writeText(dir + "/stderr.log", "frontdoor endpoint=signin-google detail=join someone@example.org\n")
        let found = try scan(dir, h)
        #expect(found.exitStatus == 1)
        #expect(!found.stderrText.contains("someone@example.org"), "the scan's own output cuts secrets short")
        try h.writeText(dir + "/secrets.txt", "")
        #expect(try scan(dir, h).exitStatus == 1, "an empty record is a broken record, not a pass")
    }

    /// frontdoor-admin's audit lines hold their fields and nothing else (rule 14).
    @Test func theScanRefusesAnAuditLineOfAnotherShape() throws {
        let h = try Harness()
        let dir = h.dir + "/logs"
        _ = try ChildProcess.run("/bin/mkdir", arguments: [dir], environment: [:], workDir: h.dir)
        try h.writeText(dir + "/secrets.txt", "someone@example.org\n")
        try h.writeText(dir + "/stderr.log", "frontdoor endpoint=session status=200 error=- ms=1.0\n")
        let good = "frontdoor-admin action=disable account=Ab-_09abcdefghijklmnop uid=0 sudoUser=ops.person result=ok\n"
            + "frontdoor-admin action=restore account=- uid=33 sudoUser=- result=ok count=2\n"
        try h.writeText(dir + "/syslog.log", good)
        let passed = try scan(dir, h)
        #expect(passed.exitStatus == 0, "\(passed.stdoutText) \(passed.stderrText)")
        #expect(passed.stdoutText.contains("2 frontdoor-admin audit lines"))
        for bad in [
            "frontdoor-admin action=find account=- uid=0 sudoUser=- result=ok email=other@example.net",
            "frontdoor-admin action=find account=a@b uid=0 sudoUser=- result=ok",
            "frontdoor-admin action=disable account=x uid=0 sudoUser=Ada Lovelace result=ok",
        ] {
            try h.writeText(dir + "/syslog.log", good + bad + "\n")
            #expect(try scan(dir, h).exitStatus == 1, "\(bad)")
        }
    }

    func scan(_ dir: String, _ h: Harness) throws -> ChildProcess.Result {
        try ChildProcess.run("/bin/bash", arguments: [Stack.root + "/scripts/check-logs", dir],
                             environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
    }
}
