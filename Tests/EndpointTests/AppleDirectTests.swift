import DevSupport
import Shared
import Testing

/// Direct mode: Apple's token checked against Apple's own keys; no Firebase.
@Suite struct AppleDirectTests {
    func world() throws -> AppleWorld { try AppleWorld(mode: "direct", config: [("firebase", nil)]) }

    @Test func validTokenSignsInWithoutFirebase() throws {
        let w = try world()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-d1", rawNonce: nonce, email: "d1@example.org", emailVerified: true)
        let answer = try w.signIn(token, nonce: nonce, givenName: "Dee")
        #expect(answer.status == 200, "\(answer.stderr)")
        #expect(answer.body["created"] == true)
        #expect(answer.body["providers"] == .array(["apple"]))
        #expect(w.apple.keyFetches == 1)
        #expect(w.firebase.requests.isEmpty)
        #expect(try w.count("relay_cleanups") == 0)
        let again = try w.signIn(token, nonce: nonce)
        #expect(again.status == 401)
        #expect(again.stderr.contains("nonce already used"))
        let later = try w.signInNew(sub: "apple-d1")
        #expect(later.body["accountId"] == answer.body["accountId"])
        #expect(w.apple.keyFetches == 1)
    }

    /// Rule 21: in direct mode too, `apple.servicesIds` are accepted audiences beside the apps'.
    @Test func aTokenForAListedServicesIdSignsIn() throws {
        let w = try world()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-dweb", rawNonce: nonce, audience: AppleWorld.servicesId)
        let refused = try w.signIn(token, nonce: nonce)
        #expect(refused.status == 401 && refused.errorCode == "invalid_token")
        try w.writeConfig([("firebase", nil), w.appleSection(servicesIds: [AppleWorld.servicesId])])
        let answer = try w.signIn(token, nonce: nonce)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        let other = AppleWorld.nonce()
        let unlisted = try w.signIn(
            try w.apple.token(sub: "apple-dweb", rawNonce: other, audience: "com.example.someone.else"), nonce: other)
        #expect(unlisted.status == 401 && unlisted.errorCode == "invalid_token")
    }

    @Test func forgedTokensAreRefused() throws {
        let w = try world()
        let impostor = try SigningKey.rsa(kid: "apple-1")
        func claims(_ nonce: String) -> String {
            let now = Clock.now()
            return JSONValue.object([
                ("iss", .string(FakeApple.issuer)), ("aud", .string(FakeApple.bundleId)), ("sub", "apple-d2-evil"),
                ("iat", .number(Double(now))), ("exp", .number(Double(now + 600))),
                ("nonce", .string(FakeApple.nonceClaim(nonce))),
            ]).serialized
        }
        let forgeries: [(String, (String) throws -> String)] = [
            ("payload swapped", { nonce in
                var parts = try w.apple.token(sub: "apple-d2", rawNonce: nonce).split(separator: ".").map(String.init)
                parts[1] = Base64URL.encode(Array(claims(nonce).utf8))
                return parts.joined(separator: ".")
            }),
            ("a stranger's key under Apple's kid", { try w.apple.token(sub: "apple-d2", rawNonce: $0, key: impostor) }),
            ("an unknown kid", {
                try w.apple.token(sub: "apple-d2", rawNonce: $0, key: try TestKeys.rsa("apple-unknown"))
            }),
            ("alg none", { nonce in
                Base64URL.encode(Array(#"{"alg":"none","kid":"apple-1"}"#.utf8)) + "."
                    + Base64URL.encode(Array(claims(nonce).utf8)) + ".AAAA"
            }),
        ]
        for (name, forge) in forgeries {
            // A fresh nonce each time: every forgery is refused for itself, not as a replay.
            let nonce = AppleWorld.nonce()
            let answer = try w.signIn(try forge(nonce), nonce: nonce)
            #expect(answer.status == 401, "\(name)")
            #expect(answer.errorCode == "invalid_token", "\(name)")
        }
        #expect(try w.count("accounts") == 0)
    }

    @Test func claimAndNonceRulesMatchRelayMode() throws {
        let w = try world()
        let nonce = AppleWorld.nonce()
        let elsewhere = try w.apple.token(sub: "apple-d3", rawNonce: nonce, audience: "com.other.app")
        let other = try w.signIn(elsewhere, nonce: nonce)
        #expect(other.status == 401)
        let wrongNonce = try w.signIn(try w.apple.token(sub: "apple-d3", rawNonce: nonce), nonce: AppleWorld.nonce())
        #expect(wrongNonce.status == 401)
        #expect(w.apple.keyFetches == 0)
        let unverified = try w.signInNew(sub: "apple-d3", email: "d3@example.org", emailVerified: "false")
        #expect(unverified.status == 403)
        #expect(try w.count("accounts") == 0)
    }
}
