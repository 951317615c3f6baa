import DevSupport
import Shared
import Testing

@Suite struct SessionTests {
    @Test func signOutEndsTheSessionItIsCalledWith() throws {
        let h = try Harness()
        let first = try h.signInGoogle(try h.google.token(sub: "g-out"))
        let second = try h.signInGoogle(try h.google.token(sub: "g-out"))
        let token = try #require(first.body["sessionToken"]?.stringValue)
        let out = try h.run("sign-out", body: [], contentType: nil, authorization: "Bearer \(token)")
        #expect(out.status == 200)
        #expect(out.body == .object([("signedOut", true), ("ended", 1)]))
        #expect(try h.count("sessions") == 1)
        let again = try h.run("sign-out", body: [], contentType: nil, authorization: "Bearer \(token)")
        #expect(again.status == 401)
        #expect(again.errorCode == "unauthorized")
        // The other session is untouched.
        let other = try #require(second.body["sessionToken"]?.stringValue)
        #expect(try h.run("sign-out", json: "{}", authorization: "Bearer \(other)").status == 200)
    }

    @Test(arguments: [nil, "", "Bearer", "Basic abc", "Bearer not-a-session", "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
    func signOutWithoutALiveSessionIs401(_ authorization: String?) throws {
        let h = try Harness()
        let answer = try h.run("sign-out", body: [], contentType: nil, authorization: authorization)
        #expect(answer.status == 401)
        #expect(answer.errorCode == "unauthorized")
    }

    @Test func expiredSessionIs401() throws {
        let h = try Harness()
        let token = try #require(try h.signInGoogle(try h.google.token(sub: "g-exp")).body["sessionToken"]?.stringValue)
        try h.database().run("UPDATE sessions SET expires_at = ?", [.integer(Clock.now() - 1)])
        #expect(try h.run("sign-out", body: [], contentType: nil, authorization: "Bearer \(token)").status == 401)
    }

    @Test func sessionLifetimeComesFromConfig() throws {
        let h = try Harness(config: [("sessionLifetimeSeconds", 3600)])
        _ = try h.signInGoogle(try h.google.token(sub: "g-life"))
        #expect(try h.database().query("SELECT expires_at - created_at FROM sessions").first?.int(0) == 3600)
    }
}
