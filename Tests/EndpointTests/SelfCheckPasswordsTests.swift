import DevSupport
import Shared
import Testing

/// `frontdoor-check` on rule 19: the list it finds and what it holds, and the range service.
@Suite struct SelfCheckPasswordsTests {
    func check(_ h: Harness) throws -> ChildProcess.Result {
        try ChildProcess.run(
            Harness.binDir + "/frontdoor-check",
            arguments: ["--config", h.configPath, "--routes", "ipv4=yes,ipv6=yes", "--timeout", "3"],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
    }

    @Test func theListIsNamedWithItsEntriesAndSources() throws {
        let h = try Harness()
        let result = try check(h)
        #expect(result.exitStatus == 0, "\(result.stdoutText)")
        let line = result.stdoutText.split(separator: "\n").first { $0.contains("passwords: list") } ?? ""
        #expect(line.hasPrefix("✓ passwords: list \(PasswordListFile.built), "), "\(result.stdoutText)")
        #expect(line.contains(" entries: Django 5.2.8 ") && line.contains("zxcvbn 4.5.0") && line.contains("wamerican"))
        #expect(line.contains("at least 8 characters"))
    }

    @Test func aMissingListFails() throws {
        let h = try Harness(config: [("passwords", .object([("listFile", .string(h0Path()))]))])
        let result = try check(h)
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains("✗ passwords: config: passwords.listFile: \(h0Path()) cannot be opened"), "\(result.stdoutText)")
    }

    func h0Path() -> String { "/nonexistent/frontdoor/common-passwords" }

    @Test func theRangeServiceIsAskedForOneFixedRange() throws {
        let fake = try FakePwnedPasswords(breached: ["a breached but long passphrase": 1])
        let h = try Harness(config: [("passwords", .object([("rangeUrl", .string(fake.url))]))])
        var result = try check(h)
        #expect(result.exitStatus == 0, "\(result.stdoutText)")
        #expect(result.stdoutText.contains("✓ passwords: range service 127.0.0.1 answered a range of "), "\(result.stdoutText)")
        #expect(fake.requests.map(\.path) == ["/range/00000"])
        #expect(fake.requests.first?.header("Add-Padding") == "true")
        for mode: FakePwnedPasswords.Mode in [.down, .status(500), .garbage] {
            try fake.setMode(mode)
            result = try check(h)
            #expect(result.exitStatus == 1, "\(mode)")
            #expect(result.stdoutText.contains("✗ passwords: range service 127.0.0.1"), "\(mode): \(result.stdoutText)")
            #expect(result.stdoutText.contains("passwords are checked on this box only"))
        }
    }
}
