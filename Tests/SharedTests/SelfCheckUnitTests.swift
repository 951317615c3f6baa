#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

@Suite struct SelfCheckUnitTests {
    @Test func filesAndDNSAreBuiltInAndAnyOtherSourceNeedsTheSameGlibc() {
        let debian = "passwd: files\nhosts:          files dns\nnetworks: files\n"
        #expect(SelfCheck.hostSources(nsswitch: debian) == ["files", "dns"])
        let plain = SelfCheck.nameServiceFinding(built: "2.36", box: "glibc 2.41", sources: ["files", "dns"])
        #expect(plain.ok && plain.text == "name lookups: hosts: files dns, built into the programs (glibc 2.36)")
        let resolved = "hosts: files resolve [!UNAVAIL=return] dns myhostname # systemd\n"
        let sources = SelfCheck.hostSources(nsswitch: resolved)
        #expect(sources == ["files", "resolve", "dns", "myhostname"])
        #expect(SelfCheck.nameServiceFinding(built: "2.36", box: "glibc 2.36", sources: sources).ok)
        let newer = SelfCheck.nameServiceFinding(built: "2.36", box: "glibc 2.41", sources: sources)
        #expect(!newer.ok)
        #expect(newer.text.contains("resolve, myhostname would be loaded from this box's glibc 2.41 into programs built with 2.36"))
        #expect(!SelfCheck.nameServiceFinding(built: "2.36", box: nil, sources: sources).ok)
        // No hosts line: glibc's own default, dns and files, both built in.
        #expect(SelfCheck.hostSources(nsswitch: "passwd: files\n") == nil)
        #expect(SelfCheck.nameServiceFinding(built: "2.36", box: nil, sources: nil).ok)
    }

    @Test func theCABundleLibcurlWasBuiltWithMustBeThere() {
        #expect(SelfCheck.builtInCABundle() == "/etc/ssl/certs/ca-certificates.crt")
        #expect(SelfCheck.caBundleFinding(path: "/etc/ssl/certs/ca-certificates.crt") { _ in true }.ok)
        let missing = SelfCheck.caBundleFinding(path: "/etc/ssl/certs/ca-certificates.crt") { _ in false }
        #expect(!missing.ok && missing.text.contains("apt-get install ca-certificates"))
    }

    @Test func theBoxsGlibcComesFromGetconf() throws {
        let box = try #require(SelfCheck.boxGlibc())
        #expect(box.hasPrefix("glibc 2."))
    }
}

/// Addresses written before the look-alike rule (issue 12) are named for the operator.
@Suite struct SelfCheckAddressTests {
    func insert(_ db: Database, _ id: String, _ email: String, key: String, at: Int64) throws {
        _ = try db.run(
            "INSERT INTO accounts (id, email, email_key, email_verified, created_at) VALUES (?, ?, ?, 1, ?)",
            [.text(id), .text(email), .text(key), .integer(at)])
    }

    @Test func addressesOfTodaysRulesGiveNoFinding() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            try insert(db, "a-plain", "ada@example.com", key: "ada@example.com", at: 1)
            try insert(db, "a-case", "Ada.Two@example.com", key: "ada.two@example.com", at: 2)
            try insert(db, "a-accent", "jos\u{E9}@example.com", key: "jos\u{E9}@example.com", at: 3)
            #expect(SelfCheckAddresses.findings(db).isEmpty)
        }
    }

    @Test func lookAlikeAndUnnormalisedAddressesAreNamed() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            try insert(db, "a-plain", "ada@example.com", key: "ada@example.com", at: 1)
            // Keyed by the old rule (lower case only): KELVIN SIGN took the key of "kelvin@…".
            try insert(db, "a-kelvin", "\u{212A}elvin@example.com", key: "kelvin@example.com", at: 2)
            // A decomposed "é", stored before addresses were put in NFC.
            try insert(db, "a-decomposed", "jose\u{301}@example.com", key: "jose\u{301}@example.com", at: 3)
            let findings = SelfCheckAddresses.findings(db)
            #expect(findings.count == 1)
            let finding = try #require(findings.first)
            #expect(!finding.ok)
            #expect(finding.text.hasPrefix("accounts: 2 keep an address written before today's address rules"))
            #expect(finding.text.hasSuffix("ids: a-kelvin, a-decomposed"), "\(finding.text)")
            #expect(!finding.text.contains("example.com"), "an address reached the operator's output")
        }
    }

    @Test func aLongListIsCut() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            for i in 0..<12 {
                try insert(db, "a-\(i)", "\u{212A}\(i)@example.com", key: "k\(i)@example.com", at: Int64(i))
            }
            let text = try #require(SelfCheckAddresses.findings(db).first?.text)
            #expect(text.hasPrefix("accounts: 12 keep"))
            #expect(text.hasSuffix("ids: a-0, a-1, a-2, a-3, a-4, a-5, a-6, a-7, a-8, a-9, …"), "\(text)")
        }
    }
}
