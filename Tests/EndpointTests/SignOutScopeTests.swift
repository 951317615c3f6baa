import DevSupport
import Shared
import Testing

/// `sign-out`'s scopes: the current session (the default), my others, all of mine, or one of mine
/// by its id; every answer says how many live sessions ended.
@Suite struct SignOutScopeTests {
    func signOut(_ h: Harness, _ bearer: String?, _ json: String?) throws -> CGIAnswer {
        guard let json else { return try h.run("sign-out", body: [], contentType: nil, authorization: bearer) }
        return try h.run("sign-out", json: json, authorization: bearer)
    }

    /// Three sessions of one person, one of somebody else.
    func world() throws -> (Harness, [SignedIn], SignedIn) {
        let h = try Harness()
        let mine = try (0..<3).map { _ in try h.signedIn("g-me") }
        return (h, mine, try h.signedIn("g-other"))
    }

    func live(_ h: Harness, _ people: [SignedIn]) throws -> [Bool] {
        try people.map { try h.check($0.bearer).status == 200 }
    }

    @Test(arguments: [nil, "{}", #"{"scope":"current"}"#, #"{"scope":null}"#])
    func theCurrentSessionByDefault(_ json: String?) throws {
        let (h, mine, other) = try world()
        let answer = try signOut(h, mine[0].bearer, json)
        #expect(answer.status == 200, "\(answer.rawBody)")
        #expect(answer.body == .object([("signedOut", true), ("ended", 1)]))
        #expect(try live(h, mine + [other]) == [false, true, true, true])
    }

    @Test func othersEndsEveryOtherSessionOfMine() throws {
        let (h, mine, other) = try world()
        let answer = try signOut(h, mine[0].bearer, #"{"scope":"others"}"#)
        #expect(answer.body == .object([("signedOut", true), ("ended", 2)]))
        #expect(try live(h, mine + [other]) == [true, false, false, true])
        #expect(try signOut(h, mine[0].bearer, #"{"scope":"others"}"#).body["ended"] == 0)
    }

    @Test func allEndsEverySessionOfMineAndCountsOnlyLiveOnes() throws {
        let (h, mine, other) = try world()
        let expired = try h.signedIn("g-me")
        try h.database().run("UPDATE sessions SET expires_at = ? WHERE session_id = ?",
                             [.integer(Clock.now() - 1), .text(expired.sessionId)])
        let answer = try signOut(h, mine[1].bearer, #"{"scope":"all"}"#)
        #expect(answer.body == .object([("signedOut", true), ("ended", 3)]))
        #expect(try live(h, mine + [other]) == [false, false, false, true])
        #expect(try signOut(h, mine[1].bearer, #"{"scope":"all"}"#).status == 401)
    }

    @Test func oneOfMineByItsId() throws {
        let (h, mine, other) = try world()
        let answer = try signOut(h, mine[0].bearer, #"{"sessionId":"\#(mine[2].sessionId)"}"#)
        #expect(answer.body == .object([("signedOut", true), ("ended", 1)]))
        #expect(try live(h, mine + [other]) == [true, true, false, true])
        // Its own id ends the session it is called with.
        #expect(try signOut(h, mine[1].bearer, #"{"sessionId":"\#(mine[1].sessionId)"}"#).body["ended"] == 1)
        #expect(try live(h, mine + [other]) == [true, false, false, true])
    }

    @Test func anotherAccountsOrAnUnknownIdIs404AndEndsNothing() throws {
        let (h, mine, other) = try world()
        let gone = mine[2].sessionId
        #expect(try signOut(h, mine[2].bearer, nil).status == 200)
        let before = try h.sessionRows()
        for id in [other.sessionId, gone, "0123456789abcdef0123456789abcdef", "x", String(repeating: "f", count: 128)] {
            let answer = try signOut(h, mine[0].bearer, #"{"sessionId":"\#(id)"}"#)
            #expect(answer.status == 404, "\(id): \(answer.rawBody)")
            #expect(answer.errorCode == "not_found")
        }
        #expect(try h.sessionRows() == before)
        #expect(try live(h, mine + [other]) == [true, true, false, true])
    }

    @Test func badInputIsA4xxAndEndsNothing() throws {
        let (h, mine, other) = try world()
        let before = try h.sessionRows()
        let cases: [(String, String, Int)] = [
            (#"{"scope":"everything"}"#, "invalid_request", 400),
            (#"{"scope":"ALL"}"#, "invalid_request", 400),
            (#"{"scope":5}"#, "invalid_request", 400),
            (#"{"scope":"all","sessionId":"\#(mine[1].sessionId)"}"#, "invalid_request", 400),
            (#"{"sessionId":""}"#, "invalid_request", 400),
            (#"{"sessionId":7}"#, "invalid_request", 400),
            (#"{"sessionId":"\#(String(repeating: "a", count: 129))"}"#, "invalid_request", 400),
            ("[]", "invalid_request", 400),
            ("{", "invalid_request", 400),
        ]
        for (json, code, status) in cases {
            let answer = try signOut(h, mine[0].bearer, json)
            #expect(answer.status == status && answer.errorCode == code, "\(json): \(answer.rawBody)")
        }
        let text = try h.run("sign-out", body: Array(#"{"scope":"all"}"#.utf8), contentType: "text/plain",
                             authorization: mine[0].bearer)
        #expect(text.status == 415)
        let near = String(other.bearer.dropLast(2)) + (other.bearer.hasSuffix("AA") ? "BA" : "AA")
        for bearer in [nil, "Bearer nope", near] {
            #expect(try signOut(h, bearer, #"{"scope":"all"}"#).status == 401)
        }
        #expect(try h.sessionRows() == before)
    }
}
