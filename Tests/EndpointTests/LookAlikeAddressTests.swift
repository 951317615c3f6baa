import DevSupport
import Shared
import Testing

/// Issue 19, High 1, through the programs: a dotless i can no longer take a Gmail address's key,
/// and a look-alike domain is an account of its own that a Google sign-in never joins.
@Suite struct LookAlikeAddressTests {
    static let dotless = "\u{131}van.petrov@gmail.com"
    static let lookAlikeDomain = "victim.x@gma\u{131}l.com"

    @Test func aDotlessIIsRefusedAndTheRealAddressRegisters() throws {
        let h = try Harness()
        let refused = try h.register(Self.dotless, "the squatter's password")
        #expect(refused.status == 422, "\(refused.rawBody)")
        #expect(refused.errorCode == "invalid_email")
        #expect(try h.verify([("action", "reset_request"), ("email", .string(Self.dotless))]).errorCode == "invalid_email")
        #expect(try h.count("accounts") == 0)
        let real = try h.register("ivan.petrov@gmail.com", "ivan's own password")
        #expect(real.status == 201, "\(real.rawBody)")
        #expect(try h.login("ivan.petrov@gmail.com", "ivan's own password").status == 200)
    }

    @Test func aDotlessIIsRefusedAndTheRealPersonSignsInWithGoogle() throws {
        let h = try Harness()
        #expect(try h.register(Self.dotless, "the squatter's password").errorCode == "invalid_email")
        let google = try h.signInGoogle(try h.google.token(sub: "g-ivan", email: "ivan.petrov@gmail.com"))
        #expect(google.status == 200, "\(google.rawBody)")
        #expect(google.body["created"] == true)
        #expect(google.body["email"] == "ivan.petrov@gmail.com")
    }

    @Test func aLookAlikeDomainIsNeverJoinedByTheRealAddresssGoogleSignIn() throws {
        let h = try Harness()
        // The typo check takes the dotless i for a slip of gmail.com (one code point away) and
        // says so; the attacker registers it as typed regardless.
        let slip = try h.register(Self.lookAlikeDomain, "the attacker's password")
        #expect(slip.status == 422 && slip.body["suggestion"] == "victim.x@gmail.com", "\(slip.rawBody)")
        let made = try h.register(Self.lookAlikeDomain, "the attacker's password", acceptAsTyped: true)
        #expect(made.status == 201, "\(made.rawBody)")
        let lookAlike = try #require(made.body["accountId"]?.stringValue)
        #expect(try h.database().query("SELECT email_key FROM accounts").first?.text(0) == "victim.x@xn--gmal-nza.com")
        // Its owner resets by code, which proves that inbox and marks the account verified.
        let asked = try h.verify([("action", "reset_request"), ("email", .string(Self.lookAlikeDomain))])
        let ticket = try #require(asked.body["ticket"]?.stringValue, "\(asked.rawBody)")
        let code = try #require(h.smtp.lastCode(to: Self.lookAlikeDomain))
        let reset = try h.verify([
            ("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
            ("password", "the attacker's password"),
        ])
        #expect(reset.status == 200, "\(reset.rawBody)")
        #expect(try h.database().query("SELECT email_verified FROM accounts WHERE id = ?", [.text(lookAlike)]).first?.int(0) == 1)

        // The real Gmail person's Google sign-in makes their own account and joins nothing.
        let google = try h.signInGoogle(try h.google.token(sub: "g-victim", email: "victim.x@gmail.com"))
        #expect(google.status == 200, "\(google.rawBody)")
        #expect(google.body["created"] == true)
        #expect(google.body["accountId"]?.stringValue != lookAlike)
        #expect(try h.database().query("SELECT count(*) FROM identities WHERE account_id = ?", [.text(lookAlike)])
            .first?.int(0) == 0)
        // And the look-alike's password opens only the look-alike.
        #expect(try h.login("victim.x@gmail.com", "the attacker's password").status == 401)
        #expect(try h.login("victim.x@xn--gmal-nza.com", "the attacker's password").body["accountId"]?.stringValue == lookAlike)
    }
}
