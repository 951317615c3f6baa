import DevSupport
import Shared
import Testing

@Suite struct TokensClaimsTests {
    typealias F = TokenFixtures

    private func check(_ overrides: [(String, JSONValue)] = [], removing: Set<String> = [],
                       policy: ClaimsPolicy = F.policy, now: UnixTime = F.now) throws(TokenError) -> CheckedClaims {
        try TokenVerifier.checkClaims(.object(F.claims(overrides, removing: removing)), policy: policy, now: now)
    }

    @Test func acceptsValidClaims() throws {
        let claims = try check()
        #expect(claims.subject == "110169484474386276334")
        #expect(claims.issuer == F.issuer)
        #expect(claims.audiences == [F.audience])
        #expect(claims.issuedAt == F.now - 10)
        #expect(claims.expiresAt == F.now + 3590)
        #expect(claims.notBefore == nil)
    }

    @Test func refusesExpired() throws {
        let iat: (String, JSONValue) = ("iat", .number(Double(F.now - 3600)))
        #expect(throws: TokenError.claim("exp: expired")) { try check([iat, ("exp", .number(Double(F.now - 61)))]) }
        #expect(throws: TokenError.claim("exp: expired")) { try check([iat, ("exp", .number(Double(F.now - 60)))]) }
        // Within the skew allowance.
        #expect(try check([iat, ("exp", .number(Double(F.now - 59)))]).expiresAt == F.now - 59)
        // Through the whole verifier, an hour later.
        let key = try F.rsa.get()
        let token = try JWTMinter.mint(claims: F.claims(), key: key)
        #expect(throws: TokenError.claim("exp: expired")) {
            try F.verify(token, keys: F.keySet([key]), now: F.now + 3600 + 60)
        }
    }

    @Test func refusesNotYetValid() throws {
        #expect(throws: TokenError.claim("nbf: not yet valid")) { try check([("nbf", .number(Double(F.now + 120)))]) }
        #expect(throws: TokenError.claim("iat: in the future")) {
            try check([("iat", .number(Double(F.now + 120))), ("exp", .number(Double(F.now + 3600)))])
        }
        #expect(try check([("nbf", .number(Double(F.now + 60)))]).notBefore == F.now + 60)
        #expect(try check([("iat", .number(Double(F.now + 60)))]).issuedAt == F.now + 60)
        #expect(throws: TokenError.claim("nbf")) { try check([("nbf", "soon")]) }
    }

    /// Apple's identity tokens live exactly a day; DESIGN.md rule 1 allows a day and a minute, so
    /// a second of an issuer's jitter passes and a minute more does not.
    @Test func refusesLifetimeOverADayAndAMinute() throws {
        let iat = Double(F.now - 10)
        #expect(throws: TokenError.claim("lifetime over the maximum")) {
            try check([("iat", .number(iat)), ("exp", .number(iat + 86_461))])
        }
        #expect(try check([("iat", .number(iat)), ("exp", .number(iat + 86_400))]).expiresAt == F.now + 86_390)
        #expect(try check([("iat", .number(iat)), ("exp", .number(iat + 86_401))]).expiresAt == F.now + 86_391)
        #expect(try check([("iat", .number(iat)), ("exp", .number(iat + 86_460))]).expiresAt == F.now + 86_450)
        #expect(throws: TokenError.claim("exp not after iat")) {
            try check([("iat", .number(iat)), ("exp", .number(iat))])
        }
    }

    @Test func flooringNumericDates() throws {
        let claims = try check([("iat", .number(Double(F.now) - 9.75)), ("exp", .number(Double(F.now) + 0.5))])
        #expect(claims.issuedAt == F.now - 10)
        #expect(claims.expiresAt == F.now)
    }

    @Test(arguments: ["exp", "iat"])
    func refusesMissingOrWrongTypedTimes(name: String) throws {
        #expect(throws: TokenError.claim("\(name) missing")) { try check(removing: [name]) }
        for bad: JSONValue in [.string("1800000000"), .bool(true), .null, .array([]), .number(-1), .number(1e300)] {
            #expect(throws: TokenError.claim(name)) { try check([(name, bad)]) }
        }
    }

    @Test func refusesWrongIssuer() throws {
        #expect(throws: TokenError.claim("iss")) { try check([("iss", "https://accounts.google.com.evil.example")]) }
        #expect(throws: TokenError.claim("iss")) { try check([("iss", "accounts.google.com")]) }
        #expect(throws: TokenError.claim("iss")) { try check(removing: ["iss"]) }
        #expect(throws: TokenError.claim("iss")) { try check([("iss", .array([.string(F.issuer)]))]) }
    }

    @Test func refusesAudienceOfAnotherApp() throws {
        #expect(throws: TokenError.claim("aud")) { try check([("aud", "someone-elses-client-id")]) }
        #expect(throws: TokenError.claim("aud")) { try check(removing: ["aud"]) }
        #expect(throws: TokenError.claim("aud")) { try check([("aud", 1)]) }
    }

    @Test func audienceArrays() throws {
        let ours = try check([("aud", .array([.string(F.audience), .string(F.otherAudience)]))])
        #expect(ours.audiences == [F.audience, F.otherAudience])
        #expect(try check([("aud", .array([.string(F.audience)]))]).audiences == [F.audience])
        #expect(throws: TokenError.claim("aud")) { try check([("aud", .array([.string(F.audience), "foreign"]))]) }
        #expect(throws: TokenError.claim("aud")) { try check([("aud", .array([]))]) }
        #expect(throws: TokenError.claim("aud")) { try check([("aud", .array([.string(F.audience), 1]))]) }
    }

    @Test func refusesMissingOrEmptySubject() throws {
        #expect(throws: TokenError.claim("sub")) { try check(removing: ["sub"]) }
        #expect(throws: TokenError.claim("sub")) { try check([("sub", "")]) }
        #expect(throws: TokenError.claim("sub")) { try check([("sub", 12345)]) }
        #expect(throws: TokenError.claim("sub")) { try check([("sub", .string(String(repeating: "x", count: 256)))]) }
    }

    @Test(arguments: [
        (JSONValue?.some(.bool(true)), true), (.some(.string("true")), true), (.some(.bool(false)), false),
        (.some(.string("false")), false), (nil, false),
    ])
    func readsEmailVerified(value: JSONValue?, expected: Bool) throws {
        let claims = try value.map { try check([("email_verified", $0)]) } ?? check(removing: ["email_verified"])
        #expect(claims.emailVerified == expected)
    }

    @Test(arguments: [JSONValue.number(1), .number(0), .string("TRUE"), .string("yes"), .string(""), .null, .array([])])
    func refusesOtherEmailVerified(value: JSONValue) throws {
        #expect(throws: TokenError.claim("email_verified")) { try check([("email_verified", value)]) }
    }

    @Test func readsEmail() throws {
        #expect(try check(removing: ["email"]).email == nil)
        #expect(try check().email == "someone@example.com")
        #expect(throws: TokenError.claim("email")) { try check([("email", 1)]) }
    }

    @Test func refusesClaimsThatAreNotAnObject() throws {
        #expect(throws: TokenError.malformed("claims not an object")) {
            try TokenVerifier.checkClaims(.array([]), policy: F.policy, now: F.now)
        }
        let key = try F.rsa.get()
        for payload in ["[]", "", "\"sub\"", "{"] {
            let token = try JWTMinter.mint(rawHeader: #"{"alg":"RS256","kid":"rsa-1"}"#, rawClaims: payload, key: key)
            #expect(throws: TokenError.self) { try F.verify(token, keys: F.keySet([key])) }
        }
    }

    @Test func extremeSkewDoesNotTrap() throws {
        var policy = F.policy
        policy.clockSkew = .max
        #expect(try check(policy: policy).subject == "110169484474386276334")
        policy.clockSkew = .min
        #expect(throws: TokenError.self) { try check(policy: policy) }
    }
}
