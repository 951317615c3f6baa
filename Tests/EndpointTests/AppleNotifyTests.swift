import DevSupport
import Shared
import Testing

/// Issue 23, `apple-notify`: every form Apple has been seen to send, every refusal, and what each
/// notification does, once.
@Suite struct AppleNotifyTests {
    /// The forms: `events` a string (the wire) or an object (the docs), `event_time` in ms or s,
    /// with and without `exp`, to either bundle id or the Services ID.
    @Test(arguments: [
        ("string, ms", false, true, true, FakeApple.bundleId),
        ("object, s", true, false, true, FakeApple.bundleId),
        ("string, s, no exp", false, false, false, "com.example.frontdoor.second"),
        ("object, ms, services id", true, true, true, "com.example.frontdoor.web"),
    ])
    func everyFormOfConsentRevokedSignsThePersonOut(
        _ form: String, _ asObject: Bool, _ milliseconds: Bool, _ expires: Bool, _ audience: String
    ) throws {
        let p = try ProviderEventsWorld(apple: [("servicesId", "com.example.frontdoor.web")])
        let me = try p.appleSignedIn("apple-form-1")
        let now = Clock.now()
        let time: JSONValue = .number(milliseconds ? Double(now) * 1000 + 250 : Double(now))
        let token = try p.apple.notificationToken(
            type: "consent-revoked", sub: "apple-form-1", eventTime: time, eventsAsObject: asObject, audience: audience,
            now: now, expires: expires)
        let answer = try p.notify(token)
        #expect(answer.status == 200, "\(form): \(answer.rawBody) \(answer.stderr)")
        #expect(answer.rawBody == #"{"received":true}"# + "\n")
        #expect(try p.sessions(of: me.accountId) == 0, "\(form)")
        #expect(try p.h.check(me.bearer).status == 401)
        // The link stays: Apple again brings the person back to the same account.
        let again = try p.appleSignedIn("apple-form-1")
        #expect(again.accountId == me.accountId)
        let rows = try p.rows()
        #expect(rows.count == 1 && rows.first?.hasSuffix(" consent-revoked applied 0") == true, "\(rows)")
        #expect(answer.stderr.contains("event=consent-revoked outcome=applied"))
    }

    /// Both spellings of the deletion, and the Apple-only account goes the normal way: one
    /// `account.deleted`, its ledger line, its audit row, no revocation of Apple.
    @Test(arguments: ["account-delete", "account-deleted"])
    func deletingAnAppleOnlyAccountEmitsOneAccountDeleted(_ spelling: String) throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-del-1", email: "del1@privaterelay.appleid.com")
        let token = try p.apple.notificationToken(type: spelling, sub: "apple-del-1")
        let answer = try p.notify(token)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(try !p.h.holds(me.accountId))
        #expect(try p.accountEvents(me.accountId).filter { $0 == "account.deleted" }.count == 1)
        #expect(p.h.ledgerLines.count == 1 && p.h.ledgerLines.first?.hasSuffix(" \(me.accountId)") == true)
        let audit = try p.h.database().query("SELECT providers, apple_revocation FROM deletion_audit")
        #expect(audit.count == 1 && audit.first?.text(0) == "apple" && audit.first?.text(1) == "not_requested")
        #expect(try p.h.count("apple_revocations") == 0)
        #expect(p.apple.revokedTokens.isEmpty)
        #expect(try p.h.check(me.bearer).status == 401)
        // A repeat finds the row and does nothing more: no second deletion, event or ledger line.
        let repeated = try p.notify(token)
        #expect(repeated.status == 200)
        #expect(try p.accountEvents(me.accountId).filter { $0 == "account.deleted" }.count == 1)
        #expect(p.h.ledgerLines.count == 1)
        let rows = try p.rows()
        #expect(rows.first?.hasSuffix(" account-deleted applied 1") == true, "\(rows)")
        #expect(try StoreInvariants.violations(p.h.database()) == [])
    }

    /// An account with another way in keeps it: the Apple identity goes, the sessions from before
    /// the event end, and no `account.deleted` is written.
    @Test func deletionOfAnAccountWithAPasswordUnlinksApple() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-del-2", email: "both.ways@example.org")
        // A password by reset: the account now has two ways in.
        let reset = try p.h.verify([("action", "reset_request"), ("email", "both.ways@example.org")])
        let resetTicket = try #require(reset.body["ticket"]?.stringValue)
        let resetCode = try #require(p.h.smtp.lastCode(to: "both.ways@example.org"))
        let password = "a long enough password 1"
        TestLogs.register(password)
        let confirmed = try p.h.verify([
            ("action", "reset_confirm"), ("ticket", .string(resetTicket)), ("code", .string(resetCode)),
            ("password", .string(password)),
        ])
        #expect(confirmed.status == 200, "\(confirmed.rawBody)")
        let before = try #require(confirmed.body["sessionToken"]?.stringValue)
        try p.h.age(try #require(confirmed.body["sessionId"]?.stringValue), by: 120)
        let after = try p.h.login("both.ways@example.org", password)
        let afterToken = try #require(after.body["sessionToken"]?.stringValue)
        let answer = try p.notify(try p.apple.notificationToken(
            type: "account-deleted", sub: "apple-del-2", eventTime: .number(Double(Clock.now() - 60) * 1000)))
        #expect(answer.status == 200, "\(answer.stderr)")
        #expect(try p.h.holds(me.accountId))
        #expect(try p.h.database().query("SELECT provider FROM identities WHERE account_id = ?", [.text(me.accountId)]).isEmpty)
        #expect(try p.h.check("Bearer \(before)").status == 401, "a session from before the event ended")
        #expect(try p.h.check("Bearer \(afterToken)").status == 200, "a session from after it stays")
        #expect(try p.accountEvents(me.accountId).contains("account.deleted") == false)
        #expect(p.h.deletionLines.isEmpty)
        // A later Apple sign-in of that sub is someone new at Apple's word: a new account.
        #expect(try p.appleSignedIn("apple-del-2").accountId != me.accountId)
    }

    /// The third review's first finding: a passkey is a way in, as `unlink` counts it. An account
    /// whose only identity is Apple's but which has a passkey keeps the account: the Apple
    /// identity goes, the sessions from before end, no `account.deleted`, no ledger line, and the
    /// passkey still signs in.
    @Test(arguments: ["account-delete", "account-deleted"])
    func deletionOfAnAccountWithAPasskeyUnlinksApple(_ spelling: String) throws {
        let p = try ProviderEventsWorld(config: [PasskeyWorld.section])
        let me = try p.appleSignedIn("apple-del-3", email: "keyed@privaterelay.appleid.com")
        let keys = PasskeyWorld(on: p.h)
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try keys.register(phone, for: PasskeyWorld.Person(accountId: me.accountId, session: me.token))
        try p.h.age(me.sessionId, by: 120)
        let answer = try p.notify(try p.apple.notificationToken(
            type: spelling, sub: "apple-del-3", eventTime: .number(Double(Clock.now() - 60) * 1000)))
        #expect(answer.status == 200, "\(answer.stderr)")
        #expect(try p.h.holds(me.accountId), "the passkey is another way in")
        #expect(try p.h.count("identities") == 0)
        #expect(try p.h.check(me.bearer).status == 401, "the session from before the event ended")
        #expect(try p.accountEvents(me.accountId).contains("account.deleted") == false)
        #expect(p.h.deletionLines.isEmpty)
        #expect(try p.h.count("deletion_audit") == 0)
        let back = try keys.signInWith(phone, userHandle: handle)
        #expect(back.status == 200 && back.body["accountId"] == .string(me.accountId), "\(back.rawBody)")
        #expect(back.body["providers"] == .array(["passkey"]))
    }
}

extension AppleNotifyTests {
    /// The third review's sixth finding, for Apple: a notification without `exp` had no age limit.
    /// One whose `iat` is older than an event's record is kept is refused (400 `invalid_token`)
    /// and changes nothing.
    @Test func aNotificationOlderThanItsRecordIsKeptIsRefused() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-stale-1")
        let before = try p.snapshot()
        let old = Clock.now() - ProviderEventStore.maxEventAgeSeconds - 60
        let stale = try p.notify(try p.apple.notificationToken(
            type: "consent-revoked", sub: "apple-stale-1", eventTime: .number(Double(old)), now: old, expires: false))
        #expect(stale.status == 400 && stale.errorCode == "invalid_token", "\(stale.rawBody)")
        #expect(stale.stderr.contains("older than an event's record is kept"), "\(stale.stderr)")
        #expect(try p.snapshot() == before)
        #expect(try p.h.check(me.bearer).status == 200)
        let young = Clock.now() - ProviderEventStore.maxEventAgeSeconds + 600
        #expect(try p.notify(try p.apple.notificationToken(
            type: "consent-revoked", sub: "apple-stale-1", eventTime: .number(Double(young)), jti: "jti-young",
            now: young, expires: false)).status == 200)
        #expect(try p.outcome("apple", "jti-young") == "applied", "taken (the session is newer than the event)")
    }

    /// Everything that is not Apple's notification gets 400 `invalid_token` and changes nothing:
    /// the key cache aside, no table has a row more.
    @Test func refusalsChangeNothing() throws {
        let p = try ProviderEventsWorld()
        _ = try p.appleSignedIn("apple-refused-1")
        let impostor = try SigningKey.rsa(kid: "apple-1")
        let stranger = try TestKeys.rsa("apple-unknown")
        let now = Clock.now()
        func minted(_ overrides: [(String, JSONValue)] = [], header: [(String, JSONValue)] = [], key: SigningKey? = nil,
                    eventOverrides: [(String, JSONValue)] = []) throws -> String {
            try p.apple.notificationToken(
                type: "consent-revoked", sub: "apple-refused-1", now: now, key: key, header: header, overrides: overrides,
                eventOverrides: eventOverrides)
        }
        let good = try minted()
        let parts = good.split(separator: ".").map(String.init)
        let hs256 = try JWTMinter.mintHS256(
            rawHeader: #"{"alg":"HS256","kid":"apple-1"}"#,
            rawClaims: String(decoding: Base64URL.decode(parts[1]) ?? [], as: UTF8.self),
            secret: Array(JWTMinter.jwks(p.apple.keys).utf8))
        let cases: [(String, String)] = [
            ("wrong iss", FakeApple.notificationBody(try minted([("iss", "https://appleid.example.com")]))),
            ("wrong aud", FakeApple.notificationBody(try minted([("aud", "com.someone.else")]))),
            ("another key of the same kid", FakeApple.notificationBody(try minted(key: impostor))),
            ("alg none", FakeApple.notificationBody(
                Base64URL.encode(Array(#"{"alg":"none","kid":"apple-1"}"#.utf8)) + "." + parts[1] + ".")),
            ("alg none, signature kept", FakeApple.notificationBody(
                Base64URL.encode(Array(#"{"alg":"none","kid":"apple-1"}"#.utf8)) + "." + parts[1] + "." + parts[2])),
            ("HS256 keyed with the key set", FakeApple.notificationBody(hs256)),
            ("ES256 header on an RSA key", FakeApple.notificationBody(try minted(header: [("alg", "ES256")]))),
            ("no jti", FakeApple.notificationBody(try minted([("jti", .null)]))),
            ("jti a number", FakeApple.notificationBody(try minted([("jti", 12345)]))),
            ("expired exp", FakeApple.notificationBody(try minted([
                ("iat", .number(Double(now - 3 * 86_400))), ("exp", .number(Double(now - 2 * 86_400))),
            ]))),
            ("iat in the future", FakeApple.notificationBody(try minted([("iat", .number(Double(now + 3600)))]))),
            ("no events", FakeApple.notificationBody(try minted([("events", .null)]))),
            ("events a number", FakeApple.notificationBody(try minted([("events", 7)]))),
            ("events a string of garbage", FakeApple.notificationBody(try minted([("events", "{not json")]))),
            ("event without sub", FakeApple.notificationBody(try minted(eventOverrides: [("sub", .null)]))),
            ("event_time a string", FakeApple.notificationBody(try minted(eventOverrides: [("event_time", "yesterday")]))),
            ("unknown kid", FakeApple.notificationBody(try minted(key: stranger))),
            ("not JSON", "payload=\(good)"),
            ("payload not a string", JSONValue.object([("payload", .object([("jwt", .string(good))]))]).serialized),
            ("payload missing", #"{"token":"x"}"#),
            ("a JSON array", "[\"\(good)\"]"),
            ("not a JWT", FakeApple.notificationBody("not.a.jwt")),
            ("a sign-in token, no events", FakeApple.notificationBody(
                try p.apple.token(sub: "apple-refused-1", rawNonce: "n", now: now))),
        ]
        let before = try p.snapshot()
        for (name, body) in cases {
            let answer = try p.notify(body: body)
            #expect(answer.status == 400, "\(name): \(answer.rawBody) \(answer.stderr)")
            #expect(answer.errorCode == "invalid_token", "\(name)")
            #expect(answer.exitStatus == 0, "\(name)")
            #expect(try p.snapshot() == before, "\(name) changed the store")
        }
        // The unknown kid made one refetch of Apple's keys (the first fetch, then one more), not one a case.
        #expect(p.apple.keyFetches <= 3, "\(p.apple.keyFetches)")
        // The genuine one still works after them all.
        #expect(try p.notify(good).status == 200)
    }

    /// An unknown `kid` refetches Apple's keys once: a key Apple just began to use is accepted.
    @Test func aNewKeyIsFetchedOnce() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-rotated-1")
        let fetched = p.apple.keyFetches
        let next = try TestKeys.rsa("apple-2")
        p.apple.setKeys(p.apple.keys + [next])
        let answer = try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-rotated-1", key: next))
        #expect(answer.status == 200, "\(answer.stderr)")
        #expect(p.apple.keyFetches == fetched + 1)
        #expect(try p.sessions(of: me.accountId) == 0)
        // A second unknown kid within the minute is refused without a fetch.
        let unknown = try TestKeys.rsa("apple-3")
        let refused = try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-rotated-1", key: unknown))
        #expect(refused.status == 400)
        #expect(p.apple.keyFetches == fetched + 1)
    }

    /// A body past 16 KiB: 413, drained, nothing read.
    @Test func aBodyTooLargeIs413() throws {
        let p = try ProviderEventsWorld()
        let body = #"{"payload":""# + String(repeating: "a", count: 17 * 1024) + #""}"#
        let answer = try p.notify(body: body)
        #expect(answer.status == 413)
        #expect(try p.h.count("provider_events") == 0)
        let get = try p.h.run("apple-notify", body: [], method: "GET", contentType: nil)
        #expect(get.status == 405)
    }

    /// The same `jti` twice acts once; a repeat answers 200 and is counted.
    @Test func aRepeatActsOnce() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-repeat-1")
        let token = try p.apple.notificationToken(
            type: "consent-revoked", sub: "apple-repeat-1", eventTime: .number(Double(Clock.now() + 5) * 1000))
        #expect(try p.notify(token).status == 200)
        #expect(try p.sessions(of: me.accountId) == 0)
        // Signed in again after the event: the repeat of the same notification leaves this one alone,
        // even though its time is later than the new session's (it acted already).
        let again = try p.appleSignedIn("apple-repeat-1")
        let repeated = try p.notify(token)
        #expect(repeated.status == 200)
        #expect(repeated.stderr.contains("outcome=repeat"))
        #expect(try p.h.check(again.bearer).status == 200)
        let rows = try p.rows()
        #expect(rows.count == 1 && rows.first?.hasSuffix(" applied 1") == true, "\(rows)")
    }

    /// Rule 16: an event ends only sessions made before its time; one older than a new sign-in
    /// leaves that session alone, a newer one ends it.
    @Test func anEventOlderThanANewSignInLeavesThatSession() throws {
        let p = try ProviderEventsWorld()
        let old = try p.appleSignedIn("apple-late-1")
        try p.h.age(old.sessionId, by: 600)
        let fresh = try p.appleSignedIn("apple-late-1")
        // Apple delivers, late, a revocation from five minutes ago (in milliseconds, as on the wire).
        let late = try p.apple.notificationToken(
            type: "consent-revoked", sub: "apple-late-1", eventTime: .number(Double(Clock.now() - 300) * 1000 + 999))
        #expect(try p.notify(late).status == 200)
        #expect(try p.h.check(old.bearer).status == 401)
        #expect(try p.h.check(fresh.bearer).status == 200)
        // A newer one, in seconds, ends the fresh session too.
        #expect(try p.notify(try p.apple.notificationToken(
            type: "consent-revoked", sub: "apple-late-1", eventTime: .number(Double(Clock.now()))
        )).status == 200)
        #expect(try p.h.check(fresh.bearer).status == 401)
    }

    /// Unknown types and unknown `sub`s answer 200 (Apple would retry anything else) and change
    /// nothing but their row.
    @Test func unknownTypesAndPeopleAreRecordedOnly() throws {
        let p = try ProviderEventsWorld()
        let me = try p.appleSignedIn("apple-known-1")
        let before = try p.sessions(of: me.accountId)
        let unknownType = try p.apple.notificationToken(type: "account-renamed", sub: "apple-known-1", jti: "jti-type-1")
        let unknownSub = try p.apple.notificationToken(type: "consent-revoked", sub: "apple-nobody-1", jti: "jti-sub-1")
        #expect(try p.notify(unknownType).status == 200)
        #expect(try p.notify(unknownSub).status == 200)
        #expect(try p.sessions(of: me.accountId) == before)
        #expect(try p.outcome("apple", "jti-type-1") == "ignored")
        #expect(try p.outcome("apple", "jti-sub-1") == "no_account")
        #expect(try p.rows().contains("apple jti-type-1 other ignored 0"))
    }
}
