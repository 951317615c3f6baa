import DevSupport
import FuzzTargets
import Shared

/// The seed corpus for `make fuzz`: well-formed inputs of every shape the parsers know, plus the
/// classic attacks, so the fuzzer starts deep in the code rather than at the first byte check.
enum FuzzSeeds {
    struct Failure: Error {}

    static let now = 1_800_000_000.0

    static func claims(_ extra: [(String, JSONValue)] = []) -> String {
        var members: [(String, JSONValue)] = [
            ("iss", "https://accounts.google.com"), ("aud", "fuzz.apps.googleusercontent.com"),
            ("sub", "110169484474386276334"), ("iat", .number(now - 10)), ("exp", .number(now + 3590)),
            ("email", "someone@example.com"), ("email_verified", true),
        ]
        for (name, value) in extra {
            members.removeAll { $0.0 == name }
            members.append((name, value))
        }
        return JSONValue.object(members).serialized
    }

    static func jws() throws -> [(String, [UInt8])] {
        let rsa = try SigningKey.rsa(kid: "fuzz-rsa")
        let ec = try SigningKey.p256(kid: "fuzz-ec")
        func header(_ alg: String, _ kid: String, _ extra: String = "") -> String {
            #"{"alg":"\#(alg)","kid":"\#(kid)","typ":"JWT"\#(extra)}"#
        }
        let apple = claims([
            ("iss", "https://appleid.apple.com"), ("aud", "com.example.frontdoor"), ("nonce", "ab12"),
            ("email_verified", "true"), ("is_private_email", "false"),
        ])
        var tokens: [(String, String)] = [
            ("rs256", try JWTMinter.mint(rawHeader: header("RS256", "fuzz-rsa"), rawClaims: claims(), key: rsa)),
            ("es256", try JWTMinter.mint(rawHeader: header("ES256", "fuzz-ec"), rawClaims: claims(), key: ec)),
            ("apple", try JWTMinter.mint(rawHeader: header("RS256", "fuzz-rsa"), rawClaims: apple, key: rsa)),
            ("aud-array", try JWTMinter.mint(
                rawHeader: header("RS256", "fuzz-rsa"),
                rawClaims: claims([("aud", .array(["fuzz.apps.googleusercontent.com", "other"]))]), key: rsa)),
            ("nbf-fraction", try JWTMinter.mint(
                rawHeader: header("RS256", "fuzz-rsa"), rawClaims: claims([("nbf", .number(now - 0.5))]), key: rsa)),
            ("duplicate-claims", try JWTMinter.mint(
                rawHeader: header("RS256", "fuzz-rsa"), rawClaims: #"{"sub":"a","sub":"b"}"#, key: rsa)),
            ("crit", try JWTMinter.mint(
                rawHeader: header("RS256", "fuzz-rsa", #","crit":["exp"]"#), rawClaims: claims(), key: rsa)),
            ("jku", try JWTMinter.mint(
                rawHeader: header("RS256", "fuzz-rsa", #","jku":"https://evil.example/k""#), rawClaims: claims(),
                key: rsa)),
            ("hs256", try JWTMinter.mintHS256(
                rawHeader: header("HS256", "fuzz-rsa"), rawClaims: claims(), secret: Array("secret".utf8))),
        ]
        let b64 = { (text: String) in Base64URL.encode(Array(text.utf8)) }
        tokens.append(("alg-none", b64(#"{"alg":"none"}"#) + "." + b64(claims()) + "."))
        tokens.append(("five-parts", "eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d"))
        tokens.append(("escapes", b64(#"{"alg":"RS256","kid":"\u0066uzz-rsa\ud83d\ude00"}"#) + "." + b64("{}") + ".AA"))
        return tokens.map { ($0.0, Array($0.1.utf8)) }
    }

    /// Apple's notification bodies in the forms seen, and Google's SETs (issue 23).
    static func events() throws -> [(String, [UInt8])] {
        let rsa = try SigningKey.rsa(kid: "fuzz-rsa")
        let header = #"{"alg":"RS256","kid":"fuzz-rsa"}"#
        func apple(_ event: JSONValue, asString: Bool, exp: Bool = true) throws -> [UInt8] {
            var claims: [(String, JSONValue)] = [
                ("iss", "https://appleid.apple.com"), ("aud", "com.example.frontdoor"), ("iat", .number(now - 10)),
                ("jti", "a1b2c3d4e5f6"), ("events", asString ? .string(event.serialized) : event),
            ]
            if exp { claims.append(("exp", .number(now + 86_390))) }
            let token = try JWTMinter.mint(rawHeader: header, rawClaims: JSONValue.object(claims).serialized, key: rsa)
            return Array(JSONValue.object([("payload", .string(token))]).serialized.utf8)
        }
        func risc(_ events: [(String, JSONValue)], issuer: String = "https://accounts.google.com/") throws -> [UInt8] {
            let claims = JSONValue.object([
                ("iss", .string(issuer)), ("aud", "fuzz.apps.googleusercontent.com"), ("iat", .number(now - 10)),
                ("jti", "756E69717565206964656E746966696572"), ("events", .object(events)),
            ])
            return Array(try JWTMinter.mint(rawHeader: header, rawClaims: claims.serialized, key: rsa).utf8)
        }
        let subject = JSONValue.object([
            ("subject_type", "iss-sub"), ("iss", "https://accounts.google.com/"), ("sub", "7375626A656374"),
        ])
        let uri = "https://schemas.openid.net/secevent/risc/event-type/"
        let revoked = JSONValue.object([
            ("type", "consent-revoked"), ("sub", "820417.faa325acbc78e1be1668ba852d492d8a.0219"),
            ("event_time", 1_611_765_847_700),
        ])
        let disabled = JSONValue.object([
            ("type", "email-disabled"), ("sub", "820417.faa3"), ("email", "ep9ks2tnph@privaterelay.appleid.com"),
            ("is_private_email", "true"), ("event_time", 1_508_184_845),
        ])
        return [
            ("apple-string-ms", try apple(revoked, asString: true)),
            ("apple-object-s", try apple(disabled, asString: false, exp: false)),
            ("apple-delete", try apple(.object([("type", "account-delete"), ("sub", "820417.faa3"), ("event_time", 1)]), asString: true)),
            ("apple-bool-private", try apple(.object([
                ("type", "email-enabled"), ("sub", "s"), ("email", "x@privaterelay.appleid.com"), ("is_private_email", true),
            ]), asString: false)),
            ("risc-hijacking", try risc([(uri + "account-disabled", .object([("subject", subject), ("reason", "hijacking")]))])),
            ("risc-two", try risc([
                (uri + "sessions-revoked", .object([("subject", subject)])),
                ("https://schemas.openid.net/secevent/oauth/event-type/token-revoked", .object([("subject", .object([
                    ("subject_type", "oauth_token"), ("token_type", "refresh_token"), ("token_identifier_alg", "prefix"),
                    ("token", "1/abc"),
                ]))])),
            ], issuer: "https://accounts.google.com")),
            ("risc-verification", try risc([(uri + "verification", .object([("state", "frontdoor-check")]))])),
            ("events-string", Array(revoked.serialized.utf8)),
        ]
    }

    static func jwks() throws -> [(String, [UInt8])] {
        let rsa = try SigningKey.rsa(kid: "r1")
        let ec = try SigningKey.p256(kid: "e1")
        let restricted = JSONValue.object([
            ("keys", .array([
                rsa.publicJWK(extra: [("use", "enc")]), ec.publicJWK(extra: [("key_ops", .array(["verify"]))]),
                .object([("kty", "oct"), ("kid", "h1"), ("k", "c2VjcmV0")]),
            ])),
        ]).serialized
        let documents: [(String, String)] = [
            ("google.json", JWTMinter.jwks([rsa, ec])),
            ("fixed.json", fixedKeySet),
            ("restricted.json", restricted),
            ("empty.json", #"{"keys":[]}"#),
            ("small-rsa.json", #"{"keys":[{"kty":"RSA","kid":"s","n":"AQAB","e":"AQAB"}]}"#),
            ("ec-off-curve.json", #"{"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","kid":"o"}]}"#),
        ]
        return documents.map { ($0.0, Array($0.1.utf8)) }
    }

    /// Attestation objects, authenticator data and COSE keys from the software authenticator (for
    /// the target's challenge, RP ID and origin, so the checks after the client data are reached),
    /// two W3C vectors, and the hostile shapes of research/passkeys.md section 6.4.
    static func cbor() throws -> [(String, [UInt8])] {
        let es256 = try SoftwareAuthenticator(algorithm: .es256)
        let rs256 = try SoftwareAuthenticator(algorithm: .rs256)
        let challenge = FuzzTargets.passkeyChallenge
        func registration(_ a: SoftwareAuthenticator, _ spoil: SoftwareAuthenticator.Spoil = .init()) throws -> [UInt8] {
            try a.register(challenge: challenge, rpId: "example.org", origin: "https://example.org", spoil: spoil)
                .attestationObject
        }
        var extensions = SoftwareAuthenticator.Spoil()
        extensions.extensions = .map([(.text("credProtect"), .integer(2)), (.text("hmac-secret"), .bool(true))])
        var packed = SoftwareAuthenticator.Spoil()
        packed.format = "packed"
        packed.statement = .map([(.text("alg"), .integer(-7)), (.text("sig"), .bytes([0x30, 0x00])),
                                 (.text("x5c"), .array([.bytes([0x30, 0x82])]))])
        let assertion = try es256.assert(
            challenge: challenge, rpId: "example.org", origin: "https://example.org", userHandle: nil, spoil: extensions)
        let w3cNone = "a363666d74646e6f6e656761747453746d74a068617574684461746158a4bfabc37432958b063360d3ad6461c9c4735ae7"
            + "f8edd46592a5e0f01452b2e4b559000000008446ccb9ab1db374750b2367ff6f3a1f0020f91f391db4c9b2fde0ea70189cba3fb"
            + "63f579ba6122b33ad94ff3ec330084be4a5010203262001215820afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c3"
            + "3a9b672f26df61225820930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220"
        return [
            ("es256-registration", try registration(es256)),
            ("rs256-registration", try registration(rs256)),
            ("es256-extensions", try registration(es256, extensions)),
            ("packed", try registration(es256, packed)),
            ("es256-assertion-data", assertion.authenticatorData),
            ("es256-cose-key", es256.coseKey()),
            ("rs256-cose-key", rs256.coseKey()),
            ("w3c-none-es256", PasskeyFixtures.hex(w3cNone)),
            ("tags", PasskeyFixtures.hex(String(repeating: "ca", count: 200) + "00")),
            ("indefinite", PasskeyFixtures.hex("bf63666d74646e6f6e65ff")),
            ("deep", PasskeyFixtures.hex(String(repeating: "81", count: 100) + "00")),
            ("huge-lengths", PasskeyFixtures.hex("a1636b65795bffffffffffffffff")),
            ("huge-count", PasskeyFixtures.hex("9bffffffffffffffff00")),
            ("duplicate-keys", PasskeyFixtures.hex("a2636b657901636b657902")),
            ("floats", PasskeyFixtures.hex("83f93c00fa3f800000fb3ff0000000000000")),
            ("non-shortest", PasskeyFixtures.hex("a3181801190001020340")),
        ]
    }

    /// A finish body as DESIGN.md gives it, with the software authenticator's `credential`.
    static func passkeyFinish(register: Bool) throws -> String {
        let authenticator = try SoftwareAuthenticator(algorithm: .es256)
        let credential = register
            ? SoftwareAuthenticator.json(
                try authenticator.register(challenge: FuzzTargets.passkeyChallenge, rpId: "example.org", origin: "https://example.org"))
            : SoftwareAuthenticator.json(
                try authenticator.assert(
                    challenge: FuzzTargets.passkeyChallenge, rpId: "example.org", origin: "https://example.org",
                    userHandle: [1, 2, 3, 4]))
        return JSONValue.object([
            ("action", .string(register ? "register_finish" : "finish")), ("ceremonyId", "Y2VyZW1vbnk"),
            ("credential", credential),
        ]).serialized
    }

    static func cgi() throws -> [(String, [UInt8])] {
        func request(_ env: [String], _ body: String) -> [UInt8] {
            Array((env.joined(separator: "\n") + "\n\n" + body).utf8)
        }
        let google = #"{"idToken":"eyJhbGciOiJSUzI1NiJ9.e30.AA"}"#
        let apple = #"{"identityToken":"a.b.c","rawNonce":"0123abcd","givenName":"Ada","familyName":"L"}"#
        let email = #"{"action":"register","email":"a@b.c","password":"pw","acceptAsTyped":true}"#
        let post = ["REQUEST_METHOD=POST", "CONTENT_TYPE=application/json"]
        let session = ["HTTP_AUTHORIZATION=Bearer c2Vzc2lvbi10b2tlbi1mb3ItZnV6emluZw"]
        // signin-email, verify-email and delete-account: every action and member they read.
        let bodies: [(String, String, [String])] = [
            ("email-login", #"{"action":"login","email":" Ada@Gmial.com ","password":"pässwörd \u0000"}"#, []),
            ("email-register-name", #"{"action":"register","email":"a+b@x.org","password":"p","name":"Ada"}"#, []),
            ("verify-send-code", #"{"action":"send_code","ticket":"dGlja2V0"}"#, []),
            ("verify-confirm-code", #"{"action":"confirm","ticket":"dGlja2V0","code":"012345"}"#, []),
            ("verify-confirm-password", #"{"action":"confirm","ticket":"dGlja2V0","password":"pw"}"#, []),
            ("verify-own-email", #"{"action":"verify_own_email"}"#, session),
            ("verify-reset-request", #"{"action":"reset_request","email":"a@b.c"}"#, []),
            ("verify-reset-confirm",
             #"{"action":"reset_confirm","ticket":"t","code":"123456","password":"new one"}"#, []),
            ("delete-fresh",
             #"{"appleAuthorizationCode":"c0de.0.abc","appleIdentityToken":"a.b.c","appleRawNonce":"n"}"#, session),
            ("delete-empty-strings",
             #"{"appleAuthorizationCode":"","appleIdentityToken":"","appleRawNonce":""}"#, session),
            ("google-device", #"{"idToken":"a.b.c","deviceName":"Ada\u2019s iPhone \u202e"}"#, []),
            ("account-update", #"{"action":"update","name":" Grace\tHopper "}"#, session),
            ("sign-out-scope", #"{"scope":"others"}"#, session),
            ("sign-out-session-id", #"{"sessionId":"0123456789abcdef0123456789abcdef","scope":null}"#, session),
            ("passkey-register-finish", try passkeyFinish(register: true), session),
            ("passkey-signin-finish", try passkeyFinish(register: false), []),
        ]
        let more = bodies.map { name, body, extra in
            (name, request(post + extra + ["CONTENT_LENGTH=\(body.utf8.count)"], body))
        }
        return more + [
            ("google", request(post + ["CONTENT_LENGTH=\(google.utf8.count)"], google)),
            ("apple", request(post + ["CONTENT_LENGTH=\(apple.utf8.count)"], apple)),
            ("email", request(post + ["CONTENT_LENGTH=\(email.utf8.count)"], email)),
            ("delete-no-body", request(["REQUEST_METHOD=POST", "CONTENT_LENGTH=0", "FUZZ_OPTIONAL=1"] + session, "")),
            ("sign-out", request(
                ["REQUEST_METHOD=POST", "CONTENT_LENGTH=0", "HTTP_AUTHORIZATION=Bearer abc", "FUZZ_OPTIONAL=1"], "")),
            ("charset", request(
                ["REQUEST_METHOD=POST", "CONTENT_TYPE=application/json; charset=utf-8", "CONTENT_LENGTH=2"], "{}")),
            ("short", request(post + ["CONTENT_LENGTH=99"], "{}")),
            ("oversized", request(post + ["CONTENT_LENGTH=99999"], "{}")),
            ("get", request(["REQUEST_METHOD=GET"], "")),
            // The session check as an auth_request subrequest reaches it: a length announced, no body.
            ("session-subrequest", request(["REQUEST_METHOD=PATCH", "CONTENT_LENGTH=500", "FUZZ_NO_BODY=1"] + session, "")),
            ("nested", request(post + ["CONTENT_LENGTH=40"], #"{"a":[1,-2.5e3,true,null,{"b":"\u00e9"}]}"#)),
        ]
    }
}
