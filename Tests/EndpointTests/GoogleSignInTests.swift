import DevSupport
import Shared
import Testing

@Suite struct GoogleSignInTests {
    @Test func newPersonGetsAnAccountAndSession() throws {
        let h = try Harness()
        let answer = try h.signInGoogle(try h.google.token(sub: "g-1", email: "Ada.Lovelace@gmail.com"))
        #expect(answer.status == 200)
        #expect(answer.header("Cache-Control") == "no-store")
        #expect(answer.body["created"] == true)
        #expect(answer.body["email"]?.stringValue == "Ada.Lovelace@gmail.com")
        #expect(answer.body["providers"] == .array(["google"]))
        let token = try #require(answer.body["sessionToken"]?.stringValue)
        #expect(token.utf8.count == 43)
        let expires = try #require(answer.body["sessionExpiresAt"]?.stringValue)
        #expect(expires.hasSuffix("Z") && expires.count == 20)
        // Only the token's hash is stored.
        let stored = try h.database().query("SELECT token_hash FROM sessions")
        #expect(stored.count == 1)
        #expect(stored.first?.blob(0) == SHA256.hash(Array(token.utf8)))
        #expect(answer.stderr.contains("endpoint=signin-google status=200"))
        #expect(!answer.stderr.contains("Ada"))
    }

    @Test func sameSubjectSignsIntoTheSameAccount() throws {
        let h = try Harness()
        let first = try h.signInGoogle(try h.google.token(sub: "g-2", email: "grace@gmail.com"))
        // A later email change at Google does not move or change the account.
        let second = try h.signInGoogle(try h.google.token(sub: "g-2", email: "grace.new@gmail.com"))
        #expect(first.status == 200 && second.status == 200)
        #expect(second.body["created"] == false)
        #expect(second.body["accountId"] == first.body["accountId"])
        #expect(second.body["email"]?.stringValue == "grace@gmail.com")
        #expect(second.body["sessionToken"] != first.body["sessionToken"])
        #expect(try h.count("accounts") == 1)
        #expect(try h.count("sessions") == 2)
    }

    @Test func tokenWithoutEmailMakesAnAccountWithoutEmail() throws {
        let h = try Harness()
        let answer = try h.signInGoogle(try h.google.token(sub: "g-noemail"))
        #expect(answer.status == 200)
        #expect(answer.body["email"] == .null)
    }

    @Test func forgedSignatureIsRefused() throws {
        let h = try Harness()
        let token = try h.google.token(sub: "g-3", email: "x@gmail.com")
        var parts = token.split(separator: ".").map(String.init)
        let claims = #"{"iss":"https://accounts.google.com","aud":"\#(FakeGoogle.clientId)","sub":"g-3-evil","iat":\#(Clock.now()),"exp":\#(Clock.now() + 600)}"#
        parts[1] = Base64URL.encode(Array(claims.utf8))
        let answer = try h.signInGoogle(parts.joined(separator: "."))
        #expect(answer.status == 401)
        #expect(answer.errorCode == "invalid_token")
        #expect(try h.count("accounts") == 0)
    }

    @Test func tokenSignedByAnUnknownKeyIsRefused() throws {
        let h = try Harness()
        let stranger = try TestKeys.rsa("stranger")
        let answer = try h.signInGoogle(try h.google.token(sub: "g-4", email: "x@gmail.com", key: stranger))
        #expect(answer.status == 401)
        // The same kid again within the minute does not go back to Google.
        let fetches = h.google.certFetches
        _ = try h.signInGoogle(try h.google.token(sub: "g-4", email: "x@gmail.com", key: stranger))
        #expect(h.google.certFetches == fetches)
        // A stranger's key under a kid Google does publish fails its signature.
        let impostor = try SigningKey.rsa(kid: "rsa-1")
        let forged = try h.signInGoogle(try h.google.token(sub: "g-4", email: "x@gmail.com", key: impostor))
        #expect(forged.status == 401)
        #expect(try h.count("accounts") == 0)
    }

    @Test func algNoneAndHMACWithThePublicKeyAreRefused() throws {
        let h = try Harness()
        let now = Clock.now()
        let claims = #"{"iss":"https://accounts.google.com","aud":"\#(FakeGoogle.clientId)","sub":"g-5","iat":\#(now),"exp":\#(now + 600)}"#
        let payload = Base64URL.encode(Array(claims.utf8))
        for alg in ["none", "NONE", "None"] {
            let header = Base64URL.encode(Array(#"{"alg":"\#(alg)","kid":"rsa-1"}"#.utf8))
            for signature in ["", "AAAA"] {
                let answer = try h.signInGoogle("\(header).\(payload).\(signature)")
                #expect(answer.status == 401, "alg \(alg)")
            }
        }
        let key = try TestKeys.rsa()
        let der = try key.publicKeyDER()
        let pem = "-----BEGIN PUBLIC KEY-----\n" + Base64URL.encode(der) + "\n-----END PUBLIC KEY-----\n"
        for secret in [der, Array(pem.utf8)] {
            let hs256 = try JWTMinter.mintHS256(
                rawHeader: #"{"alg":"HS256","kid":"rsa-1","typ":"JWT"}"#, rawClaims: claims, secret: secret)
            #expect(try h.signInGoogle(hs256).status == 401)
        }
        #expect(try h.count("accounts") == 0)
    }

    @Test func wrongKidIsRefused() throws {
        let h = try Harness()
        let key = try TestKeys.rsa()
        let token = try JWTMinter.mint(
            claims: [
                ("iss", .string(FakeGoogle.issuer)), ("aud", .string(FakeGoogle.clientId)), ("sub", "g-6"),
                ("iat", .number(Double(Clock.now()))), ("exp", .number(Double(Clock.now() + 600))),
            ], key: key, header: [("kid", "no-such-kid")])
        let answer = try h.signInGoogle(token)
        #expect(answer.status == 401)
        #expect(answer.errorCode == "invalid_token")
    }

    @Test(arguments: [
        ("expired", [("iat", JSONValue.number(Double(Clock.now() - 7200))), ("exp", .number(Double(Clock.now() - 3600)))]),
        ("not yet valid", [("nbf", JSONValue.number(Double(Clock.now() + 3600)))]),
        ("issued in the future", [("iat", JSONValue.number(Double(Clock.now() + 3600))), ("exp", .number(Double(Clock.now() + 7200)))]),
        ("lives over a day", [("exp", JSONValue.number(Double(Clock.now() + 90_000)))]),
        ("wrong issuer", [("iss", JSONValue.string("https://evil.example.com"))]),
        ("another app", [("aud", JSONValue.string("another-app.apps.googleusercontent.com"))]),
        ("aud array with a stranger", [("aud", JSONValue.array([.string(FakeGoogle.clientId), "another-app"]))]),
        ("empty sub", [("sub", JSONValue.string(""))]),
        ("no exp", [("exp", JSONValue.null)]),
    ] as [(String, [(String, JSONValue)])])
    func claimsOutsideTheRulesAreRefused(_ name: String, overrides: [(String, JSONValue)]) throws {
        let h = try Harness()
        let answer = try h.signInGoogle(try h.google.token(sub: "g-7", email: "x@gmail.com", overrides: overrides))
        #expect(answer.status == 401, "\(name)")
        #expect(answer.errorCode == "invalid_token", "\(name)")
        #expect(try h.count("accounts") == 0)
    }

    @Test func audienceArrayOfOurOwnAppsIsAccepted() throws {
        let h = try Harness()
        let answer = try h.signInGoogle(
            try h.google.token(
                sub: "g-8", overrides: [("aud", .array([.string(FakeGoogle.clientId), "second-app.apps.googleusercontent.com"]))]))
        #expect(answer.status == 200)
    }

    @Test func unverifiedEmailIsRefusedAndWritesNothing() throws {
        let h = try Harness()
        for verified: JSONValue in [false, "false"] {
            let answer = try h.signInGoogle(try h.google.token(sub: "g-9", email: "new@gmail.com", emailVerified: verified))
            #expect(answer.status == 403)
            #expect(answer.errorCode == "email_not_verified")
        }
        #expect(try h.count("accounts") == 0)
        #expect(try h.count("identities") == 0)
        #expect(try h.count("sessions") == 0)
    }
}
