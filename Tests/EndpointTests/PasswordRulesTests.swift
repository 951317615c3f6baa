#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Rule 19 through the built programs: 422 `invalid_password` with its reason and `minLength` for
/// `register` and `reset_confirm`, before any try is counted, any code judged or Argon2id run; the
/// range service asked with 5 hex digits and never in the way; stored passwords never judged.
// One at a time: several run Argon2id in their processes (see EmailSignInTests).
@Suite(.serialized) struct PasswordRulesTests {
    /// A config with the rules' defaults (minLength 15), unlike the other suites' 8.
    static func defaults(_ extra: [(String, JSONValue)] = []) -> [(String, JSONValue)] {
        [("passwords", .object(extra))]
    }

    /// What each rule refuses, for the address `ada.lovelace@analytical.example` and the app
    /// word "FrontDoor".
    static let refused: [(String, String)] = [
        ("fourteen chars", "too_short"),
        ("gru\u{308}ne a\u{308}pfel su\u{308}", "too_short"),
        (String(repeating: "thé ", count: 64) + "x", "too_long"),
        ("ACKNOWLEDGEMENTS", "common"),
        ("Password1234567", "common"),
        ("aaaaaaaaaaaaaaa", "repetitive"),
        ("123456789012345", "repetitive"),
        ("abcdefghijklmno", "repetitive"),
        ("poiuytrewqlkjhg", "repetitive"),
        ("Ada.Lovelace@analytical.example", "contains_context"),
        ("analytical-analytical", "contains_context"),
        ("frontdoor-frontdoor-1", "contains_context"),
    ]
    static let email = "ada.lovelace@analytical.example"

    func makeNotes(_ h: Harness) -> (path: String, read: () -> [String]) {
        let path = h.dir + "/notes-\(Clock.monotonicMillis())"
        return (path, {
            String(decoding: FileIO.readFile(path) ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
        })
    }

    func register(_ h: Harness, _ email: String, _ password: String, notes: String) throws -> CGIAnswer {
        let body = JSONValue.object([("action", "register"), ("email", .string(email)), ("password", .string(password))])
        return try h.run("signin-email", body: Array(body.serialized.utf8), extraEnvironment: ["FRONTDOOR_TEST_NOTES": notes])
    }

    static func expectRefused(
        _ answer: CGIAnswer, _ reason: String, minLength: Double = 15, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == 422, "\(answer.rawBody)", sourceLocation: sourceLocation)
        #expect(answer.errorCode == "invalid_password", sourceLocation: sourceLocation)
        #expect(answer.body["reason"]?.stringValue == reason, "\(answer.rawBody)", sourceLocation: sourceLocation)
        #expect(answer.body["minLength"] == .number(minLength), sourceLocation: sourceLocation)
        #expect(answer.body["message"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    }

    @Test func registerRefusesEachReasonWithoutArgon2idAndCountsNoTry() throws {
        let h = try Harness(config: Self.defaults([("contextWords", .array(["FrontDoor"]))]) + [
            ("limits", .object([("registrationsPerClientPerHour", 2)])),
        ])
        let (notes, read) = makeNotes(h)
        for (password, reason) in Self.refused {
            Self.expectRefused(try register(h, Self.email, password, notes: notes), reason)
        }
        #expect(try h.count("accounts") == 0)
        #expect(!read().contains("argon2id hash"), "a refused password was hashed")
        // Twelve refusals counted nothing: the limit of two registrations is all there.
        for address in ["one@example.org", "two@example.org"] {
            let made = try register(h, address, "a sturdy passphrase here", notes: notes)
            #expect(made.status == 201, "\(made.rawBody)")
        }
        #expect(read().filter { $0 == "argon2id hash" }.count == 2)
        #expect(try register(h, "three@example.org", "a sturdy passphrase here", notes: notes).status == 429)
    }

    @Test func fifteenCodePointsWithCombiningMarksAreEnough() throws {
        let h = try Harness(config: Self.defaults())
        let answer = try h.register("greens@example.org", "gru\u{308}ne a\u{308}pfel su\u{308}ß")
        #expect(answer.status == 201, "\(answer.rawBody)")
        // The hash is of the NFC form: typed precomposed, it logs in.
        #expect(try h.login("greens@example.org", "grüne äpfel süß").status == 200)
        // The other suites' config (minLength 8) says its own minimum.
        let eight = try Harness()
        Self.expectRefused(try eight.register("short@example.org", "seven77"), "too_short", minLength: 8)
        #expect(try eight.register("short@example.org", "tram oak").status == 201)
    }

    @Test func aSequenceInAPassphraseIsFine() throws {
        let h = try Harness(config: Self.defaults())
        #expect(try h.register("phrase@example.org", "correct horse 123456789 battery staple").status == 201)
        Self.expectRefused(try h.register("phrase2@example.org", "oak 1234567890 elm"), "repetitive")
    }

    @Test func resetConfirmChecksBeforeTheCodeIsTriedOrTheTicketSpent() throws {
        let h = try Harness(config: Self.defaults([("contextWords", .array(["FrontDoor"]))]))
        #expect(try h.register(Self.email, "the very first passphrase").status == 201)
        let request = try h.verify([("action", "reset_request"), ("email", .string(Self.email))])
        let ticket = try #require(request.body["ticket"]?.stringValue)
        let code = try #require(h.smtp.lastCode(to: Self.email))
        let wrong = code == "999999" ? "999998" : "999999"
        let (notes, read) = makeNotes(h)
        func confirm(_ code: String, _ password: String) throws -> CGIAnswer {
            let body = JSONValue.object([
                ("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
                ("password", .string(password)),
            ])
            return try h.run("verify-email", body: Array(body.serialized.utf8), extraEnvironment: ["FRONTDOOR_TEST_NOTES": notes])
        }
        // More refusals than a code has tries, with the wrong code and the right one: none is a try.
        for (password, reason) in Self.refused {
            Self.expectRefused(try confirm(wrong, password), reason)
            Self.expectRefused(try confirm(code, password), reason)
        }
        #expect(!read().contains("argon2id hash"))
        // The account's own address, in another case.
        Self.expectRefused(try confirm(code, "ADA.LOVELACE@analytical.example!"), "contains_context")
        #expect(try confirm(wrong, "a brand new passphrase").errorCode == "invalid_code")
        let done = try confirm(code, "a brand new passphrase")
        #expect(done.status == 200, "\(done.rawBody)")
        #expect(try h.login(Self.email, "a brand new passphrase").status == 200)
    }

    @Test func aStoredPasswordKeepsWorkingWhateverItIs() throws {
        let h = try Harness(config: Self.defaults())
        let db = try h.database()
        // Not "password": the programs' own log lines hold that word, and the log scan would take it for the secret.
        for (i, password) in ["letmein", "aaaaaaaa", "qwert", "ada@old.example"].enumerated() {
            let email = "old\(i)@old.example"
            let hash = try PasswordHasher.hash(password, cost: .minimum)
            try db.run(
                """
                INSERT INTO accounts (id, email, email_key, email_verified, name, password_hash, created_at)
                VALUES (?, ?, ?, 0, NULL, ?, ?)
                """,
                [.text("acct-old-\(i)"), .text(email), .text(EmailAddress.matchKey(email)), .text(hash), .integer(Clock.now())])
            Harness.registerSecrets(of: Array(JSONValue.object([("password", .string(password))]).serialized.utf8), authorization: nil)
            let login = try h.login(email, password)
            #expect(login.status == 200, "\(password): \(login.rawBody)")
        }
    }

    @Test func theRangeServiceRefusesWhatItHasSeenAndNeverStandsInTheWay() throws {
        let breached = "a breached but long passphrase"
        let fake = try FakePwnedPasswords(breached: [breached: 77])
        let h = try Harness(config: Self.defaults([("rangeUrl", .string(fake.url)), ("rangeTimeoutSeconds", 1)]))
        let syslog = h.dir + "/syslog.log"
        func register(_ email: String, _ password: String) throws -> CGIAnswer {
            let body = JSONValue.object([("action", "register"), ("email", .string(email)), ("password", .string(password))])
            return try h.run("signin-email", body: Array(body.serialized.utf8), extraEnvironment: ["FRONTDOOR_SYSLOG_FILE": syslog])
        }
        Self.expectRefused(try register("seen@example.org", breached), "common")
        #expect(fake.requests.count == 1)
        let request = try #require(fake.requests.first)
        let hash = try SHA1.hexDigest(PasswordHasher.normalised(breached))
        #expect(request.path == "/range/" + hash.prefix(5) && request.header("Add-Padding") == "true")
        #expect(try register("clean@example.org", "a passphrase nobody has used").status == 201)
        // A password refused on the box never goes out; nor does one of a registration refused as
        // taken (the fourth review's T5-9: the service was asked before the limits and the address).
        Self.expectRefused(try register("local@example.org", "aaaaaaaaaaaaaaa"), "repetitive")
        #expect(fake.requests.count == 2)
        #expect(try register("clean@example.org", "another passphrase nobody used").errorCode == "email_taken")
        #expect(fake.requests.count == 2, "a registration refused as taken asked nobody")
        // Down, hanging, failing, talking nonsense, listing it as padding: let through, with a line for the operator.
        var n = 0
        for mode: FakePwnedPasswords.Mode in [.down, .hang, .status(500), .garbage, .asPadding] {
            try fake.setMode(mode)
            n += 1
            let started = Clock.monotonicMillis()
            let made = try register("through\(n)@example.org", breached)
            #expect(made.status == 201, "\(mode): \(made.rawBody)")
            #expect(Clock.monotonicMillis() - started < 15_000, "\(mode) held the person up")
        }
        let lines = String(decoding: FileIO.readFile(syslog) ?? [], as: UTF8.self).split(separator: "\n")
        TestLogs.appendSyslog(FileIO.readFile(syslog) ?? [])
        // Four that could not be asked; the padding answer was an answer.
        #expect(lines.filter { $0.contains("range service was not asked or did not answer") }.count == 4, "\(lines)")
        #expect(!lines.contains { $0.contains(hash.prefix(5)) || $0.contains("breached") })
    }

    @Test func aMissingListRefusesToSetAnyPasswordAndNothingElse() throws {
        let h = try Harness(config: Self.defaults())
        #expect(try h.register("before@example.org", "a sturdy passphrase here").status == 201)
        try h.writeConfig(Self.defaults([("listFile", .string(h.dir + "/no-such-list"))]))
        let refused = try h.register("after@example.org", "another sturdy passphrase")
        #expect(refused.status == 500 && refused.errorCode == "internal")
        #expect(refused.stderr.contains("passwords.listFile"), "\(refused.stderr)")
        #expect(try h.count("accounts") == 1)
        // Signing in needs no list.
        #expect(try h.login("before@example.org", "a sturdy passphrase here").status == 200)
        let token = try h.google.token(sub: "no-list", email: "no.list@gmail.com")
        #expect(try h.signInGoogle(token).status == 200)
    }
}
