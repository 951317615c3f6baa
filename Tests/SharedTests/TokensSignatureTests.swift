import DevSupport
import Shared
import Testing

@Suite struct TokensSignatureTests {
    typealias F = TokenFixtures

    @Test func acceptsValidRS256() throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        let verified = try F.verify(token, keys: F.keySet([try F.ec.get(), key]))
        #expect(verified.subject == "110169484474386276334")
        #expect(verified.issuer == F.issuer)
        #expect(verified.issuedAt == F.now - 10)
        #expect(verified.expiresAt == F.now + 3590)
        #expect(verified.email == "someone@example.com")
        #expect(verified.emailVerified)
        #expect(verified.header["alg"] == "RS256")
        #expect(verified.claims["sub"] == "110169484474386276334")
    }

    @Test func acceptsValidES256() throws {
        let key = try F.ec.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        let verified = try F.verify(token, keys: F.keySet([try F.rsa.get(), key]))
        #expect(verified.subject == "110169484474386276334")
        #expect(verified.header["alg"] == "ES256")
    }

    @Test(arguments: ["RS256", "ES256"])
    func refusesForgedSignature(alg: String) throws {
        let key = alg == "RS256" ? try F.rsa.get() : try F.ec.get()
        let keys = try F.keySet([key])
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        var signature = try #require(Base64URL.decode(String(token.split(separator: ".")[2])))
        signature[signature.count / 2] ^= 0x01
        let forged = F.replacingPart(token, 2, with: Base64URL.encode(signature))
        #expect(throws: TokenError.badSignature) { try F.verify(forged, keys: keys) }

        // Someone else's subject under the original signature.
        let other = F.replacingPart(token, 1, with: F.b64(JSONValue.object(F.claims([("sub", "victim")])).serialized))
        #expect(throws: TokenError.badSignature) { try F.verify(other, keys: keys) }

        // Signed by a key of the right type that is not in the set, under a kid that is.
        let stranger = alg == "RS256" ? try F.rsa2.get() : try SigningKey.p256(kid: "stranger")
        let impostor = try JWTMinter.mint(claims: F.claims(), key: stranger, header: [("kid", .string(key.kid))])
        #expect(throws: TokenError.badSignature) { try F.verify(impostor, keys: keys) }
    }

    @Test func refusesUnknownKid() throws {
        let token = try JWTMinter.mint(claims: F.claims(), key: F.rsa.get(), header: [("kid", "rotated-away")])
        #expect(throws: TokenError.unknownKeyID("rotated-away")) { try F.verify(token, keys: F.keySet([F.rsa.get()])) }
    }

    @Test func refusesTokenWithoutKid() throws {
        // Signed by a key of the set, yet refused: Google, Apple and Firebase always name their key.
        let key = try F.rsa2.get()
        let claims = JSONValue.object(F.claims()).serialized
        let token = try JWTMinter.mint(rawHeader: #"{"alg":"RS256"}"#, rawClaims: claims, key: key)
        let keys = try F.keySet([F.ec.get(), F.rsa.get(), key])
        #expect(throws: TokenError.missingKeyID) { try F.verify(token, keys: keys) }
        #expect(TokenError.missingKeyID.frontdoorError.detail == "token header has no kid")
        // The same token naming its key passes: the kid alone made the difference.
        let named = try JWTMinter.mint(rawHeader: #"{"alg":"RS256","kid":"\#(key.kid)"}"#, rawClaims: claims, key: key)
        #expect(try F.verify(named, keys: keys).subject == "110169484474386276334")
    }

    @Test(arguments: ["none", "NONE", "None", "HS256", "HS384", "HS512", "PS256", "PS384", "RS384", "RS512", "ES384",
                      "ES512", "EdDSA", "rs256", "RS256 ", ""])
    func refusesAlgorithmsOutsideAllowList(alg: String) throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key, header: [("alg", .string(alg))])
        #expect(throws: TokenError.unsupportedAlgorithm(alg)) { try F.verify(token, keys: F.keySet([key])) }
    }

    @Test func refusesUnsignedAlgNone() throws {
        let header = F.b64(#"{"alg":"none"}"#)
        let claims = F.b64(JSONValue.object(F.claims()).serialized)
        let keys = try F.keySet([F.rsa.get()])
        #expect(throws: TokenError.malformed("empty signature")) { try F.verify("\(header).\(claims).", keys: keys) }
        #expect(throws: TokenError.unsupportedAlgorithm("none")) { try F.verify("\(header).\(claims).AA", keys: keys) }
    }

    @Test func refusesMissingOrNonStringAlg() throws {
        let key = try F.rsa.get()
        let claims = JSONValue.object(F.claims()).serialized
        let missing = try JWTMinter.mint(rawHeader: #"{"kid":"rsa-1"}"#, rawClaims: claims, key: key)
        #expect(throws: TokenError.malformed("header has no alg")) { try F.verify(missing, keys: F.keySet([key])) }
        let number = try JWTMinter.mint(rawHeader: #"{"alg":256,"kid":"rsa-1"}"#, rawClaims: claims, key: key)
        #expect(throws: TokenError.malformed("header alg not a string")) { try F.verify(number, keys: F.keySet([key])) }
    }

    /// The classic key confusion: HS256 with the verifier's own public key as the HMAC secret.
    @Test func refusesHS256SignedWithThePublicKey() throws {
        let key = try F.rsa.get()
        let keys = try F.keySet([key])
        let header = #"{"alg":"HS256","kid":"rsa-1","typ":"JWT"}"#
        let claims = JSONValue.object(F.claims()).serialized
        let secrets: [[UInt8]] = [
            try key.publicKeyDER(), Array(key.publicJWK().serialized.utf8), Array(JWTMinter.jwks([key]).utf8),
        ]
        for secret in secrets {
            let token = try JWTMinter.mintHS256(rawHeader: header, rawClaims: claims, secret: secret)
            #expect(throws: TokenError.unsupportedAlgorithm("HS256")) { try F.verify(token, keys: keys) }
        }
    }

    @Test func refusesAlgAndKeyTypeMismatch() throws {
        let rsa = try F.rsa.get()
        let ec = try F.ec.get()
        let claims = JSONValue.object(F.claims()).serialized
        // RS256 naming the EC key, signed by an RSA key: the EC key cannot be used for RS256.
        let rsOnEC = try JWTMinter.mint(rawHeader: #"{"alg":"RS256","kid":"ec-1"}"#, rawClaims: claims, key: rsa)
        #expect(throws: TokenError.noUsableKey) { try F.verify(rsOnEC, keys: F.keySet([ec])) }
        // ES256 naming the RSA key, signed by an EC key.
        let esOnRSA = try JWTMinter.mint(rawHeader: #"{"alg":"ES256","kid":"rsa-1"}"#, rawClaims: claims, key: ec)
        #expect(throws: TokenError.noUsableKey) { try F.verify(esOnRSA, keys: F.keySet([rsa])) }
        // The JWK's own alg says RS256 but it is an EC key: still the key type decides.
        let lying = try F.keySet(jwks: [ec.publicJWK(extra: [("alg", "RS256")])])
        #expect(throws: TokenError.noUsableKey) { try F.verify(rsOnEC, keys: lying) }
    }

    @Test(arguments: [
        ("jku", JSONValue.string("https://attacker.example/jwks")), ("x5u", "https://attacker.example/cert"),
        ("x5c", .array(["MIIB"])), ("crit", .array(["exp"])), ("crit", .array([])), ("b64", false),
    ])
    func refusesForbiddenHeaders(name: String, value: JSONValue) throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key, header: [(name, value)])
        #expect(throws: TokenError.forbiddenHeader(name)) { try F.verify(token, keys: F.keySet([key])) }
    }

    @Test func refusesEmbeddedJWK() throws {
        // The attacker signs with their own key and ships its public half in the header.
        let attacker = try SigningKey.rsa(kid: "rsa-1")
        let token = try JWTMinter.mint(claims: F.claims(), key: attacker, header: [("jwk", attacker.publicJWK())])
        #expect(throws: TokenError.forbiddenHeader("jwk")) { try F.verify(token, keys: F.keySet([F.rsa.get()])) }
    }

    @Test func refusesNonStringKid() throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key, header: [("kid", 1)])
        #expect(throws: TokenError.malformed("header kid not a string")) { try F.verify(token, keys: F.keySet([key])) }
    }

    @Test func refusesDuplicateMemberNames() throws {
        let key = try F.rsa.get()
        let keys = try F.keySet([key])
        let claims = JSONValue.object(F.claims()).serialized
        let duplicateSub = String(claims.dropLast()) + #","sub":"someone-else"}"#
        let token = try JWTMinter.mint(rawHeader: #"{"alg":"RS256","kid":"rsa-1"}"#, rawClaims: duplicateSub, key: key)
        #expect(throws: TokenError.malformed("claims have a duplicate member")) { try F.verify(token, keys: keys) }
        let duplicateAlg = try JWTMinter.mint(
            rawHeader: #"{"alg":"RS256","kid":"rsa-1","alg":"none"}"#, rawClaims: claims, key: key)
        #expect(throws: TokenError.malformed("header has a duplicate member")) {
            try F.verify(duplicateAlg, keys: keys)
        }
    }

    @Test func honoursJWKUse() throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        #expect(throws: TokenError.noUsableKey) {
            try F.verify(token, keys: F.keySet(jwks: [key.publicJWK(extra: [("use", "enc")])]))
        }
    }

    @Test func honoursJWKKeyOps() throws {
        let key = try F.ec.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        #expect(throws: TokenError.noUsableKey) {
            try F.verify(token, keys: F.keySet(jwks: [key.publicJWK(extra: [("key_ops", .array(["encrypt"]))])]))
        }
        #expect(throws: TokenError.noUsableKey) {
            try F.verify(token, keys: F.keySet(jwks: [key.publicJWK(extra: [("key_ops", .array([]))])]))
        }
        let verify = try F.keySet(jwks: [key.publicJWK(extra: [("key_ops", .array(["sign", "verify"]))])])
        #expect(try F.verify(token, keys: verify).subject == "110169484474386276334")
    }

    @Test func honoursJWKAlg() throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        #expect(throws: TokenError.noUsableKey) {
            try F.verify(token, keys: F.keySet(jwks: [key.publicJWK(extra: [("alg", "RS512")])]))
        }
        #expect(throws: TokenError.noUsableKey) {
            try F.verify(token, keys: F.keySet(jwks: [key.publicJWK(extra: [("alg", "PS256")])]))
        }
    }

    @Test func keyWithoutUseOrAlgIsUsable() throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        let bare = JSONValue.object(key.publicJWK().objectValue?.filter { $0.0 != "use" && $0.0 != "alg" } ?? [])
        #expect(try F.verify(token, keys: F.keySet(jwks: [bare])).subject == "110169484474386276334")
    }

    @Test func skippedKeyGivesNoUsableKey() throws {
        let small = try SigningKey.rsa(bits: 1024, kid: "small")
        let keys = try F.keySet([small, F.rsa.get()])
        #expect(keys.keys.count == 1)
        #expect(keys.skippedKeyIDs == ["small"])
        let token = try JWTMinter.mint(claims: F.claims(), key: small)
        #expect(throws: TokenError.noUsableKey) { try F.verify(token, keys: keys) }
    }

    @Test(arguments: [
        "a.b.c.d.e", "a.b.c.d", "a.b", "abc", "", "..", "a..", ".b.c", "eyJhbGciOiJSUzI1NiJ9.e30.",
    ])
    func refusesWrongShape(token: String) throws {
        #expect(throws: TokenError.self) { try CompactJWS.parse(token) }
    }

    @Test func refusesFivePartToken() throws {
        let token = try JWTMinter.mint(claims: F.claims(), key: F.rsa.get())
        #expect(throws: TokenError.malformed("token has more than three parts")) {
            try F.verify(token + ".AAAA.AAAA", keys: F.keySet([F.rsa.get()]))
        }
    }

    @Test func refusesPaddingAndStrayCharacters() throws {
        let key = try F.rsa.get()
        let keys = try F.keySet([key])
        let token = try JWTMinter.mint(claims: F.claims([("x", "ab")]), key: key)
        let parts = token.split(separator: ".").map(String.init)
        for (i, part) in parts.enumerated() {
            for padded in [part + "=", part + "==", "=" + part] {
                #expect(throws: TokenError.self) { try F.verify(F.replacingPart(token, i, with: padded), keys: keys) }
            }
            #expect(throws: TokenError.self) { try F.verify(F.replacingPart(token, i, with: " " + part), keys: keys) }
            let standard = part.replacingAll("-", with: "+").replacingAll("_", with: "/")
            if standard != part {
                #expect(throws: TokenError.self) { try F.verify(F.replacingPart(token, i, with: standard), keys: keys) }
            }
        }
    }

    @Test func refusesHugeTokenFast() throws {
        let keys = try F.keySet([F.rsa.get()])
        let huge = "eyJhbGciOiJSUzI1NiJ9." + String(repeating: "A", count: 200 * 1024) + ".AAAA"
        // Refused by the size check, before any base64 or JSON work (the reason says which check).
        #expect(throws: TokenError.malformed("token over 16384 bytes")) { try F.verify(huge, keys: keys) }
    }

    @Test func refusesHeaderThatIsNotAnObject() throws {
        for header in [#"["alg","RS256"]"#, #""RS256""#, "null", "{", ""] {
            #expect(throws: TokenError.self) { try CompactJWS.parse(F.b64(header) + ".e30.AAAA") }
        }
    }

    @Test func refusesES256SignatureInOtherForms() throws {
        let key = try F.ec.get()
        let keys = try F.keySet([key])
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        let raw = try #require(Base64URL.decode(String(token.split(separator: ".")[2])))
        let derLike = [0x30, 0x44, 0x02, 0x20] + raw[0..<32] + [0x02, 0x20] + raw[32..<64]
        for bad in [derLike, raw + [0], [0] + raw, Array(raw.dropLast()), [UInt8](repeating: 0, count: 64),
                    [UInt8](repeating: 0, count: 32) + raw[32...], raw[0..<32] + [UInt8](repeating: 0, count: 32)] {
            let forged = F.replacingPart(token, 2, with: Base64URL.encode(bad))
            #expect(throws: TokenError.badSignature) { try F.verify(forged, keys: keys) }
        }
    }

    @Test func refusesRS256SignatureOfWrongLength() throws {
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        let raw = try #require(Base64URL.decode(String(token.split(separator: ".")[2])))
        for bad in [[0] + raw, raw + [0], Array(raw.dropFirst())] {
            let forged = F.replacingPart(token, 2, with: Base64URL.encode(bad))
            #expect(throws: TokenError.badSignature) { try F.verify(forged, keys: F.keySet([key])) }
        }
    }

    @Test func errorsBecomeInvalidTokenWithoutTheToken() throws {
        let token = try JWTMinter.mint(claims: F.claims(), key: F.rsa.get(), header: [("alg", "HS256\nforged log")])
        let keys = try F.keySet([F.rsa.get()])
        do throws(TokenError) {
            _ = try F.verify(token, keys: keys)
            Issue.record("accepted")
        } catch {
            let mapped = error.frontdoorError
            #expect(mapped.code == .invalidToken)
            #expect(mapped.status == 401)
            #expect(!(mapped.detail ?? "").contains("\n"))
            #expect(!(mapped.detail ?? "").contains(String(token.prefix(20))))
        }
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
