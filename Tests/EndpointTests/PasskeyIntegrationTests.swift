import DevSupport
import Shared
import Testing

/// Passkeys over HTTP: nginx → fcgiwrap → `passkey` and `signin-passkey`, a registration and a
/// sign-in end to end, then the session opens the app's protected route.
@Suite(.serialized) struct PasskeyIntegrationTests {
    @Test func aRegistrationAndASignInThroughNginx() throws {
        let w = try PasskeyWorld()
        let stack = try Stack(w.h)
        defer { stack.stop() }
        let google = try w.h.google.token(sub: "g-web-passkey", email: "web.passkey@gmail.com")
        let signedIn = try stack.post("/auth/signin-google", json: #"{"idToken":"\#(google)"}"#)
        #expect(signedIn.status == 200, "\(String(decoding: signedIn.body, as: UTF8.self)) \(stack.errorLog())")
        let session = try #require(signedIn.json?["sessionToken"]?.stringValue)
        let accountId = try #require(signedIn.json?["accountId"]?.stringValue)

        let begin = try stack.post("/auth/passkey", json: #"{"action":"register_begin"}"#, authorization: "Bearer \(session)")
        #expect(begin.status == 200, "\(String(decoding: begin.body, as: UTF8.self))")
        #expect(begin.header("cache-control") == "no-store")
        let ceremony = try #require(begin.json?["ceremonyId"]?.stringValue)
        let challenge = try #require(begin.json?["publicKey"]?["challenge"]?.stringValue.flatMap(Base64URL.decode))
        let handle = try #require(begin.json?["publicKey"]?["user"]?["id"]?.stringValue.flatMap(Base64URL.decode))
        let phone = try SoftwareAuthenticator(algorithm: .rs256)
        let made = try phone.register(challenge: challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.androidOrigin)
        let finish = try stack.post(
            "/auth/passkey",
            json: JSONValue.object([
                ("action", "register_finish"), ("ceremonyId", .string(ceremony)),
                ("credential", SoftwareAuthenticator.json(made)), ("name", "Pixel"),
            ]).serialized,
            authorization: "Bearer \(session)")
        #expect(finish.status == 200, "\(String(decoding: finish.body, as: UTF8.self)) \(stack.errorLog())")

        let signInBegin = try stack.post("/auth/signin-passkey", json: #"{"action":"begin"}"#)
        #expect(signInBegin.status == 200)
        let signInCeremony = try #require(signInBegin.json?["ceremonyId"]?.stringValue)
        let signInChallenge = try #require(
            signInBegin.json?["publicKey"]?["challenge"]?.stringValue.flatMap(Base64URL.decode))
        let assertion = try phone.assert(
            challenge: signInChallenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.androidOrigin, userHandle: handle)
        let signInFinish = try stack.post(
            "/auth/signin-passkey",
            json: JSONValue.object([
                ("action", "finish"), ("ceremonyId", .string(signInCeremony)),
                ("credential", SoftwareAuthenticator.json(assertion)),
            ]).serialized)
        #expect(signInFinish.status == 200, "\(String(decoding: signInFinish.body, as: UTF8.self)) \(stack.errorLog())")
        #expect(signInFinish.json?["accountId"]?.stringValue == accountId)
        #expect(signInFinish.json?["providers"] == .array(["google", "passkey"]))
        let token = try #require(signInFinish.json?["sessionToken"]?.stringValue)
        let check = try stack.post("/auth/session", json: "", authorization: "Bearer \(token)")
        #expect(check.status == 200)
        // Only POST reaches the programs.
        #expect(try stack.request("GET", "/auth/signin-passkey").status == 405)
        let log = stack.errorLog()
        #expect(log.contains("endpoint=signin-passkey status=200") && log.contains("endpoint=passkey status=200"))
    }
}
