import DevSupport
import Shared
import Testing

/// `signin-email`: registration and login with a password, and what they refuse.
// One test at a time: each runs Argon2id (19 MiB) in several processes, and all of them at once
// slow every fsync on the box enough to push the store's concurrency tests past their busy timeout.
@Suite(.serialized) struct EmailSignInTests {
    @Test func registerThenLogIn() throws {
        let h = try Harness()
        let made = try h.register("  Robin.Hood@Example.ORG ", "correct horse battery")
        #expect(made.status == 201, "\(made.rawBody)")
        #expect(made.body["created"] == true)
        #expect(made.body["email"]?.stringValue == "Robin.Hood@example.org")
        #expect(made.body["providers"] == .array(["password"]))
        let stored = try #require(try h.database().query("SELECT email_verified, password_hash FROM accounts").first)
        #expect(stored.int(0) == 0)
        #expect(stored.text(1)?.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$") == true)
        // Any case of the address, the same account.
        let login = try h.login("robin.hood@example.org", "correct horse battery")
        #expect(login.status == 200)
        #expect(login.body["created"] == false)
        #expect(login.body["accountId"] == made.body["accountId"])
        #expect(!made.stderr.contains("Robin") && !login.stderr.contains("horse"))
    }

    @Test(arguments: ["plainaddress", "a@b", "two@@example.com", "a b@example.com", "a@exa mple.com",
                      ".dot@example.com", "dot.@example.com", "a..b@example.com", "a@-x.com", "a@x.c1",
                      "a@[127.0.0.1]", "line\nbreak@example.com", "nul\u{0}@example.com", "tab\t@example.com",
                      "bell\u{7}@example.com"])
    func malformedAddressesAreRefusedWithoutSuggestion(_ email: String) throws {
        let h = try Harness()
        let answer = try h.register(email, "long enough password")
        #expect(answer.status == 422)
        #expect(answer.errorCode == "invalid_email")
        #expect(answer.body["suggestion"] == nil)
        #expect(try h.count("accounts") == 0)
    }

    @Test func typoGetsASuggestionAndAcceptAsTypedRegistersIt() throws {
        let h = try Harness()
        let slip = try h.register("lee@gmial.com", "long enough password")
        #expect(slip.status == 422)
        #expect(slip.errorCode == "invalid_email")
        #expect(slip.body["suggestion"]?.stringValue == "lee@gmail.com")
        #expect(try h.count("accounts") == 0)
        let tld = try h.register("lee@example.con", "long enough password", acceptAsTyped: false)
        #expect(tld.body["suggestion"]?.stringValue == "lee@example.com")
        let asTyped = try h.register("lee@gmial.com", "long enough password", acceptAsTyped: true)
        #expect(asTyped.status == 201)
        #expect(asTyped.body["email"]?.stringValue == "lee@gmial.com")
        // acceptAsTyped is for slips, not for addresses that are not addresses.
        #expect(try h.register("not an address", "long enough password", acceptAsTyped: true).status == 422)
    }

    @Test func shortAndOverlongPasswordsAreRefused() throws {
        let h = try Harness()
        for (password, reason) in [("", "too_short"), ("tram oa", "too_short"), (String(repeating: "é", count: 257), "too_long")] {
            let answer = try h.register("pw@example.org", password)
            #expect(answer.status == 422, "\(password.unicodeScalars.count) code points")
            #expect(answer.errorCode == "invalid_password")
            #expect(answer.body["reason"]?.stringValue == reason)
        }
        // 8 code points (this suite's config) is enough, whatever their bytes; composition does not matter.
        #expect(try h.register("pw@example.org", "ünïcødé!").status == 201)
        // 256 code points is not too long.
        let long = (0..<256).map { i in Character(Unicode.Scalar(UInt8(0x61 + Int(SHA256.hash(Array("\(i)".utf8))[0]) % 26))) }
        #expect(try h.register("pw2@example.org", String(long)).status == 201)
    }

    @Test func takenAddressIsRefused() throws {
        let h = try Harness()
        #expect(try h.register("taken@example.org", "first password").status == 201)
        let again = try h.register("TAKEN@example.org", "second password")
        #expect(again.status == 409)
        #expect(again.errorCode == "email_taken")
        #expect(try h.count("accounts") == 1)
    }

    @Test func registrationsAreLimitedPerClient() throws {
        let h = try Harness(config: [("limits", .object([("registrationsPerClientPerHour", 2)]))])
        #expect(try h.register("one@example.org", "a password!").status == 201)
        #expect(try h.register("one@example.org", "a password!").errorCode == "email_taken")
        let third = try h.register("one@example.org", "a password!")
        #expect(third.status == 429)
        #expect(third.errorCode == "rate_limited")
        #expect(Int(third.header("Retry-After") ?? "") ?? 0 > 0)
    }

    @Test func wrongPasswordAndUnknownEmailAnswerAlike() throws {
        let h = try Harness()
        #expect(try h.register("known@example.org", "the right password").status == 201)
        let wrong = try h.login("known@example.org", "the wrong password")
        let unknown = try h.login("nobody@example.org", "the wrong password")
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect(wrong.errorCode == "invalid_credentials")
        #expect(wrong.rawBody == unknown.rawBody)
        // That both did the same Argon2id work is proven in-process by what was verified
        // (EmailValidationTests.unknownAndKnownAddressesVerifyAlike), not by a time.
        // An account without a password (made by Google) cannot be logged into with one.
        _ = try h.signInGoogle(try h.google.token(sub: "g-nopw", email: "nopw@gmail.com"))
        #expect(try h.login("nopw@gmail.com", "any password").rawBody == unknown.rawBody)
    }

    @Test func failedLoginsAreThrottledPerEmailAndPerClient() throws {
        let h = try Harness(config: [("limits", .object([("loginFailuresPerEmail", 3), ("loginFailuresPerClient", 5)]))])
        #expect(try h.register("throttle@example.org", "the right password").status == 201)
        for _ in 0..<3 { #expect(try h.login("throttle@example.org", "wrong password").status == 401) }
        let limited = try h.login("throttle@example.org", "the right password")
        #expect(limited.status == 429)
        #expect(limited.errorCode == "rate_limited")
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        // Another client is refused for this address too; the limit is the address's.
        #expect(try h.login("throttle@example.org", "the right password", remoteAddress: "192.0.2.9").status == 429)
        // The first client has 3 failures counted (a refused attempt counts nothing): two more, then
        // every address is refused to it, known or not.
        #expect(try h.login("other@example.org", "wrong password").status == 401)
        #expect(try h.login("third@example.org", "wrong password").status == 401)
        #expect(try h.login("fourth@example.org", "wrong password").status == 429)
        // Once the window has passed, the right password works and clears the address's count.
        try h.database().run("UPDATE ephemeral SET since = since - 86400, expires_at = 1 WHERE kind = 2")
        #expect(try h.login("throttle@example.org", "the right password").status == 200)
    }

    @Test func rateLimitKeysAreHMACsWithTheServersSecret() throws {
        let h = try Harness()
        #expect(try h.login("keyed@example.org", "wrong password").status == 401)
        let stored = Set(try h.database().query("SELECT key FROM ephemeral WHERE kind = 2").compactMap { $0.blob(0) })
        #expect(stored.count == 2)
        // The server key was made beside the database on first use; the limit's secret derives from it.
        let serverKey = try DeletionAudit.key(config: try Config.load(environment: ["AUTH_CONFIG": h.configPath]))
        let secret = RateLimits.secret(serverKey: serverKey)
        let descriptor = Array("login-email/900:keyed@example.org".utf8)
        #expect(stored.contains(HMACSHA256.mac(key: secret, message: descriptor)))
        #expect(!stored.contains(SHA256.hash(descriptor)))
        #expect(!stored.contains(HMACSHA256.mac(key: serverKey, message: descriptor)))
    }

    @Test func loginRehashesWhenTheCostSettingChanges() throws {
        let h = try Harness()
        #expect(try h.register("cost@example.org", "a fine password").status == 201)
        let before = try h.database().query("SELECT password_hash FROM accounts").first?.text(0)
        try h.writeConfig([("password", .object([("iterations", 3)]))])
        #expect(try h.login("cost@example.org", "a fine password").status == 200)
        let after = try #require(try h.database().query("SELECT password_hash FROM accounts").first?.text(0))
        #expect(after != before)
        #expect(after.hasPrefix("$argon2id$v=19$m=19456,t=3,p=1$"))
        // The new hash verifies, and is not redone at the same cost.
        #expect(try h.login("cost@example.org", "a fine password").status == 200)
        #expect(try h.database().query("SELECT password_hash FROM accounts").first?.text(0) == after)
    }

    @Test func unknownActionAndMissingFieldsAreBadRequests() throws {
        let h = try Harness()
        #expect(try h.signInEmail([("action", "delete")]).errorCode == "invalid_request")
        #expect(try h.signInEmail([("action", "login"), ("email", "x@example.org")]).errorCode == "invalid_request")
        #expect(try h.signInEmail([("action", "register"), ("password", "long enough")]).errorCode == "invalid_request")
    }
}
