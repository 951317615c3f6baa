#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `frontdoor-check` against loopback fakes, with name lookups and routes answered by the test.
@Suite struct SelfCheckTests {
    func check(_ h: Harness, _ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--config", h.configPath] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
    }

    @Test func developmentStackPasses() throws {
        let h = try Harness()
        let result = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "3"])
        #expect(result.exitStatus == 0, "\(result.stdoutText)")
        let out = result.stdoutText
        #expect(out.contains("✓ config \(h.configPath): valid (google, mail, development)"))
        #expect(out.contains("✓ config file \(h.configPath): mode 0600"))
        if let postgres = h.postgres {
            #expect(out.contains("✓ store \(postgres.url()): PostgreSQL 15"), "\(out)")
            #expect(out.contains("schema version \(Database.schemaVersion)"))
        } else {
            #expect(out.contains("✓ database \(h.databasePath): schema version \(Database.schemaVersion), journal mode wal"))
        }
        #expect(out.contains("✓ Google keys: HTTP answered 200"))
        #expect(h.google.certFetches == 1)
        #expect(out.contains("✓ mail server 127.0.0.1:\(h.smtp.port): accepts connections"))
        #expect(out.contains("✓ name lookups: hosts: "), "\(out)")
        #expect(out.contains("✓ TLS: peers are checked against /etc/ssl/certs/ca-certificates.crt"), "\(out)")
        // The SQLite built by make deps, not Debian 12's 3.40.1, which has the WAL-reset bug.
        #expect(out.contains("✓ SQLite \(SQLiteLibrary.version) linked (source \(SQLiteLibrary.sourceId)): "
            + "protection against the WAL-reset bug: fixed SQLite \(SQLiteLibrary.version)"), "\(out)")
    }

    /// While a restore holds the door closed the store may not be in its place: the check says so
    /// and opens nothing (opening would make an empty store there).
    @Test func aClosedDoorIsReportedAndTheStoreIsNotOpened() throws {
        let h = try Harness()
        _ = try h.signedIn("g-door-check")
        _ = try Door.close(h.databasePath, now: Clock.now())
        for suffix in ["-wal", "-shm", ""] { unlink(h.databasePath + suffix) }
        let result = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "3"])
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains("✗ database \(h.databasePath): the door is closed since"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("run frontdoor-admin restore again"))
        #expect(!Files.exists(h.databasePath))
        for command in ["--prune", "--deliver", "--forget-relay-users"] {
            let refused = try check(h, [command])
            #expect(refused.exitStatus == 1 && refused.stdoutText.contains("the door is closed"), "\(command)")
        }
        #expect(!Files.exists(h.databasePath))
    }

    @Test func aKeyEndpointThatNeverAnswersFailsWithinTheTimeout() throws {
        let h = try Harness()
        h.google.server.setHandler { _ in .hang(seconds: 3600) }
        let started = Clock.monotonicMillis()
        let result = try check(h, ["--routes", "ipv4=yes,ipv6=no", "--timeout", "2"])
        let elapsed = Clock.monotonicMillis() - started
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains("✗ Google keys: no answer"), "\(result.stdoutText)")
        #expect(elapsed < 20_000, "took \(elapsed) ms")
    }

    @Test func loopbackURLInAProductionConfigIsFlagged() throws {
        let h = try Harness(config: [("development", .null)])
        let result = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "3"])
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains("✗ config: google.certsUrl is a loopback address"))
    }

    /// The web kit's script URLs are loaded by browsers, not by us: a loopback one (the
    /// development stand-ins) in a production config is flagged all the same.
    @Test func aLoopbackKitScriptInAProductionConfigIsFlagged() throws {
        let h = try Harness(config: [
            ("development", .null),
            ("kit", .object([("googleScriptUrl", "http://127.0.0.1:8081/kit-standins/google/gsi/client")])),
        ])
        let result = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "3"])
        #expect(result.stdoutText.contains("✗ config: kit.googleScriptUrl is a loopback address"), "\(result.stdoutText)")
    }

    @Test func injectedNamesDecideReachabilityAndAppleAdvice() throws {
        let h = try Harness(config: [
            ("development", .null),
            ("google", .object([("clientIds", .array(["a"])), ("certsUrl", "https://www.googleapis.com/oauth2/v3/certs")])),
            ("apple", .object([("bundleIds", .array(["com.example.app"])), ("mode", "direct")])),
        ])
        // Google has an IPv6 address (answered by loopback, where nothing listens on 443);
        // Apple has only IPv4, and this host only an IPv6 route.
        try h.writeText(h.dir + "/hosts", "www.googleapis.com AAAA ::1\nappleid.apple.com A 127.0.0.1\n")
        let result = try check(h, ["--hosts", h.dir + "/hosts", "--routes", "ipv4=no,ipv6=yes", "--timeout", "2"])
        let out = result.stdoutText
        #expect(result.exitStatus == 1)
        #expect(out.contains("✓ this host: IPv4 route no, IPv6 route yes"))
        #expect(out.contains("✓ Google keys www.googleapis.com: A none, AAAA ::1"), "\(out)")
        #expect(out.contains("✗ Google keys: no answer"))
        #expect(out.contains("✗ Apple keys appleid.apple.com: A 127.0.0.1, AAAA none: no address this host can reach"))
        #expect(out.contains("Apple's sign-in service has no IPv6 address (`dig AAAA appleid.apple.com` answers none): "
            + "set apple.mode to \"relay\""))
    }

    @Test func directModeNeedsATeamKeyThatSigns() throws {
        let apple: (String?) -> JSONValue = { keyFile in
            var members: [(String, JSONValue)] = [("bundleIds", .array(["com.example.app"])), ("mode", "direct")]
            if let keyFile {
                members += [("teamId", "TEAM123456"), ("keyId", "KEY1234567"), ("privateKeyFile", .string(keyFile))]
            }
            return .object(members)
        }
        let h = try Harness(config: [("apple", apple(nil))])
        let missing = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "2"])
        #expect(missing.exitStatus == 1)
        #expect(missing.stdoutText.contains("✗ Apple: direct mode without apple.teamId, apple.keyId and apple.privateKeyFile"))

        let keyFile = h.dir + "/AuthKey.p8"
        try h.writeText(keyFile, try TestKeys.p256("team-key").privateKeyPEM())
        try h.writeConfig([("apple", apple(keyFile))])
        let present = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "2"])
        #expect(present.stdoutText.contains("✓ Apple: direct mode, team TEAM123456, key KEY1234567"), "\(present.stdoutText)")

        try h.writeText(keyFile, "not a key")
        let broken = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "2"])
        #expect(broken.stdoutText.contains("✗ Apple: config: apple.privateKeyFile: not a PEM private key"))
    }

    @Test func worldReadableConfigAndSecretsAreFlagged() throws {
        let h = try Harness()
        try h.writeText(h.dir + "/api-key", "secret")
        chmod(h.dir + "/api-key", 0o644)
        try h.writeConfig([("firebase", .object([("projectId", "p"), ("apiKeyFile", .string(h.dir + "/api-key"))]))])
        chmod(h.configPath, 0o644)
        let result = try check(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "2"])
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains("✗ config file \(h.configPath): mode 0644, readable by every user"))
        #expect(result.stdoutText.contains("✗ secret firebase.apiKeyFile \(h.dir)/api-key: mode 0644"))
    }

    @Test func brokenConfigIsOneFailure() throws {
        let h = try Harness()
        try h.writeText(h.configPath, #"{"databasePath": 3}"#)
        let result = try check(h, [])
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains("✗ config \(h.configPath): config: databasePath: must be a non-empty string"))
    }

    /// And on SQLite the views of the accounts those sessions were the last of (`AccountView`).
    @Test func pruneRemovesOnlyExpiredRows() throws {
        let h = try Harness()
        let people = try (0..<3).map { i in try h.signedIn("g-prune-\(i)") }
        for me in people { #expect(try h.check(me.bearer).status == 200) }
        try h.database().run(
            "UPDATE sessions SET expires_at = ? WHERE account_id IN (?, ?)",
            [.integer(Clock.now() - 10), .text(people[0].accountId), .text(people[1].accountId)])
        let result = try check(h, ["--prune"])
        #expect(result.exitStatus == 0)
        let views = h.postgres == nil ? 2 : 0
        #expect(result.stdoutText.contains(
            "✓ pruned expired rows: account_views \(views), apple_revocations 0, apple_revocations expired 0, "
                + "email_tickets 0, ephemeral 0, sessions 2, tickets 0"), "\(result.stdoutText)")
        #expect(try h.count("sessions") == 1)
        if h.postgres == nil {
            let kept = try h.database().query("SELECT account_id FROM main.account_views").compactMap { $0.text(0) }
            #expect(kept == [people[2].accountId])
        }
    }

    @Test func usageErrorsExitTwo() throws {
        let h = try Harness()
        #expect(try check(h, ["--bogus"]).exitStatus == 2)
        #expect(try check(h, ["--routes", "ipv4=maybe"]).exitStatus == 2)
    }
}

@Suite struct ResolverTests {
    @Test func fileResolverAnswersByFamily() {
        let resolver = FileResolver(text: "# comment\nA.example A 127.0.0.1\na.example AAAA ::1\nb.example A 127.0.0.2\n")
        #expect(resolver.addresses(of: "a.example", family: AF_INET) == ["127.0.0.1"])
        #expect(resolver.addresses(of: "a.example", family: AF_INET6) == ["::1"])
        #expect(resolver.addresses(of: "c.example", family: AF_INET).isEmpty)
    }

    @Test func routesParse() {
        #expect(Routes.parse("ipv4=no,ipv6=yes").map { [$0.ipv4, $0.ipv6] } == [false, true])
        #expect(Routes.parse("ipv4=perhaps") == nil)
        #expect(Routes.parse("ipv5=yes") == nil)
    }
}
