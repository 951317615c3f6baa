import DevSupport
import Shared
import Testing

/// Issue 23: `frontdoor-check` on the providers' events: Apple's key path in relay mode, the RISC
/// stream, and the events of each outcome over the last 30 days.
@Suite struct SelfCheckProviderEventsTests {
    func check(_ h: Harness, hosts: String = "") throws -> String {
        let file = h.dir + "/hosts.txt"
        try h.writeText(file, hosts)
        return try ChildProcess.run(
            Harness.binDir + "/frontdoor-check",
            arguments: ["--config", h.configPath, "--routes", "ipv4=yes,ipv6=yes", "--timeout", "3", "--hosts", file],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir
        ).stdoutText
    }

    /// Relay mode: Apple's keys directly when this box reaches them, else through
    /// `apple.keysProxy`; the check says which, and ✗ when neither answers.
    @Test func relayModeSaysHowAppleKeysAreReached() throws {
        let p = try ProviderEventsWorld(mode: "relay")
        let direct = try check(p.h)
        #expect(direct.contains("✓ Apple notifications: Apple's keys fetched directly (1 keys"), "\(direct)")
        let cutOff = try p.appleOutOfReach()
        try p.writeConfig(apple: cutOff)
        let without = try check(p.h)
        #expect(without.contains("✗ Apple notifications: relay mode: Apple's keys cannot be fetched directly"), "\(without)")
        let proxy = try FakeHTTPProxy()
        let route = try p.appleOutOfReach(through: proxy)
        try p.writeConfig(apple: route)
        let with = try check(p.h)
        #expect(with.contains("✓ Apple notifications: Apple's keys through apple.keysProxy (1 keys"), "\(with)")
        #expect(proxy.targets == ["GET \(route[0].1.stringValue ?? "")"])
        proxy.setDown(true)
        #expect(try check(p.h).contains("✗ Apple notifications: Apple's keys neither directly"))
        // Direct mode fetches Apple's keys itself: no line.
        let directMode = try ProviderEventsWorld()
        #expect(!(try check(directMode.h)).contains("Apple notifications"))
    }

    @Test func theRISCStreamMustPointHere() throws {
        let (p, api) = try RISCAdminTests.world(receiverUrl: "https://frontdoor.example.org/auth/google-risc")
        defer { withExtendedLifetime(api) {} }
        let hosts = "frontdoor.example.org A 192.0.2.10\nfrontdoor.example.org AAAA 2001:db8::10\n"
        #expect(try check(p.h, hosts: hosts).contains("✗ Cross-Account Protection: no RISC stream yet: run frontdoor-admin risc register"))
        #expect(try p.h.admin(["risc", "register"]).status == 0)
        let good = try check(p.h, hosts: hosts)
        #expect(good.contains("✓ Cross-Account Protection: RISC stream to https://frontdoor.example.org/auth/google-risc, enabled"),
                "\(good)")
        // An IPv6-only name: Google's sender may not reach it.
        let v6 = try check(p.h, hosts: "frontdoor.example.org AAAA 2001:db8::10\n")
        #expect(v6.contains("has no A record"), "\(v6)")
        #expect(try p.h.admin(["risc", "disable"]).status == 0)
        #expect(try check(p.h, hosts: hosts).contains("status disabled"))
        #expect(try p.h.admin(["risc", "register", "--url", "https://elsewhere.example.org/hook"]).status == 0)
        let elsewhere = try check(p.h, hosts: hosts + "elsewhere.example.org A 192.0.2.11\n")
        #expect(elsewhere.contains("✗ Cross-Account Protection: RISC stream to https://elsewhere.example.org/hook: not google.risc.receiverUrl"),
                "\(elsewhere)")
        #expect(elsewhere.contains("not this host's https://…/auth/google-risc"))
    }

    @Test func eventsOfEachOutcomeAreCounted() throws {
        let p = try ProviderEventsWorld()
        #expect(try check(p.h).contains("✓ provider events, last 30 days: apple none; google none"))
        _ = try p.appleSignedIn("apple-count-1")
        let token = try p.apple.notificationToken(type: "consent-revoked", sub: "apple-count-1")
        #expect(try p.notify(token).status == 200)
        #expect(try p.notify(token).status == 200)
        #expect(try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-nobody")).status == 200)
        #expect(try p.risc(try p.google.securityEvent([FakeGoogle.riscEvent("sessions-revoked", sub: "g-nobody")])).status == 202)
        // An old row is not counted, and --prune removes it once it is past 90 days.
        let old = Clock.now() - 91 * 86_400
        try p.h.database().run(
            "INSERT INTO ephemeral (kind, key, since, value, note, expires_at) VALUES (?, ?, ?, ?, 'ignored', ?)",
            [.integer(Ephemeral.Kind.providerEvent.rawValue), .blob(ProviderEventStore.key(.google, jti: "old")),
             .integer(old), .blob(Array("verification".utf8)), .integer(old + ProviderEventStore.keptSeconds)])
        let out = try check(p.h)
        #expect(out.contains("✓ provider events, last 30 days: apple 1 applied, 1 no_account (1 repeats); google 1 no_account"),
                "\(out)")
        let prune = try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--config", p.h.configPath, "--prune"],
            environment: ["PATH": "/usr/bin:/bin"], workDir: p.h.dir)
        #expect(prune.stdoutText.contains("ephemeral 1"), "\(prune.stdoutText)")
        #expect(try p.h.count("provider_events") == 3)
    }
}
