#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 24: `make run`'s passkey tour, run as its usage text prints it (every indented line of
/// the tour, in order, by bash) against a stack and the development provider, both as `make run`
/// starts them, so the tour a developer copies is one that works.
@Suite(.serialized) struct PasskeyTourTests {
    /// `frontdoor-dev serve` on free ports, stopped with the test.
    final class DevProviderProcess {
        let pid: pid_t
        let url: String
        let smtpPort: Int

        /// `arguments`: more of `serve`'s (`--events-secret FILE`).
        init(workDir: String, arguments: [String] = []) throws {
            let port = try Stack.freePort()
            smtpPort = try Stack.freePort()
            url = "http://127.0.0.1:\(port)"
            pid = try ChildProcess.start(
                Harness.binDir + "/frontdoor-dev",
                arguments: ["serve", "--port", String(port), "--smtp-port", String(smtpPort)] + arguments,
                environment: ["PATH": "/usr/bin:/bin"], workDir: workDir
            ).pid
            // Ready once its token page answers (it makes its keys first).
            for _ in 0..<200 {
                if let answer = try? CurlHTTPClient(totalTimeoutSeconds: 2).send(HTTPRequest(url: url + "/google/token?sub=probe")),
                    answer.status == 200
                { return }
                usleep(50_000)
            }
            throw HarnessError("frontdoor-dev serve did not answer on \(url)")
        }

        deinit {
            // SIGKILL: the test process's threads block SIGTERM, and its children inherit the mask.
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// The tour's commands: its indented lines, from its heading to the next section of the usage.
    static func tour(_ usage: String) -> String {
        let lines = usage.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("Passkey tour") }) else { return "" }
        let end = lines[start...].firstIndex { $0.hasPrefix("Delete the account") } ?? lines.endIndex
        return lines[start..<end].filter { $0.hasPrefix("  ") }.map { String($0.dropFirst(2)) }.joined(separator: "\n")
    }

    @Test func theTourRunsAsPrinted() throws {
        let h = try Harness()
        let provider = try DevProviderProcess(workDir: h.dir)
        let config = try ChildProcess.run(
            Harness.binDir + "/frontdoor-dev",
            arguments: ["config", "--database", h.databasePath, "--provider", provider.url, "--smtp-port", String(provider.smtpPort),
                        "--password-list", PasswordListFile.built],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(config.exitStatus == 0, "\(config.stderrText)")
        try h.writeText(h.configPath, config.stdoutText)
        // make run writes the association files where the stack serves them.
        let wellKnown = h.dir + "/stack/well-known"
        #expect(mkdir(h.dir + "/stack", 0o755) == 0 && mkdir(wellKnown, 0o755) == 0)
        let written = try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--print-association-files", "--config", h.configPath, "--out", wellKnown],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(written.exitStatus == 0, "\(written.stdoutText)")
        let stack = try Stack(h)
        defer { stack.stop() }
        let usage = try ChildProcess.run(
            Harness.binDir + "/frontdoor-dev", arguments: ["usage", "--port", String(stack.port), "--provider", provider.url],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir
        ).stdoutText
        let script = Self.tour(usage)
        #expect(script.contains("/phone/create") && script.contains("/phone/get"), "\(usage)")
        Harness.registerSecrets(of: Array(#"{"password":"a long dev passphrase"}"#.utf8), authorization: nil)

        let run = try ChildProcess.run(
            "/bin/bash", arguments: ["-e", "-c", script], environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(run.exitStatus == 0, "\(run.stderrText)")
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        // send_code, confirm, register_finish, the passkey sign-in, list, delete, the two files.
        #expect(lines.count == 8, "\(run.stdoutText)")
        guard lines.count == 8 else { return }
        #expect(lines[0].contains(#""sent":true"#))
        #expect(lines[1].contains(#""accountId""#) && lines[1].contains(#""created":false"#), "\(lines[1])")
        let accountId = try #require(try JSONParser.parse(Array(lines[1].utf8))["accountId"]?.stringValue)
        let registered = try JSONParser.parse(Array(lines[2].utf8))
        let passkeyId = try #require(registered["passkeyId"]?.stringValue, "\(lines[2])")
        let signedIn = try JSONParser.parse(Array(lines[3].utf8))
        #expect(signedIn["accountId"]?.stringValue == accountId, "\(lines[3])")
        #expect(signedIn["providers"]?.arrayValue?.contains(.string("passkey")) == true, "\(lines[3])")
        #expect(signedIn["sessionToken"]?.stringValue != nil)
        let listed = try JSONParser.parse(Array(lines[4].utf8))["passkeys"]?.arrayValue ?? []
        #expect(listed.map { $0["passkeyId"]?.stringValue } == [passkeyId], "\(lines[4])")
        #expect(listed.first?["name"]?.stringValue == "Dev phone", "\(lines[4])")
        #expect(lines[5] == #"{"deleted":true}"#, "\(lines[5])")
        #expect(lines[6] == #"{"webcredentials":{"apps":["\#(DevProvider.passkeyIOSAppId)"]}}"#, "\(lines[6])")
        #expect(lines[7].contains(#""package_name":"\#(DevProvider.passkeyAndroidPackage)""#), "\(lines[7])")
        #expect(try h.count("passkeys") == 0)
    }

    /// The phone plays the Android app too: its origin is the development key's hash, which the
    /// development config allows; and it refuses an RP ID its apps are not associated with.
    @Test func thePhoneActsAsEitherApp() throws {
        let phone = DevPhone(rpId: DevProvider.passkeyRpId, origins: [
            .ios: "https://localhost", .android: PasskeyOrigins.android(certificateSHA256: DevProvider.passkeyAndroidKey),
        ])
        let challenge = try SecureRandom.bytes(32)
        let begin = JSONValue.object([
            ("ceremonyId", "c1"),
            ("publicKey", .object([
                ("rp", .object([("id", "localhost"), ("name", "dev")])),
                ("user", .object([("id", .string(Base64URL.encode([1, 2, 3, 4])))])),
                ("challenge", .string(Base64URL.encode(challenge))),
            ])),
        ])
        let finish = try phone.create(begin, platform: .android)
        let clientData = try #require(finish["credential"]?["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
        let origin = try JSONParser.parse(clientData)["origin"]?.stringValue
        let config = try DevProvider.config(databasePath: "/tmp/x.sqlite3", providerURL: "http://127.0.0.1:1")
        let passkeys = try #require(try Config.parse(Array(config.serialized.utf8)).passkeys)
        #expect(origin == PasskeyOrigins.android(certificateSHA256: DevProvider.passkeyAndroidKey))
        #expect(passkeys.relyingParty.origins == ["https://localhost", try #require(origin)])
        #expect(passkeys.rpId == phone.rpId)
        // The same account's second registration on this phone is refused, as excludeCredentials asks.
        guard case .object(var options) = begin["publicKey"] else { return }
        options.append(("excludeCredentials", .array([.object([("type", "public-key"), ("id", try #require(finish["credential"]?["id"]))])])))
        #expect(throws: DevPhone.Failure.self) { try phone.create(.object([("ceremonyId", "c2"), ("publicKey", .object(options))])) }
        #expect(throws: DevPhone.Failure.self) {
            try phone.get(.object([("ceremonyId", "c3"), ("publicKey", .object([("challenge", "AAAA"), ("rpId", "example.com")]))]))
        }
        #expect(phone.count == 1)
    }
}
