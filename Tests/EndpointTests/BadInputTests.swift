import DevSupport
import Shared
import Testing

/// Rule 7: bad input gets a clear JSON error and changes nothing.
@Suite struct BadInputTests {
    @Test func wrongMethodIs405() throws {
        let h = try Harness()
        let answer = try h.run("signin-google", body: [], method: "GET", contentType: nil)
        #expect(answer.status == 405)
        #expect(answer.errorCode == "method_not_allowed")
        #expect(answer.header("Allow") == "POST")
    }

    @Test func wrongContentTypeIs415() throws {
        let h = try Harness()
        let answer = try h.run("signin-google", body: Array(#"{"idToken":"x"}"#.utf8), contentType: "text/plain")
        #expect(answer.status == 415)
        #expect(answer.errorCode == "unsupported_media_type")
        let charset = try h.run(
            "signin-google", body: Array(#"{"idToken":"x.y.z"}"#.utf8), contentType: "application/json; charset=utf-8")
        #expect(charset.status == 401)
    }

    @Test func oneMegabyteBodyIs413AndDrained() throws {
        let h = try Harness()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        let answer = try h.run("signin-google", body: body)
        #expect(answer.status == 413)
        #expect(answer.errorCode == "payload_too_large")
    }

    @Test(arguments: [
        ("malformed JSON", #"{"idToken": "#, "invalid_request"),
        ("a JSON array", #"["idToken"]"#, "invalid_request"),
        ("a number for the token", #"{"idToken": 5}"#, "invalid_request"),
        ("no token", #"{"token": "x"}"#, "invalid_request"),
        ("an empty token", #"{"idToken": ""}"#, "invalid_request"),
        ("duplicate members", #"{"idToken": "a.b.c", "idToken": "d.e.f"}"#, "invalid_request"),
        ("a token of the wrong shape", #"{"idToken": "not-a-jwt"}"#, "invalid_token"),
        ("a JWE-shaped token", #"{"idToken": "a.b.c.d.e"}"#, "invalid_token"),
    ])
    func badBodies(_ name: String, body: String, code: String) throws {
        let h = try Harness()
        let answer = try h.run("signin-google", json: body)
        #expect(answer.errorCode == code, "\(name)")
        #expect(answer.status == (code == "invalid_token" ? 401 : 400), "\(name)")
        #expect(answer.body["message"]?.stringValue?.isEmpty == false)
    }

    @Test func shortBodyIs400() throws {
        let h = try Harness()
        let answer = try h.run("signin-google", body: Array(#"{"idToken":"x"}"#.utf8), contentLength: 100)
        #expect(answer.status == 400)
    }

    @Test func brokenConfigAnswers500AndNamesTheKey() throws {
        let h = try Harness()
        try h.writeConfig([("google", .object([("clientIds", .array([])), ("certsUrl", .string(h.google.certsURL))]))])
        let answer = try h.run("signin-google", json: #"{"idToken":"a.b.c"}"#)
        #expect(answer.status == 500)
        #expect(answer.errorCode == "internal")
        #expect(answer.exitStatus == 1)
        #expect(answer.stderr.contains("google.clientIds"))
        #expect(!answer.rawBody.contains("clientIds"))
    }

    @Test func plainHTTPToANonLoopbackHostIsAConfigError() throws {
        let h = try Harness()
        try h.writeConfig([("google", .object([
            ("clientIds", .array(["a"])), ("certsUrl", "http://www.googleapis.com/oauth2/v3/certs"),
        ]))])
        let answer = try h.run("signin-google", json: #"{"idToken":"a.b.c"}"#)
        #expect(answer.status == 500)
        #expect(answer.stderr.contains("google.certsUrl"))
    }

    @Test func missingConfigAnswers500() throws {
        let h = try Harness()
        let answer = try h.run("signin-google", body: Array(#"{"idToken":"a.b.c"}"#.utf8), extraEnvironment: ["AUTH_CONFIG": ""])
        #expect(answer.status == 500)
        #expect(answer.stderr.contains("AUTH_CONFIG"))
    }
}
