import DevSupport
import Shared
import Testing

/// Rule 21: `signin-google`'s `rawNonce` (the token's `nonce` must be its lowercase hex SHA-256)
/// and `google.requireNonce`; callers that send no nonce keep working.
@Suite struct GoogleNonceTests {
    static let rawNonce = "Zk3v0S2bq8y5nR1tW4xC7uA9dE6fH0jL2mP5sV8"

    func signIn(_ h: Harness, token: String, rawNonce: String?) throws -> CGIAnswer {
        var members: [(String, JSONValue)] = [("idToken", .string(token))]
        if let rawNonce { members.append(("rawNonce", .string(rawNonce))) }
        return try h.run("signin-google", json: JSONValue.object(members).serialized)
    }

    func token(_ h: Harness, sub: String, nonce: JSONValue) throws -> String {
        try h.google.token(sub: sub, email: sub + "@gmail.com", overrides: [("nonce", nonce)])
    }

    @Test func aTokenCarryingTheHashOfTheRawNonceSignsIn() throws {
        let h = try Harness()
        let answer = try signIn(
            h, token: try token(h, sub: "n-1", nonce: .string(FakeApple.nonceClaim(Self.rawNonce))),
            rawNonce: Self.rawNonce)
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.body["created"] == true)
    }

    @Test func aNonceThatDoesNotMatchIsRefusedAndWritesNothing() throws {
        let h = try Harness()
        let raw = Array(Self.rawNonce.utf8)
        let cases: [(String, JSONValue)] = [
            ("another raw nonce's hash", .string(FakeApple.nonceClaim(Self.rawNonce + "x"))),
            ("the raw nonce itself", .string(Self.rawNonce)),
            ("upper-case hex", .string(FakeApple.nonceClaim(Self.rawNonce).uppercased())),
            ("base64 of the hash", .string(Base64URL.encode(SHA256.hash(raw)))),
            ("no nonce claim", .null),
            ("a number", .number(1)),
        ]
        for (i, (why, nonce)) in cases.enumerated() {
            let answer = try signIn(h, token: try token(h, sub: "n-bad-\(i)", nonce: nonce), rawNonce: Self.rawNonce)
            #expect(answer.status == 401, "\(why)")
            #expect(answer.errorCode == "invalid_token", "\(why)")
        }
        #expect(try h.count("accounts") == 0)
        #expect(try h.count("sessions") == 0)
    }

    @Test func withoutRawNonceTheTokenIsAcceptedAsBefore() throws {
        let h = try Harness()
        // An existing caller: it sends no rawNonce, whether or not its token has a nonce.
        let plain = try signIn(h, token: try h.google.token(sub: "n-old-1", email: "old1@gmail.com"), rawNonce: nil)
        let withNonce = try signIn(h, token: try token(h, sub: "n-old-2", nonce: "anything"), rawNonce: nil)
        // null is not sent, as a client that writes every member may send it.
        let null = try h.run("signin-google", json: JSONValue.object([
            ("idToken", .string(try token(h, sub: "n-old-3", nonce: .null))), ("rawNonce", .null),
        ]).serialized)
        #expect(plain.status == 200 && withNonce.status == 200 && null.status == 200, "\(null.rawBody)")
    }

    @Test func aShortOrMistypedRawNonceIsABadRequest() throws {
        let h = try Harness()
        let t = try token(h, sub: "n-short", nonce: .string(FakeApple.nonceClaim("short")))
        let short = try signIn(h, token: t, rawNonce: "short")
        #expect(short.status == 400 && short.errorCode == "invalid_request")
        let number = try h.run("signin-google", json: #"{"idToken":"\#(t)","rawNonce":12}"#)
        #expect(number.status == 400 && number.errorCode == "invalid_request")
        #expect(try h.count("accounts") == 0)
    }

    @Test func requireNonceRefusesATokenWhoseNonceCannotBeChecked() throws {
        let h = try Harness()
        try h.writeConfig([("google", .object([
            ("clientIds", .array([.string(FakeGoogle.clientId)])), ("certsUrl", .string(h.google.certsURL)),
            ("requireNonce", true),
        ]))])
        let hash = JSONValue.string(FakeApple.nonceClaim(Self.rawNonce))
        let noRawNonce = try signIn(h, token: try token(h, sub: "r-1", nonce: hash), rawNonce: nil)
        #expect(noRawNonce.status == 401 && noRawNonce.errorCode == "invalid_token")
        let noClaim = try signIn(h, token: try token(h, sub: "r-2", nonce: .null), rawNonce: Self.rawNonce)
        #expect(noClaim.status == 401 && noClaim.errorCode == "invalid_token")
        #expect(try h.count("accounts") == 0)
        let good = try signIn(h, token: try token(h, sub: "r-3", nonce: hash), rawNonce: Self.rawNonce)
        #expect(good.status == 200, "\(good.body)")
    }

    @Test func requireNonceIsABooleanInTheConfig() throws {
        let base = #"{"databasePath":"/tmp/x.sqlite3","google":{"clientIds":["a"],"requireNonce":"#
        #expect(try Config.parse(Array((base + #"true}}"#).utf8)).google?.requireNonce == true)
        #expect(try Config.parse(Array(#"{"databasePath":"/tmp/x.sqlite3","google":{"clientIds":["a"]}}"#.utf8))
            .google?.requireNonce == false)
        #expect(throws: ConfigError.self) { try Config.parse(Array((base + #""yes"}}"#).utf8)) }
    }
}
