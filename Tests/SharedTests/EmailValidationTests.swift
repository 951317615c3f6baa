import DevSupport
import Testing
@testable import Shared

@Suite struct EmailValidationTests {
    @Test func trimsAndLowerCasesTheDomainOnly() throws {
        #expect(try EmailValidation.normalise("  Ada.L+tag@Example.COM\n").get() == "Ada.L+tag@example.com")
        #expect(try EmailValidation.normalise("jürgen@bücher.example").get() == "jürgen@bücher.example")
        #expect(try EmailValidation.normalise("x@xn--bcher-kva.example").get() == "x@xn--bcher-kva.example")
        #expect(try EmailValidation.normalise("x@B\u{DC}CHER.example").get() == "x@b\u{FC}cher.example")
        #expect(try EmailValidation.normalise("x@bu\u{308}cher.example").get() == "x@b\u{FC}cher.example")
    }

    @Test(arguments: [
        "", "@example.com", "a@", "a@@example.com", "a@b@example.com", "a@localhost", "a@x.c", "a@x.123",
        "a@-x.com", "a@x-.com", "a@x..com", "a@.x.com", "a b@example.com", "a\u{0}@example.com",
        "a\u{7F}@example.com", "a\u{85}@example.com", "a\u{200B}@example.com", "a@exa\u{2028}mple.com",
        "\"quoted\"@example.com", "(comment)a@example.com", "a@[192.0.2.1]", "a\u{D4E}@example.com",
        "a@\u{301}example.com",
    ])
    func refused(_ address: String) throws {
        #expect(EmailValidation.normalise(address) == .failure(.malformed))
        #expect(EmailValidation.normalise(address, acceptAsTyped: true) == .failure(.malformed))
    }

    @Test func lengthLimits() throws {
        let local64 = String(repeating: "l", count: 64)
        #expect((try? EmailValidation.normalise("\(local64)@example.com").get()) != nil)
        #expect(EmailValidation.normalise("\(local64)l@example.com") == .failure(.malformed))
        let label = String(repeating: "d", count: 63)
        #expect(EmailValidation.normalise("a@\(label).com") != .failure(.malformed))
        #expect(EmailValidation.normalise("a@\(label)d.com") == .failure(.malformed))
        let long = (0..<5).map { _ in label }.joined(separator: ".") + ".com"
        #expect(EmailValidation.normalise("a@\(long)") == .failure(.malformed))
    }

    @Test(arguments: [
        ("gmial.com", "gmail.com"), ("gmai.com", "gmail.com"), ("gamil.com", "gmail.com"), ("gnail.com", "gmail.com"),
        ("gmail.co", "gmail.com"), ("gmail.con", "gmail.com"), ("gmial.con", "gmail.com"), ("hotmial.com", "hotmail.com"),
        ("hotmal.com", "hotmail.com"), ("yaho.com", "yahoo.com"), ("yahooo.com", "yahoo.com"), ("outlok.com", "outlook.com"),
        ("iclod.com", "icloud.com"), ("example.con", "example.com"), ("example.cmo", "example.com"),
        ("aol.con", "aol.com"), ("example.nte", "example.net"), ("example.ogr", "example.org"),
    ])
    func slipsGetASuggestion(_ typed: String, _ meant: String) throws {
        #expect(EmailValidation.normalise("Kim@\(typed)") == .failure(.likelyTypo(suggestion: "Kim@\(meant)")))
        #expect(try EmailValidation.normalise("Kim@\(typed)", acceptAsTyped: true).get() == "Kim@\(typed)")
    }

    @Test(arguments: [
        "gmail.com", "mail.com", "email.com", "ymail.com", "hotmail.de", "yahoo.co.uk", "example.com", "aim.com",
        "live.com", "me.com", "gmx.de", "school.example", "example.co",
    ])
    func realDomainsGetNone(_ domain: String) throws {
        #expect(try EmailValidation.normalise("kim@\(domain)").get() == "kim@\(domain)")
    }

    @Test func oneEditDistance() throws {
        #expect(TypoDomains.isOneEditAway("gmial.com", "gmail.com"))
        #expect(TypoDomains.isOneEditAway("gmai.com", "gmail.com"))
        #expect(TypoDomains.isOneEditAway("gmaill.com", "gmail.com"))
        #expect(TypoDomains.isOneEditAway("gmail.cm", "gmail.com"))
        #expect(!TypoDomains.isOneEditAway("gmail.com", "gmail.com"))
        #expect(!TypoDomains.isOneEditAway("gmxil.cob", "gmail.com"))
        #expect(!TypoDomains.isOneEditAway("mgial.com", "gmail.com"))
    }

    @Test func checkedThrowsTheContractCodes() throws {
        #expect(throws: FrontdoorError(.invalidEmail, "")) { try EmailValidation.checked("nope", acceptAsTyped: false) }
        do {
            _ = try EmailValidation.checked("a@gmial.com", acceptAsTyped: false)
            Issue.record("accepted a slip")
        } catch {
            #expect(error.code == .invalidEmail)
            #expect(error.extra.first { $0.0 == "suggestion" }?.1 == "a@gmail.com")
        }
    }
}

@Suite struct PasswordHasherTests {
    /// The list `make deps` built (the test binary is not installed beside it), and the short
    /// passwords these tests use, which are about hashing, not rule 19.
    static let passwords = #""passwords": {"minLength": 8, "listFile": "\#(PasswordListFile.built)"}"#

    static let cost = Config.PasswordCost.minimum

    @Test func hashesVerifyAndCarryTheirCost() throws {
        let hash = try PasswordHasher.hash("pässword with\u{0}nul", cost: Self.cost)
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try PasswordHasher.verify("pässword with\u{0}nul", against: hash))
        #expect(try !PasswordHasher.verify("pässword with", against: hash))
        #expect(try !PasswordHasher.verify("", against: hash))
        #expect(!PasswordHasher.needsRehash(hash, cost: Self.cost))
        #expect(PasswordHasher.needsRehash(hash, cost: .init(memoryKiB: 19456, iterations: 3)))
        #expect(PasswordHasher.needsRehash(hash, cost: .init(memoryKiB: 65536, iterations: 2)))
        #expect(PasswordHasher.needsRehash("$2b$10$bcrypt", cost: Self.cost))
        // Two hashes of one password differ (random salt).
        #expect(try PasswordHasher.hash("pässword with\u{0}nul", cost: Self.cost) != hash)
    }

    static let composed = "caf\u{E9} au lait"  // é as one scalar
    static let decomposed = "cafe\u{301} au lait"  // e and a combining acute accent

    @Test func passwordsAreHashedInNFC() throws {
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
        let fromDecomposed = try PasswordHasher.hash(Self.decomposed, cost: Self.cost)
        #expect(try PasswordHasher.check(Self.composed, against: fromDecomposed) == .match)
        #expect(try PasswordHasher.check(Self.decomposed, against: fromDecomposed) == .match)
        let fromComposed = try PasswordHasher.hash(Self.composed, cost: Self.cost)
        #expect(try PasswordHasher.check(Self.decomposed, against: fromComposed) == .match)
        #expect(try PasswordHasher.check("cafe au lait", against: fromComposed) == .mismatch)
    }

    @Test func aHashOfTheTypedBytesStillMatchesAndAsksToBeReplaced() throws {
        // From before normalisation: the decomposed bytes as typed.
        let legacy = try PasswordHasher.hash(bytes: Array(Self.decomposed.utf8), cost: Self.cost)
        #expect(try PasswordHasher.check(Self.decomposed, against: legacy) == .matchAsTyped)
        #expect(try PasswordHasher.verify(Self.decomposed, against: legacy))
        // The other form never reached that hash; it works once a login has replaced it.
        #expect(try PasswordHasher.check(Self.composed, against: legacy) == .mismatch)
    }

    @Test func aLoginReplacesATypedBytesHash() throws {
        try withStoreDirectory { dir in
            let config = try Config.parse(
                Array(#"{"databasePath": "\#(dir.databasePath)", "google": {"clientIds": ["a"]}, \#(Self.passwords)}"#.utf8))
            func call(_ members: [(String, JSONValue)]) throws -> CGIResponse {
                let body = JSONValue.object(members)
                let request = CGIRequest(
                    method: "POST", contentType: "application/json", contentLength: 0, authorization: nil,
                    remoteAddress: "192.0.2.1", body: [])
                return try EmailSignIn.handle(RequestContext(config: config, request: request, body: body, now: Clock.now()))
            }
            let address: JSONValue = .string("nfc@example.org")
            #expect(try call([("action", "register"), ("email", address), ("password", .string(Self.composed))]).status == 201)
            let db = try Database(path: dir.databasePath)
            let legacy = try PasswordHasher.hash(bytes: Array(Self.decomposed.utf8), cost: Self.cost)
            try db.run("UPDATE accounts SET password_hash = ?", [.text(legacy)])
            #expect(try call([("action", "login"), ("email", address), ("password", .string(Self.decomposed))]).status == 200)
            let replaced = try #require(try db.query("SELECT password_hash FROM accounts").first?.text(0))
            #expect(replaced != legacy)
            #expect(try PasswordHasher.check(Self.composed, against: replaced) == .match)
            #expect(try call([("action", "login"), ("email", address), ("password", .string(Self.composed))]).status == 200)
        }
    }

    /// A wrong password, an unknown address and an account without a password each verify
    /// exactly one Argon2id hash at the configured cost (two, for a password not in NFC): the
    /// same work, proven by what was verified rather than by a time.
    @Test func unknownAndKnownAddressesVerifyAlike() throws {
        try withStoreDirectory { dir in
            let config = try Config.parse(
                Array(#"{"databasePath": "\#(dir.databasePath)", "google": {"clientIds": ["a"]}, \#(Self.passwords)}"#.utf8))
            func call(_ members: [(String, JSONValue)]) throws -> (status: Int, verified: [String]) {
                let request = CGIRequest(
                    method: "POST", contentType: "application/json", contentLength: 0, authorization: nil,
                    remoteAddress: "192.0.2.1", body: [])
                let trace = PasswordHasher.Trace()
                let status = PasswordHasher.Trace.$current.withValue(trace) { () -> Int in
                    let context = RequestContext(config: config, request: request, body: .object(members), now: Clock.now())
                    do throws(FrontdoorError) { return try EmailSignIn.handle(context).status } catch {
                        return error.status
                    }
                }
                return (status, trace.verifications)
            }
            func login(_ email: String, _ password: String) throws -> (status: Int, verified: [String]) {
                try call([("action", "login"), ("email", .string(email)), ("password", .string(password))])
            }
            #expect(try call([("action", "register"), ("email", "known@example.org"), ("password", "right password")])
                .status == 201)
            let db = try Database(path: dir.databasePath)
            try db.run(
                "INSERT INTO accounts (id, email, email_key, email_verified, created_at) VALUES ('g', 'g@gmail.com', 'g@gmail.com', 1, 1)")
            let cost = "m=19456,t=2,p=1"
            let wrong = try login("known@example.org", "wrong password")
            let unknown = try login("nobody@example.org", "wrong password")
            let noPassword = try login("g@gmail.com", "wrong password")
            #expect([wrong.status, unknown.status, noPassword.status] == [401, 401, 401])
            #expect(wrong.verified == [cost])
            #expect(unknown.verified == wrong.verified)
            #expect(noPassword.verified == wrong.verified)
            // Not in NFC: tried as typed too, known or not.
            #expect(try login("known@example.org", Self.decomposed).verified == [cost, cost])
            #expect(try login("nobody@example.org", Self.decomposed).verified == [cost, cost])
            // And the right one is one verification too.
            #expect(try login("known@example.org", "right password").verified == [cost])
        }
    }

    @Test func dummyHashIsWellFormedAndMatchesNothing() throws {
        let dummy = PasswordHasher.dummyHash(cost: Self.cost)
        #expect(!PasswordHasher.needsRehash(dummy, cost: Self.cost))
        #expect(try !PasswordHasher.verify("AAAAAAAA", against: dummy))
        #expect(try !PasswordHasher.verify("anything", against: "garbage"))
    }
}

@Suite struct CodesAndMailTests {
    @Test func codesAreSixDigits() throws {
        var seen = Set<String>()
        for _ in 0..<200 {
            let code = try Codes.generate()
            #expect(code.utf8.count == 6 && code.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 })
            seen.insert(code)
        }
        #expect(seen.count > 190)
    }

    @Test func mailIsPlainAndDated() throws {
        let message = MailMessage.code("012345", to: "kim@example.org", purpose: .confirmAddress)
        let text = String(decoding: message.rendered(from: "noreply@example.com", now: 1_796_029_482, messageId: "abc"),
                          as: UTF8.self)
        #expect(text.contains("Date: Mon, 30 Nov 2026 09:04:42 +0000\r\n"))
        #expect(text.contains("To: <kim@example.org>\r\n"))
        #expect(text.contains("Message-ID: <abc@example.com>\r\n"))
        #expect(text.contains("\r\n\r\nYour code to confirm your email address is 012345\r\n"))
        #expect(!text.contains("\n\n") && !text.replacingCRLF.contains("\r"))
        #expect(MailMessage.date(0) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(!MailMessage.isPlain("a@b>\r\nBcc: x@y") && MailMessage.isPlain("a@b.c"))
    }
}

extension String {
    /// The text with every CRLF removed, so a lone CR or LF shows.
    fileprivate var replacingCRLF: String {
        split(separator: "\r\n", omittingEmptySubsequences: false).joined()
    }
}
