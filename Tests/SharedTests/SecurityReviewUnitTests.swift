@testable import Shared
import Testing

/// Issue 12's rules in the parts, without a process: client keys, address keys, the reset wait,
/// the new limits' settings, and the migration that brings the review's columns.
@Suite struct SecurityReviewUnitTests {
    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"),
        ("2001:db8:1:2::1", "2001:0db8:0001:0002::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002::/64"),
        ("2001:DB8:1:2:0:0:0:9", "2001:0db8:0001:0002::/64"),
        ("2001:db8:1:3::1", "2001:0db8:0001:0003::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("::1", "0000:0000:0000:0000::/64"),
        ("not an address", "not an address"),
        ("", "-"),
    ])
    func clientsAreTheirAddressOrTheirSlash64(_ remote: String, _ key: String) {
        #expect(ClientAddress.limitKey(remote) == key)
    }

    @Test func noAddressIsOneClient() {
        #expect(ClientAddress.limitKey(nil) == "-")
    }

    /// Issue 19: the coarser count for registrations and resets is an IPv6 client's /48.
    @Test(arguments: [
        ("2001:db8:1:2::1", "2001:0db8:0001::/48"),
        ("2001:DB8:1:ffff:ffff:ffff:ffff:ffff", "2001:0db8:0001::/48"),
        ("2001:db8:2::1", "2001:0db8:0002::/48"),
        ("::1", "0000:0000:0000::/48"),
    ])
    func anIPv6ClientsNetworkIsItsSlash48(_ remote: String, _ key: String) {
        #expect(ClientAddress.networkKey(remote) == key)
    }

    @Test(arguments: ["192.0.2.1", "::ffff:192.0.2.7", "not an address", ""])
    func ipv4AndOtherClientsHaveNoNetwork(_ remote: String) {
        #expect(ClientAddress.networkKey(remote) == nil)
        #expect(ClientAddress.networkKey(nil) == nil)
    }

    @Test func matchKeysFoldCaseAndCompose() {
        let bytes = { (s: String) in Array(EmailAddress.matchKey(s).utf8) }
        #expect(bytes(" Robin@Example.ORG ") == Array("robin@example.org".utf8))
        #expect(bytes("JOS\u{C9}@example.org") == Array("jos\u{E9}@example.org".utf8))
        #expect(bytes("JOSE\u{301}@example.org") == Array("jos\u{E9}@example.org".utf8))
        #expect(bytes("\u{3A3}\u{39F}\u{3A6}\u{399}\u{391}@example.gr") == bytes("\u{3C3}\u{3BF}\u{3C6}\u{3B9}\u{3B1}@example.gr"))
        // Folding is idempotent: a key keys to itself.
        for address in ["STRASSE@example.de", "\u{130}stanbul@example.tr", "\u{1F0}@example.org"] {
            let key = EmailAddress.matchKey(address)
            #expect(Array(EmailAddress.matchKey(key).utf8) == Array(key.utf8))
        }
    }

    @Test func lookAlikesAreRefusedAndRealLettersKept() {
        // Folds into ASCII, or has a compatibility form left after folding.
        // Issue 19: or whose key holds ASCII although it does not fold under NFKC (U+0131 DOTLESS I).
        for scalar: Unicode.Scalar in ["\u{212A}", "\u{017F}", "\u{DF}", "\u{FF21}", "\u{FF41}", "\u{FB01}", "\u{24B6}",
                                       "\u{1D400}", "\u{B2}", "\u{2160}", "\u{131}", "\u{130}", "\u{149}", "\u{1E9A}"] {
            #expect(!EmailValidation.keysAsItself(scalar), "U+\(String(scalar.value, radix: 16))")
        }
        for scalar: Unicode.Scalar in ["a", "K", "\u{E9}", "\u{C9}", "\u{3C3}", "\u{5D0}", "\u{4E2D}", "\u{AC00}"] {
            #expect(EmailValidation.keysAsItself(scalar), "U+\(String(scalar.value, radix: 16))")
        }
        #expect(EmailValidation.normalise("\u{212A}ate@gmail.com", acceptAsTyped: true) == .failure(.malformed))
        #expect(EmailValidation.normalise("jose\u{301}@example.org", acceptAsTyped: true)
            .map { Array($0.utf8) } == .success(Array("jos\u{E9}@example.org".utf8)))
    }

    @Test func onlyAnAddressThatKeysToItsOwnKeyIsMailable() {
        #expect(EmailAddress.isMailable("kate@example.org", key: "kate@example.org"))
        #expect(EmailAddress.isMailable("Kate@Example.org", key: "kate@example.org") == false)  // not as stored today
        #expect(EmailAddress.isMailable("Kate@example.org", key: "kate@example.org"))
        #expect(!EmailAddress.isMailable("\u{212A}ate@example.org", key: "kate@example.org"))
        #expect(!EmailAddress.isMailable("kate@example.org", key: "other@example.org"))
        #expect(!EmailAddress.isMailable("kate@example.org", key: nil))
    }

    @Test func theResetWaitIsSpreadAroundItsSetting() throws {
        #expect(try PasswordReset.mailDelayMillis(0) == 0)
        for _ in 0..<200 {
            let pause = try PasswordReset.mailDelayMillis(2)
            #expect((1000...3000).contains(pause))
        }
    }

    @Test func theReviewsLimitsAreSettings() throws {
        let config = try Config.parse(Array(#"""
            {"databasePath": "/x", "limits": {"resetMailPerHour": 7, "codeFailuresPerEmailPerDay": 9,
             "appleFailuresPerClientPerHour": 11},
             "mail": {"smtpUrl": "smtp://127.0.0.1:25", "from": "a@b.c", "resetDelaySeconds": 0.5}}
            """#.utf8))
        #expect(config.limits.resetMailPerHour == 7)
        #expect(config.limits.codeFailuresPerEmailPerDay == 9)
        #expect(config.limits.appleFailuresPerClientPerHour == 11)
        #expect(config.mail?.resetDelaySeconds == 0.5)
        let defaults = try Config.parse(Array(#"{"databasePath": "/x"}"#.utf8))
        #expect(defaults.limits.resetMailPerHour == 100)
        #expect(defaults.limits.codeFailuresPerEmailPerDay == 20)
        #expect(defaults.limits.appleFailuresPerClientPerHour == 30)
        for bad in [#""codeFailuresPerEmailPerDay": 1"#, #""resetMailPerHour": 0"#, #""appleFailuresPerClientPerHour": -1"#] {
            #expect(throws: ConfigError.self) { try Config.parse(Array(#"{"databasePath": "/x", "limits": {\#(bad)}}"#.utf8)) }
        }
    }

    @Test func theReviewsMigrationKeepsOldRowsAndDropsKeptIDTokens() throws {
        try withStoreDirectory { dir in
            do {
                let old = try Database(path: dir.databasePath, upTo: 5)
                try old.run("INSERT INTO accounts (id, email, email_key, created_at) VALUES ('a', 'x@y.org', 'x@y.org', 1)")
                try old.run("INSERT INTO identities (provider, subject, account_id, created_at) VALUES ('google', 's', 'a', 1)")
                try old.run(
                    """
                    INSERT INTO apple_revocations (id, mode, state, code, id_token, created_at, updated_at)
                    VALUES ('r', 'relay', 'retry', 'c', 'a.relay.token', 1, 1)
                    """)
            }
            // Up to the sealing of kept secrets, which `SealedMigrationTests` shows.
            let sealing = try #require(Migrations.scripts.firstIndex(of: Migrations.sealedSecrets))
            let db = try Database(path: dir.databasePath, upTo: sealing)
            #expect(try db.query("SELECT email_proven FROM identities").first?.int(0) == 1)
            #expect(try db.query("SELECT id_token, code FROM apple_revocations").first.map { [$0.text(0), $0.text(1)] }
                == [nil, "c"])
            #expect(try db.query("SELECT count(*) FROM pragma_table_info('email_tickets') WHERE name = 'address_key'")
                .first?.int(0) == 1)
        }
    }
}
