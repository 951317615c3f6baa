#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 31: `make run`'s settings tour (a change of password and of address, each mail on the
/// development mail page), run by bash as `frontdoor-dev usage` prints it, against a stack and the
/// development provider as `make run` starts them.
@Suite(.serialized) struct SettingsTourTests {
    /// The tour's commands: its indented lines, from its heading to the passkey tour's.
    static func tour(_ usage: String) -> String {
        let lines = usage.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("Settings tour") }) else { return "" }
        let end = lines[start...].firstIndex { $0.hasPrefix("Passkey tour") } ?? lines.endIndex
        return lines[start..<end].filter { $0.hasPrefix("  ") }.map { String($0.dropFirst(2)) }.joined(separator: "\n")
    }

    @Test func theTourRunsAsPrinted() throws {
        let h = try Harness()
        let provider = try PasskeyTourTests.DevProviderProcess(workDir: h.dir)
        let config = try ChildProcess.run(
            Harness.binDir + "/frontdoor-dev",
            arguments: ["config", "--database", h.databasePath, "--provider", provider.url, "--smtp-port", String(provider.smtpPort),
                        "--password-list", PasswordListFile.built],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(config.exitStatus == 0, "\(config.stderrText)")
        try h.writeText(h.configPath, config.stdoutText)
        let stack = try Stack(h)
        defer { stack.stop() }
        let usage = try ChildProcess.run(
            Harness.binDir + "/frontdoor-dev", arguments: ["usage", "--port", String(stack.port), "--provider", provider.url],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir
        ).stdoutText
        let script = Self.tour(usage)
        #expect(script.contains("change_password") && script.contains("change_email"), "\(usage)")
        for secret in ["a first dev password", "a new dev password"] {
            Harness.registerSecrets(of: Array(JSONValue.object([("password", .string(secret))]).serialized.utf8), authorization: nil)
        }
        let run = try ChildProcess.run(
            "/bin/bash", arguments: ["-e", "-c", script], environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(run.exitStatus == 0, "\(run.stderrText)")
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        // change_password, confirm, the login, then the mail list (whatever had gone by then).
        #expect(lines.count >= 3, "\(run.stdoutText) \(run.stderrText)")
        guard lines.count >= 3 else { return }
        #expect(lines[0] == #"{"changed":true,"ended":0}"#, "\(lines[0])")
        let confirmed = try JSONParser.parse(Array(lines[1].utf8))
        #expect(confirmed["email"]?.stringValue == "settings.moved@example.org" && confirmed["reauthenticated"] == true,
                "\(lines[1])")
        let login = try JSONParser.parse(Array(lines[2].utf8))
        #expect(login["accountId"] == confirmed["accountId"] && login["sessionToken"]?.stringValue != nil, "\(lines[2])")
        // The notices go after their answers: the mail page lists them once they are out (10 s is
        // a hundred times what a mail to the sink takes).
        let wanted = [
            "settings.tour@example.org Your password was changed",
            "settings.moved@example.org Your code",
            "settings.tour@example.org A change of your account's email address was asked for",
            "settings.tour@example.org Your account's email address was changed",
        ]
        var listed = ""
        let deadline = Clock.monotonicMillis() + 10_000
        repeat {
            listed = String(decoding: try CurlHTTPClient(totalTimeoutSeconds: 2)
                .send(HTTPRequest(url: provider.url + "/mail/list")).body, as: UTF8.self)
            // Each notice goes after its own answer: two may cross (the change's, the confirm's).
            if listed.split(separator: "\n").map(String.init).sorted() == wanted.sorted() { break }
            usleep(100_000)
        } while Clock.monotonicMillis() < deadline
        #expect(listed.split(separator: "\n").map(String.init).sorted() == wanted.sorted(), "\(listed)")
    }
}
