#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 23, `google-risc`: Google's Security Event Tokens as RFC 8935 pushes them, checked with
/// Google's keys, acted on once, answered 202 or 400 with RFC 8935's body.
@Suite struct GoogleRISCTests {
    /// The forms: `iss` with and without the slash, `aud` a string or an array, the SET's media type
    /// or none, an `id_token_claims` subject with its email.
    @Test(arguments: [
        ("slash, string aud, secevent+jwt", "https://accounts.google.com/", false, "application/secevent+jwt", false),
        ("no slash, array aud, no type", "https://accounts.google.com", true, nil, false),
        ("id_token_claims subject", "https://accounts.google.com/", false, "application/jwt", true),
    ] as [(String, String, Bool, String?, Bool)])
    func sessionsRevokedEndsTheSessionsInEveryForm(
        _ form: String, _ issuer: String, _ arrayAudience: Bool, _ contentType: String?, _ claimsSubject: Bool
    ) throws {
        let p = try ProviderEventsWorld()
        let me = try p.h.signedIn("g-risc-form-1", email: "risc.form@gmail.com")
        var event = FakeGoogle.riscEvent("sessions-revoked", sub: "g-risc-form-1")
        if claimsSubject {
            event.1 = .object([("subject", .object([
                ("subject_type", "id_token_claims"), ("email", "risc.form@gmail.com"), ("sub", "g-risc-form-1"),
            ]))])
        }
        let audience: JSONValue = arrayAudience
            ? .array([.string(FakeGoogle.clientId), "someone-elses.apps.googleusercontent.com"]) : .string(FakeGoogle.clientId)
        let set = try p.google.securityEvent([event], issuer: issuer, audience: audience)
        let answer = try p.risc(set, contentType: contentType)
        #expect(answer.status == 202, "\(form): \(answer.rawBody) \(answer.stderr)")
        #expect(answer.rawBody.isEmpty, "\(form)")
        #expect(answer.header("Content-Type") == nil)
        #expect(try p.h.check(me.bearer).status == 401, "\(form)")
        let rows = try p.rows()
        #expect(rows.count == 1 && rows.first?.hasSuffix(" sessions-revoked applied 0") == true, "\(rows)")
    }

    /// Refusals answer 400 with RFC 8935's JSON (`err` and `description`) and change nothing.
    @Test func refusalsAnswerRFC8935AndChangeNothing() throws {
        let p = try ProviderEventsWorld()
        _ = try p.h.signedIn("g-risc-refused-1")
        let impostor = try SigningKey.rsa(kid: "rsa-1")
        let event = FakeGoogle.riscEvent("sessions-revoked", sub: "g-risc-refused-1")
        let good = try p.google.securityEvent([event])
        let parts = good.split(separator: ".").map(String.init)
        let hs256 = try JWTMinter.mintHS256(
            rawHeader: #"{"alg":"HS256","kid":"rsa-1"}"#,
            rawClaims: String(decoding: Base64URL.decode(parts[1]) ?? [], as: UTF8.self),
            secret: Array(JWTMinter.jwks(p.google.keys).utf8))
        let cases: [(String, String, String)] = [
            ("wrong iss", try p.google.securityEvent([event], issuer: "https://accounts.example.com/"), "invalid_issuer"),
            ("iss without scheme", try p.google.securityEvent([event], issuer: "accounts.google.com"), "invalid_issuer"),
            ("wrong aud", try p.google.securityEvent([event], audience: "other.apps.googleusercontent.com"), "invalid_audience"),
            ("aud array of strangers", try p.google.securityEvent([event], audience: .array(["a.example", "b.example"])),
             "invalid_audience"),
            ("another key of the same kid", try p.google.securityEvent([event], key: impostor), "invalid_key"),
            ("unknown kid", try p.google.securityEvent([event], key: try TestKeys.rsa("google-unknown")), "invalid_key"),
            ("alg none", Base64URL.encode(Array(#"{"alg":"none","kid":"rsa-1"}"#.utf8)) + "." + parts[1] + ".",
             "invalid_request"),
            ("alg none, signature kept", Base64URL.encode(Array(#"{"alg":"none","kid":"rsa-1"}"#.utf8)) + "." + parts[1]
                + "." + parts[2], "invalid_key"),
            ("HS256 keyed with the key set", hs256, "invalid_key"),
            ("no jti", try p.google.securityEvent([event], overrides: [("jti", .null)]), "invalid_request"),
            ("no events", try p.google.securityEvent([event], overrides: [("events", .null)]), "invalid_request"),
            ("events empty", try p.google.securityEvent([]), "invalid_request"),
            ("events a string", try p.google.securityEvent([event], overrides: [("events", "{}")]), "invalid_request"),
            ("subject of another issuer", try p.google.securityEvent([(event.0, .object([
                ("subject", FakeGoogle.riscSubject("g-risc-refused-1", issuer: "https://evil.example/")),
            ]))]), "invalid_request"),
            ("no subject", try p.google.securityEvent([(event.0, .object([]))]), "invalid_request"),
            ("iat in the future", try p.google.securityEvent([event], now: Clock.now() + 3600), "invalid_request"),
            ("a Google ID token, no events", try p.google.token(sub: "g-risc-refused-1"), "invalid_request"),
            ("not a JWT", "hello", "invalid_request"),
            ("JSON", #"{"events":{}}"#, "invalid_request"),
        ]
        let before = try p.snapshot()
        for (name, body, code) in cases {
            let answer = try p.risc(body)
            #expect(answer.status == 400, "\(name): \(answer.rawBody) \(answer.stderr)")
            #expect(answer.header("Content-Type") == "application/json", "\(name)")
            #expect(answer.body["err"]?.stringValue == code, "\(name): \(answer.rawBody)")
            #expect(answer.body["description"]?.stringValue?.isEmpty == false, "\(name)")
            #expect(answer.body.objectValue?.count == 2, "\(name): only err and description")
            #expect(try p.snapshot() == before, "\(name) changed the store")
        }
        // An expired `exp` does not matter to a SET (events do not expire): it is acted on.
        let withExp = try p.google.securityEvent([event], overrides: [
            ("iat", .number(Double(Clock.now() - 7200))), ("exp", .number(Double(Clock.now() - 3600))),
        ])
        #expect(try p.risc(withExp).status == 202)
        #expect(try p.risc(good).status == 202)
    }

    /// Hijacked: sessions from before end, and the Google identity is blocked: its sign-in is
    /// refused (401 `invalid_token`, nothing written), no reset mail goes to its address and the
    /// reset's answer is as for anyone; `account-enabled` lifts it.
    @Test func aBlockedGoogleIdentityIsRefusedAndGetsNoMail() throws {
        let p = try ProviderEventsWorld()
        let victim = "hijacked.person@gmail.com"
        let me = try p.h.signedIn("g-hijacked-1", email: victim)
        _ = try p.h.signedIn("g-control-1", email: "control.person@gmail.com")
        let disabled = try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-disabled", sub: "g-hijacked-1", reason: "hijacking")], jti: "jti-disabled")
        #expect(try p.risc(disabled).status == 202)
        #expect(try p.h.check(me.bearer).status == 401)
        let before = try p.snapshot()
        let refused = try p.h.signInGoogle(try p.google.token(sub: "g-hijacked-1", email: victim))
        #expect(refused.status == 401 && refused.errorCode == "invalid_token", "\(refused.rawBody)")
        #expect(refused.stderr.contains("identity blocked"))
        #expect(try p.snapshot() == before, "a refused sign-in writes nothing")

        let control = try p.h.verify([("action", "reset_request"), ("email", "control.person@gmail.com")])
        let mails = p.h.smtp.messages.count
        let reset = try p.h.verify([("action", "reset_request"), ("email", .string(victim))])
        #expect(p.h.smtp.messages.count == mails, "no reset mail to a hijacked Google address")
        #expect(AppleNotifyRelayTests.same(reset, control), "\(reset.rawBody) vs \(control.rawBody)")
        // The code of that ticket can never confirm (nothing was mailed; the code is spoilt).
        let guess = try p.h.verify([
            ("action", "reset_confirm"), ("ticket", .string(try #require(reset.body["ticket"]?.stringValue))),
            ("code", "000000"), ("password", "a long enough password 2"),
        ])
        #expect(guess.status == 401)

        let enabled = try p.google.securityEvent([FakeGoogle.riscEvent("account-enabled", sub: "g-hijacked-1")])
        #expect(try p.risc(enabled).status == 202)
        let back = try p.h.signInGoogle(try p.google.token(sub: "g-hijacked-1", email: victim))
        #expect(back.status == 200)
        #expect(back.body["accountId"]?.stringValue == me.accountId)
    }

    /// `account-disabled` without a reason blocks, and keeps the sessions (the app offers another
    /// way in); `bulk-account` too. An enabling older than the block leaves it.
    @Test func aBlockWithoutHijackingKeepsTheSessions() throws {
        let p = try ProviderEventsWorld()
        let me = try p.h.signedIn("g-disabled-1", email: "disabled.one@gmail.com")
        let now = Clock.now()
        #expect(try p.risc(try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-disabled", sub: "g-disabled-1")], now: now)).status == 202)
        #expect(try p.h.check(me.bearer).status == 200)
        #expect(try p.h.signInGoogle(try p.google.token(sub: "g-disabled-1")).status == 401)
        let stale = try p.google.securityEvent([FakeGoogle.riscEvent("account-enabled", sub: "g-disabled-1")], now: now - 600)
        #expect(try p.risc(stale).status == 202)
        #expect(try p.h.signInGoogle(try p.google.token(sub: "g-disabled-1")).status == 401, "an older enabling")
        let bulk = try p.h.signedIn("g-bulk-1")
        #expect(try p.risc(try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-disabled", sub: "g-bulk-1", reason: "bulk-account")])).status == 202)
        #expect(try p.h.check(bulk.bearer).status == 200)
        #expect(try p.h.signInGoogle(try p.google.token(sub: "g-bulk-1")).status == 401)
        #expect(p.syslog.contains("account=\(bulk.accountId) reason=bulk-account blocked"))
    }

    /// Several events in one SET, one row; `token-revoked` and unknown types are ignored; an unknown
    /// `sub` is `no_account`; a repeat acts once; the verification's state goes to syslog.
    @Test func severalEventsRepeatsAndVerification() throws {
        let p = try ProviderEventsWorld()
        let me = try p.h.signedIn("g-multi-1", email: "multi.one@gmail.com")
        let set = try p.google.securityEvent([
            FakeGoogle.riscEvent("account-credential-change-required", sub: "g-multi-1"),
            ("https://schemas.openid.net/secevent/oauth/event-type/token-revoked", .object([("subject", .object([
                ("subject_type", "oauth_token"), ("token_type", "refresh_token"), ("token_identifier_alg", "prefix"),
                ("token", "1/abc"),
            ]))])),
            ("https://schemas.openid.net/secevent/risc/event-type/something-new", .object([])),
        ], jti: "jti-multi")
        #expect(try p.risc(set).status == 202)
        #expect(try p.h.check(me.bearer).status == 401)
        let again = try p.h.signedIn("g-multi-1")
        #expect(try p.risc(set).status == 202)
        #expect(try p.h.check(again.bearer).status == 200, "a repeat ends nothing")
        let rows = try p.rows()
        #expect(rows == ["google jti-multi account-credential-change-required,token-revoked,other applied 1"], "\(rows)")

        #expect(try p.risc(try p.google.securityEvent(
            [FakeGoogle.riscEvent("sessions-revoked", sub: "g-nobody")], jti: "jti-nobody")).status == 202)
        #expect(try p.outcome("google", "jti-nobody") == "no_account")
        let verification = try p.google.securityEvent(
            [("https://schemas.openid.net/secevent/risc/event-type/verification", .object([("state", "frontdoor-check-42")]))],
            jti: "jti-verify")
        let verified = try p.risc(verification)
        #expect(verified.status == 202)
        #expect(p.syslog.contains("frontdoor endpoint=google-risc verification state=frontdoor-check-42"))
        #expect(try p.outcome("google", "jti-verify") == "ignored")
    }

    /// `account-purged` of a Google-only account deletes it the normal way (one `account.deleted`,
    /// the ledger line); of an account with another way in, removes the Google identity.
    @Test func accountPurgedDeletesAGoogleOnlyAccount() throws {
        let p = try ProviderEventsWorld()
        let me = try p.h.signedIn("g-purged-1", email: "purged.one@gmail.com")
        #expect(try p.risc(try p.google.securityEvent([FakeGoogle.riscEvent("account-purged", sub: "g-purged-1")])).status
            == 202)
        #expect(try !p.h.holds(me.accountId))
        #expect(try p.accountEvents(me.accountId).filter { $0 == "account.deleted" }.count == 1)
        #expect(p.h.deletionLines.count == 1)
        // Google and Apple, one address: the Google identity goes, the account stays.
        let both = try p.h.signedIn("g-purged-2", email: "purged.two@gmail.com")
        let apple = try p.appleSignedIn("apple-purged-2", email: "purged.two@gmail.com")
        #expect(apple.accountId == both.accountId)
        #expect(try p.risc(try p.google.securityEvent([FakeGoogle.riscEvent("account-purged", sub: "g-purged-2")])).status
            == 202)
        #expect(try p.h.holds(both.accountId))
        let providers = try p.h.database().query(
            "SELECT provider FROM identities WHERE account_id = ?", [.text(both.accountId)]).compactMap { $0.text(0) }
        #expect(providers == ["apple"])
        #expect(p.h.deletionLines.count == 1)
    }

    /// The third review's first finding: a passkey is a way in. `account-purged` of an account
    /// whose only identity is Google's but which has a passkey removes the Google identity and
    /// ends the sessions from before; the account, its passkey and the app's data stay.
    @Test func accountPurgedOfAnAccountWithAPasskeyUnlinksGoogle() throws {
        let p = try ProviderEventsWorld(config: [PasskeyWorld.section])
        let keys = PasskeyWorld(on: p.h)
        let me = try keys.person("g-purged-3")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try keys.register(phone, for: me)
        #expect(try p.risc(try p.google.securityEvent([FakeGoogle.riscEvent("account-purged", sub: "g-purged-3")])).status
            == 202)
        #expect(try p.h.holds(me.accountId), "the passkey is another way in")
        #expect(try p.h.count("identities") == 0)
        #expect(try p.h.check(me.bearer).status == 401)
        #expect(try p.accountEvents(me.accountId).contains("account.deleted") == false)
        #expect(p.h.deletionLines.isEmpty)
        let back = try keys.signInWith(phone, userHandle: handle)
        #expect(back.status == 200 && back.body["accountId"] == .string(me.accountId), "\(back.rawBody)")
        #expect(back.body["providers"] == .array(["passkey"]))
    }

    /// The third review's sixth finding: SETs do not expire, so a captured `account-disabled`
    /// replayed after its record (`jti`) was pruned blocked the person again. A SET whose `iat` is
    /// older than a record is kept for is refused as RFC 8935 refuses a SET (400 `invalid_request`)
    /// and changes nothing; one still young enough is taken, and its record outlives the moment it
    /// would turn too old.
    @Test func aSETOlderThanItsRecordIsKeptIsRefused() throws {
        let p = try ProviderEventsWorld()
        let me = try p.h.signedIn("g-stale-1", email: "stale.one@gmail.com")
        let before = try p.snapshot()
        let old = Clock.now() - ProviderEventStore.maxEventAgeSeconds - 60
        let stale = try p.risc(try p.google.securityEvent(
            [FakeGoogle.riscEvent("account-disabled", sub: "g-stale-1", reason: "hijacking")], now: old))
        #expect(stale.status == 400, "\(stale.rawBody)")
        #expect(stale.body["err"] == "invalid_request")
        #expect(stale.body["description"] == "The SET is older than this receiver accepts.")
        #expect(try p.snapshot() == before)
        #expect(try p.h.check(me.bearer).status == 200)
        #expect(try p.h.signInGoogle(try p.google.token(sub: "g-stale-1", email: "stale.one@gmail.com")).status == 200)

        let young = Clock.now() - ProviderEventStore.maxEventAgeSeconds + 600
        #expect(try p.risc(try p.google.securityEvent(
            [FakeGoogle.riscEvent("sessions-revoked", sub: "g-stale-1")], jti: "jti-young", now: young)).status == 202)
        let expires = try p.h.database().query(
            "SELECT expires_at FROM ephemeral WHERE kind = ? AND key = ?",
            [.integer(Ephemeral.Kind.providerEvent.rawValue), .blob(ProviderEventStore.key(.google, jti: "jti-young"))]
        ).first?.int(0) ?? 0
        #expect(expires > young + ProviderEventStore.maxEventAgeSeconds + 60, "kept while it could be taken again")
    }

    /// Type confusion (RFC 8417's "Distinguishing SETs from ID Tokens"): a SET sent to
    /// `signin-google` is refused (it has no `exp`); a Google ID token to `google-risc` too (no `events`).
    @Test func aSETIsNoIDTokenAndTheReverse() throws {
        let p = try ProviderEventsWorld()
        let set = try p.google.securityEvent([FakeGoogle.riscEvent("sessions-revoked", sub: "g-confused-1")])
        let signIn = try p.h.signInGoogle(set)
        #expect(signIn.status == 401)
        #expect(try p.h.count("accounts") == 0)
        let idToken = try p.google.token(sub: "g-confused-1")
        #expect(try p.risc(idToken).body["err"] == "invalid_request")
        // And an Apple notification is no Apple sign-in.
        let nonce = AppleWorld.nonce()
        let notification = try p.apple.notificationToken(type: "consent-revoked", sub: "apple-confused-1")
        #expect(try p.w.signIn(notification, nonce: nonce).status == 401)
        #expect(try p.h.count("accounts") == 0)
    }
}
