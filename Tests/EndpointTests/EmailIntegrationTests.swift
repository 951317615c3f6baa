import DevSupport
import Shared
import Testing

/// Password accounts and a code by mail over HTTP: nginx → fcgiwrap → the programs → the SMTP sink.
@Suite(.serialized) struct EmailIntegrationTests {
    @Test func registerLoginAndJoinByCodeThroughNginx() throws {
        let h = try Harness()
        let stack = try Stack(h)
        defer { stack.stop() }
        let register = try stack.post(
            "/auth/signin-email", json: #"{"action":"register","email":"web@gmail.com","password":"over http too"}"#)
        #expect(register.status == 201, "\(String(decoding: register.body, as: UTF8.self)) \(stack.errorLog())")
        #expect(register.header("cache-control") == "no-store")
        let login = try stack.post(
            "/auth/signin-email", json: #"{"action":"login","email":"web@gmail.com","password":"over http too"}"#)
        #expect(login.status == 200)
        let token = try h.google.token(sub: "g-web", email: "web@gmail.com")
        let proof = try stack.post("/auth/signin-google", json: #"{"idToken":"\#(token)"}"#)
        #expect(proof.status == 409)
        let ticket = try #require(proof.json?["ticket"]?.stringValue)
        let sent = try stack.post("/auth/verify-email", json: #"{"action":"send_code","ticket":"\#(ticket)"}"#)
        #expect(sent.status == 200)
        let code = try #require(h.smtp.lastCode(to: "web@gmail.com"))
        let joined = try stack.post(
            "/auth/verify-email", json: #"{"action":"confirm","ticket":"\#(ticket)","code":"\#(code)"}"#)
        #expect(joined.status == 200)
        #expect(joined.json?["accountId"] == register.json?["accountId"])
        let log = stack.errorLog()
        #expect(log.contains("endpoint=verify-email status=200"))
        #expect(!log.contains("web@gmail") && !log.contains("over http") && !log.contains(code))
    }
}
