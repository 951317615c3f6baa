import DevSupport
import Shared
import Testing

/// Every sign-in path keeps `deviceName` on its new session and answers its `sessionId`; a bad
/// name is a 400 before anything is done (no nonce claimed, no limit counted, no ticket spent).
@Suite(.serialized) struct DeviceNameTests {
    static let bad: [JSONValue] = [
        .string(String(repeating: "a", count: 65)), .string(String(repeating: "é", count: 33)), "tab\there",
        "two\nlines", "\u{202E}evil", "nul\u{0}", "bell\u{7}", 5, true, .array(["x"]), .object([]),
        // Issue 19: blank-looking, unassigned, a pile of marks.
        "\u{3164}", "\u{2800}", "x\u{378}", .string("a" + String(repeating: "\u{301}", count: 20)),
    ]

    /// Everything the store holds, as text: "nothing changed" is this staying the same.
    static func snapshot(_ h: Harness) throws -> [String] {
        let db = try h.database()
        let tables = try TestStore.tableNames(db)
        var out: [String] = []
        for table in tables where table != "key_sets" {
            out += try db.query("SELECT * FROM \(table) ORDER BY 1, 2").map { row in
                table + ": " + (0..<row.count).map { "\(row[$0])" }.joined(separator: "|")
            }
        }
        return out
    }

    /// Bad names first (each a 400 that changes nothing), then a good one: the session keeps it.
    @discardableResult
    static func expectDeviceName(
        _ h: Harness, _ endpoint: String, _ members: [(String, JSONValue)], success: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CGIAnswer {
        for name in bad {
            let before = try snapshot(h)
            let answer = try h.run(endpoint, json: JSONValue.object(members + [("deviceName", name)]).serialized)
            #expect(answer.status == 400, "\(endpoint) \(name): \(answer.rawBody)", sourceLocation: sourceLocation)
            #expect(answer.errorCode == "invalid_request", sourceLocation: sourceLocation)
            #expect(try snapshot(h) == before, "\(endpoint) \(name) changed the store", sourceLocation: sourceLocation)
        }
        let good = try h.run(endpoint, json: JSONValue.object(members + [("deviceName", "  Ada's iPhone  ")]).serialized)
        #expect(good.status == success, "\(endpoint): \(good.rawBody)", sourceLocation: sourceLocation)
        let sessionId = try #require(good.body["sessionId"]?.stringValue, sourceLocation: sourceLocation)
        let stored = try h.database().query("SELECT device_name FROM sessions WHERE session_id = ?", [.text(sessionId)])
        #expect(stored.first?.text(0) == "Ada's iPhone", sourceLocation: sourceLocation)
        return good
    }

    @Test func google() throws {
        let h = try Harness()
        let token = try h.google.token(sub: "g-device", email: "device@gmail.com")
        try Self.expectDeviceName(h, "signin-google", [("idToken", .string(token))])
        // 64 bytes is the limit; without a name the session has none.
        let longest = String(repeating: "é", count: 32)
        let answer = try h.run("signin-google", json: JSONValue.object([
            ("idToken", .string(token)), ("deviceName", .string(longest)),
        ]).serialized)
        #expect(answer.status == 200)
        let plain = try h.signInGoogle(token)
        #expect(plain.body["sessionId"]?.stringValue?.utf8.count == 32)
        #expect(try h.database().query(
            "SELECT device_name FROM sessions WHERE session_id = ?", [.text(plain.body["sessionId"]?.stringValue ?? "")]
        ).first?.text(0) == nil)
        #expect(try h.database().query(
            "SELECT count(*) FROM sessions WHERE device_name = ?", [.text(longest)]).first?.int(0) == 1)
    }

    @Test(arguments: ["relay", "direct"])
    func apple(_ mode: String) throws {
        let w = try AppleWorld(mode: mode, config: mode == "direct" ? [("firebase", nil)] : [])
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-device", rawNonce: nonce, email: "device@example.org")
        // The refused requests claimed no nonce and asked Firebase nothing: the same token signs in after.
        try Self.expectDeviceName(w.h, "signin-apple", [("identityToken", .string(token)), ("rawNonce", .string(nonce))])
        #expect(w.firebase.usersCreated == (mode == "relay" ? 1 : 0))
    }

    @Test func emailRegisterAndLogin() throws {
        let h = try Harness()
        let members: [(String, JSONValue)] = [
            ("email", "device@example.org"), ("password", "a device password"),
        ]
        try Self.expectDeviceName(h, "signin-email", [("action", "register")] + members, success: 201)
        try Self.expectDeviceName(h, "signin-email", [("action", "login")] + members)
    }

    @Test func verifyEmailConfirmByCodeAndByPassword() throws {
        let h = try Harness()
        #expect(try h.register("joiner@gmail.com", "typed by someone").status == 201)
        let proof = try h.signInGoogle(try h.google.token(sub: "g-joiner", email: "joiner@gmail.com"))
        let ticket = try #require(proof.body["ticket"]?.stringValue, "\(proof.rawBody)")
        try Self.expectDeviceName(
            h, "verify-email", [("action", "confirm"), ("ticket", .string(ticket)), ("password", "typed by someone")])

        #expect(try h.register("coder@gmail.com", "typed by another").status == 201)
        let second = try h.signInGoogle(try h.google.token(sub: "g-coder", email: "coder@gmail.com"))
        let codeTicket = try #require(second.body["ticket"]?.stringValue)
        #expect(try h.verify([("action", "send_code"), ("ticket", .string(codeTicket))]).status == 200)
        let code = try #require(h.smtp.lastCode(to: "coder@gmail.com"))
        try Self.expectDeviceName(
            h, "verify-email", [("action", "confirm"), ("ticket", .string(codeTicket)), ("code", .string(code))])
    }

    @Test func verifyEmailResetConfirm() throws {
        let h = try Harness()
        #expect(try h.register("resetter@example.org", "the old password").status == 201)
        let request = try h.verify([("action", "reset_request"), ("email", "resetter@example.org")])
        let ticket = try #require(request.body["ticket"]?.stringValue)
        let code = try #require(h.smtp.lastCode(to: "resetter@example.org"))
        try Self.expectDeviceName(h, "verify-email", [
            ("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
            ("password", "the new password"),
        ])
    }
}
