@testable import Shared
import Testing

/// Issue 19, High 1: no accepted address takes an ASCII address's key. Every Unicode scalar goes
/// through the address rules and the key, in the local part and in the domain; the look-alikes the
/// review found are named; stores from before are rekeyed and their leftovers named.
@Suite struct AddressKeyTests {
    static func hex(_ scalar: Unicode.Scalar) -> String { "U+" + String(scalar.value, radix: 16, uppercase: true) }

    /// Every scalar through the local part's acceptance check (what `normalise` asks of each
    /// character as typed), and each one it accepts through the local part's key (`fold`, as
    /// `matchKey` applies it): none keys with ASCII, so no non-ASCII address takes an ASCII key.
    @Test func noAcceptedCharacterOfALocalPartKeysAsASCII() throws {
        var accepted = 0
        for v in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(v), EmailValidation.keysAsItself(scalar),
                  !EmailValidation.isControlOrSpace(scalar) else { continue }
            accepted += 1
            let key = EmailAddress.fold(String(scalar))
            #expect(!key.unicodeScalars.contains { $0.isASCII }, "\(Self.hex(scalar)) keys as \(key)")
        }
        // Letters of every script, and the private use planes.
        #expect(accepted > 250_000)
    }

    /// Every scalar through the domain's acceptance check (`IDNA.mapping`), and each one it accepts
    /// through the domain's key (`IDNA.asciiKey`, as `matchKey` applies it): the label keys as an
    /// A-label that decodes back to it, never as an ASCII label nor as another label's A-label.
    @Test func noAcceptedCharacterOfADomainKeysAsAnotherLabel() throws {
        var accepted = 0
        for v in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(v), let mapped = IDNA.mapping(scalar) else { continue }
            accepted += 1
            let label = IDNA.asciiKey("x\(scalar)")
            #expect(label.hasPrefix("xn--"), "\(Self.hex(scalar)) keys as \(label)")
            let expected = Array(EmailAddress.nfc("x" + String(String.UnicodeScalarView(mapped))).unicodeScalars)
            #expect(Punycode.decode(String(label.dropFirst(4))) == expected, "\(Self.hex(scalar))")
        }
        #expect(accepted > 100_000)
    }

    /// A sample of whole addresses (every 89th scalar) through `normalise` and `matchKey`: an
    /// address accepted whole keys as its parts do, and never as ASCII while it is not.
    @Test func acceptedAddressesNeverTakeAnASCIIKey() throws {
        var accepted = 0
        for v in stride(from: UInt32(0x80), through: 0x10FFFF, by: 89) {
            guard let scalar = Unicode.Scalar(v) else { continue }
            for (local, domain) in [("\(scalar)van", "example.org"), ("ivan", "gma\(scalar)l.com")] {
                guard case .success(let address) = EmailValidation.normalise(local + "@" + domain, acceptAsTyped: true) else {
                    continue
                }
                accepted += 1
                let key = EmailAddress.matchKey(address)
                #expect(key == EmailAddress.fold(EmailAddress.nfc(local)) + "@" + IDNA.asciiKey(domain), "\(Self.hex(scalar))")
                #expect(!EmailAddress.takesAnASCIIKey(address, key: key), "\(Self.hex(scalar))")
                #expect(EmailAddress.isMailable(address, key: key), "\(Self.hex(scalar))")
            }
        }
        #expect(accepted > 3_000)
    }

    /// The review's dotless i, and the three it named whose keys hold ASCII too.
    @Test(arguments: [
        ("\u{131}van.petrov@gmail.com", "ivan.petrov@gmail.com"), ("\u{130}van@example.org", "i\u{307}van@example.org"),
        ("\u{149}ina@example.org", "\u{2BC}nina@example.org"), ("\u{1E9A}da@example.org", "a\u{2BE}da@example.org"),
    ])
    func theReviewsLookAlikesAreRefused(_ address: String, _ oldKey: String) {
        #expect(!EmailValidation.keysAsItself(address.unicodeScalars.first ?? "a"))
        #expect(EmailValidation.normalise(address, acceptAsTyped: true) == .failure(.malformed))
        // What the key makes of it, which is why: it holds ASCII.
        #expect(Array(EmailAddress.matchKey(address).utf8) == Array(oldKey.utf8))
    }

    @Test func aLookAlikeDomainIsItsOwnDomain() throws {
        let address = try EmailValidation.normalise("victim.x@gma\u{131}l.com", acceptAsTyped: true).get()
        #expect(EmailAddress.matchKey(address) == "victim.x@xn--gmal-nza.com")
        #expect(EmailAddress.matchKey(address) != EmailAddress.matchKey("victim.x@gmail.com"))
        // Where the domain's own mapping holds ASCII, it is refused as in a local part.
        for domain in ["gma\u{130}l.com", "\u{212A}.com", "gm\u{FF41}il.com", "gma\u{149}.com", "gm\u{1E9A}.com"] {
            #expect(EmailValidation.normalise("x@" + domain, acceptAsTyped: true) == .failure(.malformed), "\(domain)")
        }
        // The A-label spelling of the same domain is the same address.
        #expect(EmailAddress.matchKey("Victim.X@XN--GMAL-NZA.com") == "victim.x@xn--gmal-nza.com")
        #expect(EmailValidation.normalise("x@xn--gmal-nza.com", acceptAsTyped: true) == .success("x@xn--gmal-nza.com"))
        // An A-label must be one: it decodes, to something not ASCII, and encodes back.
        for bad in ["xn--gmail-.com", "xn--a.com", "xn--zz-.com", "xn--ls8h.la"] {
            #expect(EmailValidation.normalise("x@" + bad, acceptAsTyped: true) == .failure(.malformed), "\(bad)")
        }
    }

    @Test func anAddressKeyedAsASCIIWhileItIsNotIsNeverMailable() {
        #expect(EmailAddress.takesAnASCIIKey("\u{131}van@gmail.com", key: "ivan@gmail.com"))
        #expect(EmailAddress.takesAnASCIIKey("ivan@gma\u{131}l.com", key: "ivan@gmail.com"))
        #expect(EmailAddress.takesAnASCIIKey("ivan@gma\u{131}l.com", key: "ivan"))
        #expect(!EmailAddress.takesAnASCIIKey("ivan@gma\u{131}l.com", key: "ivan@xn--gmal-nza.com"))
        #expect(!EmailAddress.takesAnASCIIKey("j\u{FC}rgen@example.org", key: "j\u{FC}rgen@example.org"))
        #expect(!EmailAddress.takesAnASCIIKey("ivan@gmail.com", key: "ivan@gmail.com"))
        #expect(!EmailAddress.isMailable("\u{131}van.petrov@gmail.com", key: "ivan.petrov@gmail.com"))
        #expect(!EmailAddress.isMailable("victim.x@gma\u{131}l.com", key: "victim.x@gmail.com"))
        #expect(EmailAddress.isMailable("victim.x@gma\u{131}l.com", key: "victim.x@xn--gmal-nza.com"))
        #expect(EmailAddress.isMailable("j\u{FC}rgen@b\u{FC}cher.example", key: "j\u{FC}rgen@xn--bcher-kva.example"))
    }

    /// Accounts stored under the old key: each is found by its own address after the upgrade,
    /// gives back the key of the ASCII address it took, and what cannot be rekeyed is named.
    @Test func theUpgradeRekeysNonASCIIDomainsAndNamesWhatItCannot() throws {
        try withStoreDirectory { dir in
            let before = try #require(Migrations.scripts.firstIndex(of: Migrations.domainKeys))
            let hash = try PasswordHasher.hash("victim's password", cost: .minimum)
            do {
                let old = try Database(path: dir.databasePath, upTo: before)
                let rows: [(String, String, String)] = [
                    ("plain", "ada@example.com", "ada@example.com"),
                    ("idn", "victim.x@gma\u{131}l.com", "victim.x@gmail.com"),
                    ("bucher", "j\u{FC}rgen@b\u{FC}cher.example", "j\u{FC}rgen@b\u{FC}cher.example"),
                    ("greek", "x@\u{3B1}\u{3C2}.gr", "x@\u{3B1}\u{3C3}.gr"),
                    ("dotless", "\u{131}van.petrov@gmail.com", "ivan.petrov@gmail.com"),
                    // The same domain twice, as an A-label and as a U-label: the second cannot move.
                    ("a-label", "dup@xn--bcher-kva.example", "dup@xn--bcher-kva.example"),
                    ("u-label", "dup@b\u{FC}cher.example", "dup@b\u{FC}cher.example"),
                    // A key the old function did not make is left alone.
                    ("odd", "z@b\u{FC}cher.example", "z@somewhere.else"),
                ]
                for (i, (id, email, key)) in rows.enumerated() {
                    try old.run(
                        "INSERT INTO accounts (id, email, email_key, email_verified, password_hash, created_at) VALUES (?, ?, ?, 1, ?, ?)",
                        [.text(id), .text(email), .text(key), .text(hash), .integer(Int64(i))])
                }
            }
            let db = try Database(path: dir.databasePath)
            func key(_ id: String) throws -> [UInt8]? {
                try db.query("SELECT email_key FROM accounts WHERE id = ?", [.text(id)]).first?.text(0).map { Array($0.utf8) }
            }
            #expect(try key("plain") == Array("ada@example.com".utf8))
            #expect(try key("idn") == Array("victim.x@xn--gmal-nza.com".utf8))
            #expect(try key("bucher") == Array("j\u{FC}rgen@xn--bcher-kva.example".utf8))
            #expect(try key("greek") == Array(EmailAddress.matchKey("x@\u{3B1}\u{3C2}.gr").utf8))
            #expect(try key("dotless") == Array("ivan.petrov@gmail.com".utf8))
            #expect(try key("u-label") == Array("dup@b\u{FC}cher.example".utf8))
            #expect(try key("odd") == Array("z@somewhere.else".utf8))
            // Each moved account is found by its own address, as typed in any case.
            for (id, typed) in [("idn", "Victim.X@GMA\u{131}L.com"), ("bucher", "J\u{DC}RGEN@B\u{DC}CHER.example"), ("greek", "x@\u{391}\u{3C2}.gr")] {
                let found = try db.query("SELECT id FROM accounts WHERE email_key = ?", [.text(EmailAddress.matchKey(typed))])
                #expect(found.first?.text(0) == id, "\(typed)")
            }
            // The Gmail address the look-alike domain held is free.
            #expect(try db.query("SELECT id FROM accounts WHERE email_key = ?", [.text(EmailAddress.matchKey("victim.x@gmail.com"))])
                .isEmpty)
            // frontdoor-check names, by id, what still keys as another address or could not move.
            let finding = try #require(SelfCheckAddresses.findings(db).first)
            #expect(finding.text.hasSuffix("ids: dotless, u-label, odd"), "\(finding.text)")
            #expect(!finding.text.contains("@"))
        }
    }

    @Test func aRekeyedAccountSignsInByPasswordWithItsOwnAddress() throws {
        try withStoreDirectory { dir in
            let before = try #require(Migrations.scripts.firstIndex(of: Migrations.domainKeys))
            do {
                let old = try Database(path: dir.databasePath, upTo: before)
                try old.run(
                    "INSERT INTO accounts (id, email, email_key, password_hash, created_at) VALUES ('idn', ?, ?, ?, 1)",
                    [.text("victim.x@gma\u{131}l.com"), .text("victim.x@gmail.com"),
                     .text(try PasswordHasher.hash("victim's password", cost: .minimum))])
            }
            let config = try Config.parse(
                Array(#"{"databasePath": "\#(dir.databasePath)", "google": {"clientIds": ["a"]}}"#.utf8))
            let request = CGIRequest(
                method: "POST", contentType: "application/json", contentLength: 0, authorization: nil,
                remoteAddress: "192.0.2.1", body: [])
            func login(_ email: String) throws -> Int {
                let body = JSONValue.object([("action", "login"), ("email", .string(email)), ("password", "victim's password")])
                let context = RequestContext(config: config, request: request, body: body, now: Clock.now())
                do throws(FrontdoorError) { return try EmailSignIn.handle(context).status } catch { return error.status }
            }
            #expect(try login("victim.x@gma\u{131}l.com") == 200)
            #expect(try login("victim.x@xn--gmal-nza.com") == 200)
            #expect(try login("victim.x@gmail.com") == 401)
        }
    }
}
