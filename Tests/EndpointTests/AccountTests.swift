import DevSupport
import Shared
import Testing

/// `account`: the person's copy of what is stored about them, and their name.
@Suite(.serialized) struct AccountTests {
    static let accountMembers = [
        "accountId", "email", "emailVerified", "name", "createdAt", "hasPassword", "language", "providers", "sessions", "passkeys",
    ]
    static let sessionMembers = [
        "sessionId", "deviceName", "createdAt", "lastUsedAt", "expiresAt", "current", "signedInAt",
    ]

    func account(_ h: Harness, _ bearer: String?, _ members: [(String, JSONValue)] = [("action", "get")]) throws -> CGIAnswer {
        try h.run("account", json: JSONValue.object(members).serialized, authorization: bearer)
    }

    @Test func getAnswersEverythingStoredAndNoSecret() throws {
        let h = try Harness()
        // A typed address with a password, then Google joins it by the password: both kinds at once.
        let made = try h.signInEmail([
            ("action", "register"), ("email", "whole@gmail.com"), ("password", "the whole password"),
            ("name", "Ada Lovelace"), ("deviceName", "Ada's iPad"),
        ])
        let madeToken = try #require(made.body["sessionToken"]?.stringValue)
        let proof = try h.signInGoogle(try h.google.token(sub: "g-whole-subject", email: "whole@gmail.com"))
        let ticket = try #require(proof.body["ticket"]?.stringValue)
        let joined = try h.verify([
            ("action", "confirm"), ("ticket", .string(ticket)), ("password", "the whole password"),
            ("deviceName", "Ada's iPhone"),
        ])
        let token = try #require(joined.body["sessionToken"]?.stringValue, "\(joined.rawBody)")
        let expired = try h.signedIn("g-whole-subject")
        try h.database().run("UPDATE sessions SET expires_at = ? WHERE session_id = ?",
                             [.integer(Clock.now() - 1), .text(expired.sessionId)])

        let answer = try account(h, "Bearer \(token)")
        #expect(answer.status == 200, "\(answer.rawBody)")
        let body = answer.body
        #expect(body.objectValue?.map(\.0) == Self.accountMembers)
        #expect(body["accountId"] == made.body["accountId"])
        #expect(body["email"] == "whole@gmail.com")
        #expect(body["emailVerified"] == true)
        #expect(body["name"] == "Ada Lovelace")
        #expect(body["hasPassword"] == true)
        let account = try #require(try h.database().query("SELECT created_at FROM accounts").first?.int(0))
        #expect(body["createdAt"]?.stringValue == Clock.rfc3339(account))
        let linked = try #require(try h.database().query("SELECT created_at FROM identities").first?.int(0))
        #expect(body["providers"] == .array([.object([("provider", "google"), ("linkedAt", .string(Clock.rfc3339(linked)))])]))
        // Live sessions only (the expired one is not listed), the one asking marked.
        let sessions = try #require(body["sessions"]?.arrayValue)
        #expect(sessions.count == 2)
        #expect(sessions.allSatisfy { $0.objectValue?.map(\.0) == Self.sessionMembers })
        let byDevice = Dictionary(uniqueKeysWithValues: sessions.map { ($0["deviceName"]?.stringValue ?? "-", $0) })
        #expect(byDevice["Ada's iPad"]?["current"] == false && byDevice["Ada's iPad"]?["sessionId"] == made.body["sessionId"])
        #expect(byDevice["Ada's iPhone"]?["current"] == true && byDevice["Ada's iPhone"]?["sessionId"] == joined.body["sessionId"])
        let stored = try #require(try h.stored(joined.body["sessionId"]?.stringValue ?? ""))
        let mine = try #require(byDevice["Ada's iPhone"])
        #expect(mine["createdAt"]?.stringValue == Clock.rfc3339(stored.createdAt))
        #expect(mine["lastUsedAt"]?.stringValue == Clock.rfc3339(stored.lastUsedAt))
        #expect(mine["expiresAt"]?.stringValue == Clock.rfc3339(stored.expiresAt))
        // No secret: no token, no token hash, no password hash, no provider subject.
        let hashes = try h.database().query("SELECT token_hash FROM sessions").compactMap { $0.blob(0) }
        let secrets = [token, madeToken, "g-whole-subject", "argon2", "the whole password"]
            + hashes.flatMap { [Hex.encode($0), Base64URL.encode($0)] }
        for secret in secrets { #expect(!answer.rawBody.contains(secret), "\(secret) in the answer") }
        #expect(!answer.stderr.contains("whole@gmail.com"))
    }

    @Test func updateSetsAndClearsTheName() throws {
        let h = try Harness()
        let me = try h.signedIn("g-named", email: "named@gmail.com")
        let set = try account(h, me.bearer, [("action", "update"), ("name", "  Grace Hopper ")])
        #expect(set.status == 200, "\(set.rawBody)")
        #expect(set.body["name"] == "Grace Hopper")
        #expect(set.body.objectValue?.map(\.0) == Self.accountMembers)
        #expect(try account(h, me.bearer).body["name"] == "Grace Hopper")
        let longest = String(repeating: "ü", count: 128)
        #expect(try account(h, me.bearer, [("action", "update"), ("name", .string(longest))]).body["name"]?.stringValue == longest)
        #expect(try account(h, me.bearer, [("action", "update"), ("name", nil)]).body["name"] == .null)
        #expect(try account(h, me.bearer, [("action", "update"), ("name", "x")]).status == 200)
        #expect(try account(h, me.bearer, [("action", "update"), ("name", "   ")]).body["name"] == .null)
        #expect(try h.database().query("SELECT name FROM accounts").first?.text(0) == nil)
    }

    @Test func badInputIsA4xxAndChangesNothing() throws {
        let h = try Harness()
        let me = try h.signedIn("g-bad")
        #expect(try account(h, me.bearer, [("action", "update"), ("name", "Kept")]).status == 200)
        // Neither a name nor a language: nothing to change, the account answered as it is.
        let unchanged = try DeviceNameTests.snapshot(h)
        let nothing = try account(h, me.bearer, [("action", "update")])
        #expect(nothing.status == 200 && nothing.body["name"] == "Kept", "\(nothing.rawBody)")
        #expect(try DeviceNameTests.snapshot(h) == unchanged)
        let cases: [(String, [(String, JSONValue)], String, Int)] = [
            ("no action", [], "invalid_request", 400),
            ("unknown action", [("action", "delete")], "invalid_request", 400),
            ("action not a string", [("action", 5)], "invalid_request", 400),
            ("name a number", [("action", "update"), ("name", 5)], "invalid_request", 400),
            ("name too long", [("action", "update"), ("name", .string(String(repeating: "a", count: 257)))], "invalid_request", 400),
            ("name with a newline", [("action", "update"), ("name", "two\nlines")], "invalid_request", 400),
            ("name with a tab", [("action", "update"), ("name", "a\tb")], "invalid_request", 400),
            ("name with a format character", [("action", "update"), ("name", "\u{202E}evil")], "invalid_request", 400),
            ("name with NUL", [("action", "update"), ("name", "a\u{0}b")], "invalid_request", 400),
            ("name that looks blank", [("action", "update"), ("name", "\u{3164}")], "invalid_request", 400),
            ("name with a pile of marks", [("action", "update"), ("name", .string("a" + String(repeating: "\u{301}", count: 80)))],
             "invalid_request", 400),
        ]
        for (label, members, code, status) in cases {
            let before = try DeviceNameTests.snapshot(h)
            let answer = try account(h, me.bearer, members)
            #expect(answer.status == status && answer.errorCode == code, "\(label): \(answer.rawBody)")
            #expect(try DeviceNameTests.snapshot(h) == before, "\(label)")
        }
        let before = try DeviceNameTests.snapshot(h)
        for bearer in [nil, "Bearer nope", "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"] {
            let answer = try account(h, bearer, [("action", "update"), ("name", "Someone Else")])
            #expect(answer.status == 401 && answer.errorCode == "unauthorized")
            #expect(try account(h, bearer).status == 401)
        }
        #expect(try h.run("account", body: [], method: "GET", contentType: nil, authorization: me.bearer).status == 405)
        #expect(try h.run("account", json: "[1]", authorization: me.bearer).errorCode == "invalid_request")
        #expect(try h.run("account", json: "{", authorization: me.bearer).errorCode == "invalid_request")
        #expect(try h.run("account", body: Array(#"{"action":"get"}"#.utf8), contentType: "text/plain",
                          authorization: me.bearer).status == 415)
        #expect(try DeviceNameTests.snapshot(h) == before)
        #expect(try account(h, me.bearer).body["name"] == "Kept")
    }
}
