#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 23: Apple's keys in relay mode (the box may have no IPv4, Apple's key host has no IPv6),
/// the relay address's mail, and the echo of our own revocation.
@Suite struct AppleNotifyRelayTests {
    /// A relay-mode box that reaches Apple's keys fetches them directly (relay mode is also chosen
    /// to keep Apple's team key off a box with IPv4), even with `apple.keysProxy` set; the third
    /// review found every notification answered 503 there without a proxy.
    @Test func relayModeFetchesAppleKeysDirectlyWhenTheBoxReachesThem() throws {
        let p = try ProviderEventsWorld(mode: "relay")
        let me = try p.appleSignedIn("apple-direct-1")
        #expect(p.apple.keyFetches == 0, "a relay sign-in asks Firebase, not Apple")
        let answer = try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-direct-1"))
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(try p.sessions(of: me.accountId) == 0)
        #expect(p.apple.keyFetches == 1)
        // With a proxy as well: directly first, the proxy never asked.
        let proxy = try FakeHTTPProxy()
        try p.writeConfig(apple: [("keysProxy", .string(proxy.url))])
        try p.h.database().run("DELETE FROM key_sets")
        #expect(try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-direct-1")).status == 200)
        #expect(p.apple.keyFetches == 2)
        #expect(proxy.targets.isEmpty, "\(proxy.targets)")
    }

    /// A box that cannot reach Apple (its keys' host has no IPv6 address) goes through
    /// `apple.keysProxy`; once cached, the copy serves while the proxy is down.
    @Test func relayModeFetchesAppleKeysThroughTheProxyWhenTheBoxCannotReachThem() throws {
        let proxy = try FakeHTTPProxy()
        let p = try ProviderEventsWorld(mode: "relay")
        let route = try p.appleOutOfReach(through: proxy)
        try p.writeConfig(apple: route)
        let me = try p.appleSignedIn("apple-proxy-1")
        let answer = try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-proxy-1"))
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.stderr.contains("keys=proxy"), "\(answer.stderr)")
        #expect(try p.sessions(of: me.accountId) == 0)
        #expect(proxy.targets == ["GET \(route[0].1.stringValue ?? "")"], "\(proxy.targets)")
        #expect(p.apple.keyFetches == 1)
        // The proxy down and the keys cached: the cache serves, nothing more is fetched.
        proxy.setDown(true)
        #expect(try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-proxy-1")).status == 200)
        #expect(p.apple.keyFetches == 1)
    }

    /// Neither directly nor by a proxy, and no copy of the keys: 503 (Apple retries), and nothing
    /// acted on. With a copy (from an earlier proxy, say) the notification is checked against it.
    @Test func relayModeWithoutAWayToAppleAnswers503AndActsOnNothing() throws {
        let p = try ProviderEventsWorld(mode: "relay")
        let cutOff = try p.appleOutOfReach()
        try p.writeConfig(apple: cutOff)
        let me = try p.appleSignedIn("apple-cut-off-1")
        let token = try p.apple.notificationToken(type: "consent-revoked", sub: "apple-cut-off-1")
        let before = try p.snapshot()
        let answer = try p.notify(token)
        #expect(answer.status == 503, "\(answer.rawBody)")
        #expect(answer.errorCode == "upstream_unavailable")
        #expect(answer.stderr.contains("keys=unreachable: directly"), "\(answer.stderr)")
        #expect(p.apple.keyFetches == 0)
        #expect(try p.snapshot() == before)
        #expect(try p.sessions(of: me.accountId) == 1)

        // A copy of the keys (as a proxy left it).
        let proxy = try FakeHTTPProxy()
        proxy.reach(String((cutOff[0].1.stringValue ?? "").dropLast(FakeApple.keysPath.count)), at: p.apple.server?.baseURL ?? "")
        try p.writeConfig(apple: [cutOff[0], ("keysProxy", .string(proxy.url))])
        #expect(try p.notify(try p.apple.notificationToken(type: "account-renamed", sub: "apple-cut-off-1")).status == 200)
        try p.writeConfig(apple: cutOff)
        #expect(try p.notify(token).status == 200)
        #expect(try p.sessions(of: me.accountId) == 0)
        // A kid the copy lacks cannot be checked from here: 503, not a refusal.
        let next = try TestKeys.rsa("apple-relay-next")
        p.apple.setKeys(p.apple.keys + [next])
        let rotated = try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-cut-off-1", key: next))
        #expect(rotated.status == 503)
        // Once the copy is past its grace: 503 again.
        try p.h.database().run("UPDATE key_sets SET expires_at = 0")
        #expect(try p.notify(try p.apple.notificationToken(type: "consent-revoked", sub: "apple-cut-off-1")).status == 503)
        #expect(p.apple.keyFetches == 1)
    }

    /// `email-disabled` for the account's own relay address stops codes and resets to it, with
    /// every answer as it would be; `email-enabled` resumes them. Another address, or one that is
    /// not private, changes nothing.
    @Test func emailDisabledStopsMailToTheRelayAddressWithTheSameAnswers() throws {
        // A code a second per address, so the same address can be asked for again in the test.
        let p = try ProviderEventsWorld(config: [
            ("limits", .object([("mailIntervalSeconds", 1), ("mailPerEmailPerHour", 100)])),
        ])
        let relay = "x7q2k9@privaterelay.appleid.com"
        let control = "m3v8w1@privaterelay.appleid.com"
        let me = try p.appleSignedIn("apple-mail-1", email: relay)
        _ = try p.appleSignedIn("apple-mail-2", email: control)
        func reset(_ email: String) throws -> CGIAnswer { try p.h.verify([("action", "reset_request"), ("email", .string(email))]) }

        let ignored: [(String, JSONValue, String)] = [
            ("another-address", "true", "other@privaterelay.appleid.com"), ("not-private", "false", relay),
        ]
        for (name, isPrivate, email) in ignored {
            let token = try p.apple.notificationToken(
                type: "email-disabled", sub: "apple-mail-1", email: email, isPrivateEmail: isPrivate, jti: "jti-\(name)")
            #expect(try p.notify(token).status == 200)
            #expect(try p.outcome("apple", "jti-\(name)") == "ignored", "\(name)")
        }
        // `is_private_email` as a boolean, as some notifications carry it.
        let disabled = try p.apple.notificationToken(
            type: "email-disabled", sub: "apple-mail-1", email: relay, isPrivateEmail: true, jti: "jti-off")
        #expect(try p.notify(disabled).status == 200)
        #expect(try p.outcome("apple", "jti-off") == "applied")
        let normal = try reset(control)
        #expect(p.h.smtp.lastCode(to: control) != nil)
        let mailsBefore = p.h.smtp.messages.count
        let stopped = try reset(relay)
        #expect(p.h.smtp.messages.count == mailsBefore, "no mail to a relay address Apple no longer forwards")
        #expect(Self.same(stopped, normal), "\(stopped.rawBody) vs \(normal.rawBody)")
        #expect(try p.sessions(of: me.accountId) == 1, "mail stops, the person stays signed in")

        let enabled = try p.apple.notificationToken(
            type: "email-enabled", sub: "apple-mail-1", email: relay, isPrivateEmail: "true", jti: "jti-on")
        #expect(try p.notify(enabled).status == 200)
        p.h.limitsNow += 1  // the address's one-a-second mail window
        #expect(try reset(relay).status == 200)
        #expect(p.h.smtp.lastCode(to: relay) != nil)
    }

    /// No code either: a Google account that names the relay address (Google is not authoritative
    /// for it) asks to join by code; after `email-disabled` its ticket and its `send_code` answer
    /// are as for anyone, the code is stored, and nothing is mailed.
    @Test func emailDisabledStopsTheJoinCodeWithTheSameAnswers() throws {
        let p = try ProviderEventsWorld()
        let relay = "c4d8e2@privaterelay.appleid.com"
        let control = "f9a1b7@privaterelay.appleid.com"
        _ = try p.appleSignedIn("apple-code-1", email: relay)
        _ = try p.appleSignedIn("apple-code-2", email: control)
        let disabled = try p.apple.notificationToken(
            type: "email-disabled", sub: "apple-code-1", email: relay, isPrivateEmail: "true", jti: "jti-code-off")
        #expect(try p.notify(disabled).status == 200)
        #expect(try p.outcome("apple", "jti-code-off") == "applied")
        func sendCode(joining email: String, sub: String) throws -> (CGIAnswer, CGIAnswer) {
            let proof = try p.h.signInGoogle(try p.google.token(sub: sub, email: email))
            let ticket = try #require(proof.body["ticket"]?.stringValue, "\(proof.rawBody)")
            let body = JSONValue.object([("action", "send_code"), ("ticket", .string(ticket))]).serialized
            return (proof, try p.h.run(
                "verify-email", body: Array(body.utf8), extraEnvironment: ["FRONTDOOR_SYSLOG_FILE": p.syslogPath]))
        }
        let (controlProof, controlSent) = try sendCode(joining: control, sub: "g-code-2")
        #expect(controlSent.status == 200, "\(controlSent.rawBody)")
        #expect(p.h.smtp.lastCode(to: control) != nil)
        let mails = p.h.smtp.messages.count
        let codes = try p.h.count("email_codes")
        let (proof, sent) = try sendCode(joining: relay, sub: "g-code-1")
        #expect(proof.status == 409 && proof.body["methods"] == controlProof.body["methods"], "\(proof.rawBody)")
        #expect(Self.same(sent, controlSent), "\(sent.rawBody) vs \(controlSent.rawBody)")
        #expect(p.h.smtp.messages.count == mails, "no code to a relay address Apple no longer forwards")
        #expect(try p.h.count("email_codes") == codes + 1, "the code is stored as for anyone")
        #expect(p.syslog.contains("code not mailed: the address is stopped by a provider's event"), "\(p.syslog)")
    }

    /// Two answers alike but for their random ticket and the minute their code expires.
    static func same(_ a: CGIAnswer, _ b: CGIAnswer) -> Bool {
        func masked(_ answer: CGIAnswer) -> String {
            var text = answer.rawBody
            for key in ["ticket", "codeExpiresAt"] {
                if let value = answer.body[key]?.stringValue { text = text.replacingAll(value, with: "<\(key)>") }
            }
            return "\(answer.status) \(answer.headers.map { "\($0.0): \($0.1)" }) \(text)"
        }
        return masked(a) == masked(b)
    }

    /// Our revocation at a deletion makes Apple send `consent-revoked` for a `sub` we no longer
    /// have: it is recorded as Apple's confirmation (outcome `echo`), and the revocation row drops
    /// the `sub`'s HMAC it kept for this.
    @Test func theEchoOfOurOwnRevocationIsRecordedAsConfirmation() throws {
        let d = try DeletionWorld(mode: "direct")
        let (session, accountId) = try d.appleAccount("apple-echo-1")
        let fresh = try d.freshBody(sub: "apple-echo-1")
        let deleted = try d.delete(session, body: fresh.body)
        #expect(deleted.body["appleRevocation"] == "scheduled", "\(deleted.stderr)")
        #expect(try d.revocationRow().state == "revoked")
        let kept = try d.h.database().query("SELECT subject_hash IS NOT NULL, confirmed_at FROM apple_revocations")
        #expect(kept.first?.int(0) == 1 && kept.first?.int(1) == nil)

        let echo = try d.apple.notificationToken(type: "consent-revoked", sub: "apple-echo-1", jti: "jti-echo")
        let answer = try d.h.run("apple-notify", body: Array(FakeApple.notificationBody(echo).utf8))
        #expect(answer.status == 200, "\(answer.stderr)")
        #expect(try ProviderEventsWorld.rows(d.h) == ["apple jti-echo consent-revoked echo 0"])
        let confirmed = try d.h.database().query("SELECT subject_hash IS NULL, confirmed_at FROM apple_revocations")
        #expect(confirmed.first?.int(0) == 1 && confirmed.first?.int(1) != nil)
        #expect(try !d.h.holds(accountId))
        // Nothing that names the person is in the row: no sub, no email.
        #expect(!d.storeBytes().contains("apple-echo-1"))
        // A second consent-revoked for that sub has nothing left to confirm.
        let again = try d.apple.notificationToken(type: "consent-revoked", sub: "apple-echo-1", jti: "jti-echo-2")
        _ = try d.h.run("apple-notify", body: Array(FakeApple.notificationBody(again).utf8))
        #expect(try ProviderEventsWorld.rows(d.h).last == "apple jti-echo-2 consent-revoked no_account 0")
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
