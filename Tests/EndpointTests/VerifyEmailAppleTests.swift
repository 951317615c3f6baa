import DevSupport
import Shared
import Testing

/// Rule 3 for Apple: an Apple sign-in meeting a typed-email account proves itself before joining.
@Suite(.serialized) struct VerifyEmailAppleTests {
    func pendingJoin(_ w: AppleWorld, email: String, sub: String) throws -> (accountId: String, ticket: String) {
        let made = try w.h.register(email, "typed by someone")
        let accountId = try #require(made.body["accountId"]?.stringValue, "\(made.rawBody)")
        let answer = try w.signInNew(sub: sub, email: email)
        #expect(answer.status == 409, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.errorCode == "proof_required")
        #expect(answer.body["methods"] == .array(["password", "email_code"]))
        return (accountId, try #require(answer.body["ticket"]?.stringValue))
    }

    @Test(arguments: ["direct", "relay"])
    func appleJoinsByPassword(_ mode: String) throws {
        let w = try AppleWorld(mode: mode, config: mode == "direct" ? [("firebase", nil)] : [])
        let (accountId, ticket) = try pendingJoin(w, email: "ann@example.org", sub: "apple-ann")
        let joined = try w.h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("password", "typed by someone")])
        #expect(joined.status == 200, "\(joined.rawBody)")
        #expect(joined.body["accountId"]?.stringValue == accountId)
        #expect(joined.body["providers"] == .array(["apple", "password"]))
        let again = try w.signInNew(sub: "apple-ann", email: "ann@example.org")
        #expect(again.status == 200)
        #expect(again.body["accountId"]?.stringValue == accountId)
    }

    @Test func appleJoinsByCodeAndTheTypedPasswordGoes() throws {
        let w = try AppleWorld(mode: "direct", config: [("firebase", nil)])
        let (accountId, ticket) = try pendingJoin(w, email: "bo@example.org", sub: "apple-bo")
        #expect(try w.h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try #require(w.h.smtp.lastCode(to: "bo@example.org"))
        let joined = try w.h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(joined.status == 200, "\(joined.rawBody)")
        #expect(joined.body["accountId"]?.stringValue == accountId)
        #expect(joined.body["providers"] == .array(["apple"]))
        #expect(try w.h.count("sessions") == 1)
        #expect(try w.h.login("bo@example.org", "typed by someone").status == 401)
    }
}
