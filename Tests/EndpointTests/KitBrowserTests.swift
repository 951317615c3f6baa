#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Rule 21 in a real browser: tests/browser/kit_browser.py drives Debian's headless Chromium
/// (chromedriver, Selenium, axe-core from the venv `make build` makes) through the web kit's
/// sign-in page, served by the real stack (nginx + fcgiwrap + the programs) with the development
/// provider's stand-ins for Apple's and Google's scripts: an emulated iPhone (Apple's button alone,
/// its sheet closed changing nothing, a sign-in, a deletion with Apple's fresh authorization), an
/// emulated Android phone (Google's alone, the same; proof_required; the typo hint; a passkey
/// through the virtual authenticator; a reset), a desktop (both buttons; the typo vectors and the
/// error table in the browser; the CSP), and a French browser. On both engines: the store is the
/// test's (`TestStore`). Screenshots at phone size go to var/kit-screenshots/<engine>/.
@Suite(.serialized) struct KitBrowserTests {
    static let password = "violet tractor under nine moons"

    @Test func theSignInPageWorksInARealBrowser() throws {
        let python = Stack.root + "/.build/kit-venv/bin/python"
        try #require(access(python, X_OK) == 0, "no \(python): make build (or make kit-venv) makes it")
        try #require(access("/usr/bin/chromedriver", X_OK) == 0, "no chromedriver: make deps installs chromium-driver")

        let h = try Harness()
        let provider = try PasskeyTourTests.DevProviderProcess(workDir: h.dir)
        let port = try Stack.freePort()
        try writeConfig(h, provider: provider, port: port)
        let stack = try Stack(h, port: port, environment: ["FRONTDOOR_RATE_LIMIT": "off"])
        defer { stack.stop() }
        let codes = h.dir + "/codes.json"
        try h.writeText(codes, JSONValue.array(KitErrorCodes.all.map { .string($0) }).serialized)
        TestLogs.register(Self.password)
        TestLogs.register(Self.password + " anew")
        let artifacts = Stack.root + "/var/kit-screenshots/" + (TestStore.isPostgres ? "postgres" : "sqlite")

        let run = try ChildProcess.run(
            "/usr/bin/timeout", arguments: [
                "--kill-after=10", "420", python, Stack.root + "/tests/browser/kit_browser.py",
                "--base", "http://localhost:\(port)", "--provider", provider.url, "--artifacts", artifacts,
                "--kit", Stack.root + "/kits/web", "--codes", codes,
                "--vectors", Stack.root + "/Tests/Vectors/typos/vectors.json", "--password", Self.password,
            ],
            environment: ["PATH": "/usr/bin:/bin", "HOME": h.dir, "LANG": "C.UTF-8"], workDir: h.dir)
        #expect(run.exitStatus == 0, "\(run.stdoutText)\n\(run.stderrText)")
        #expect(run.stdoutText.contains(", 0 failed"), "\(run.stdoutText)")

        // What the browser did, as the store holds it.
        let db = try h.database()
        let emails = try db.query("SELECT email FROM accounts").compactMap { $0.text(0) }
        #expect(emails.contains("ada@gmail.com") && !emails.contains("ada@gmial.com"), "\(emails)")
        #expect(!emails.contains("ada.apple@example.org"), "the Apple account was deleted: \(emails)")
        let grace = try db.query(
            "SELECT i.provider FROM identities i JOIN accounts a ON a.id = i.account_id WHERE a.email = ?",
            [.text("grace.proof@gmail.com")]).compactMap { $0.text(0) }
        #expect(grace.contains("google"), "proof_required joined Google: \(grace)")
        let lin = try db.query(
            "SELECT i.provider FROM identities i JOIN accounts a ON a.id = i.account_id WHERE a.email = ?",
            [.text("lin.proof@example.org")]).compactMap { $0.text(0) }
        #expect(lin.contains("google"), "a code joined Google: \(lin)")
        #expect(!emails.contains("bea.apple@example.org"), "deleted without Apple's authorization: \(emails)")
        // The passkey the page added is gone: the reset by code that ends the script took it back
        // with the sessions from before (PasskeyTakeback), Google still being a way in.
        #expect(try h.count("passkeys") == 0)
    }

    /// The development config `make run` uses, on the test's store, the stack's port known first
    /// (the passkey origin names it), the limits a whole test's worth of ceremonies from one
    /// address needs, and no wait before a reset mail.
    func writeConfig(_ h: Harness, provider: PasskeyTourTests.DevProviderProcess, port: Int) throws {
        let made = try ChildProcess.run(
            Harness.binDir + "/frontdoor-dev",
            arguments: [
                "config", "--database", h.databasePath, "--provider", provider.url, "--smtp-port",
                String(provider.smtpPort), "--site", "http://127.0.0.1:\(port)", "--password-list", PasswordListFile.built,
            ],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        try #require(made.exitStatus == 0, "\(made.stderrText)")
        guard case .object(var members) = try JSONParser.parse(made.stdout) else {
            throw HarnessError("frontdoor-dev config printed no object")
        }
        members.removeAll { $0.0 == "databasePath" }
        members.insert(contentsOf: h.storeMembers(), at: 0)
        if let i = members.firstIndex(where: { $0.0 == "mail" }), case .object(var mail) = members[i].1 {
            mail.append(("resetDelaySeconds", 0))
            members[i].1 = .object(mail)
        }
        members.append(("limits", .object([
            ("passkeyBeginsPerClientPerHour", 1000), ("registrationsPerClientPerHour", 1000),
            ("loginFailuresPerClient", 1000),
        ])))
        try h.writeText(h.configPath, JSONValue.object(members).serialized)
    }
}
