#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// The whole path over HTTP: nginx → fcgiwrap → the CGI programs → the fake Google on loopback.
@Suite(.serialized) struct IntegrationTests {
    @Test func googleSignInAndSignOutThroughNginx() throws {
        let h = try Harness()
        let stack = try Stack(h)
        defer { stack.stop() }
        let token = try h.google.token(sub: "g-http", email: "http.user@gmail.com")
        let first = try stack.post("/auth/signin-google", json: #"{"idToken":"\#(token)"}"#)
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self)) \(stack.errorLog())")
        #expect(first.header("cache-control") == "no-store")
        #expect(first.header("content-type")?.hasPrefix("application/json") == true)
        #expect(first.json?["created"] == true)
        let again = try stack.post("/auth/signin-google", json: #"{"idToken":"\#(token)"}"#)
        #expect(again.json?["created"] == false)
        #expect(again.json?["accountId"] == first.json?["accountId"])
        let session = try #require(first.json?["sessionToken"]?.stringValue)
        let out = try stack.post("/auth/sign-out", json: "{}", authorization: "Bearer \(session)")
        #expect(out.status == 200)
        #expect(try stack.post("/auth/sign-out", json: "{}", authorization: "Bearer \(session)").status == 401)
        // One log line per request reaches nginx's error log, without the token or the email.
        let log = stack.errorLog()
        #expect(log.contains("endpoint=signin-google status=200"))
        #expect(!log.contains(token))
        #expect(!log.contains("http.user"))
    }

    /// A sign-in that nginx passes on and the program refuses (401), from `address` as the
    /// real-IP header gives it (a proxy on loopback).
    func refusedSignIn(_ stack: Stack, from address: String) throws -> Int {
        try stack.post("/auth/signin-google", json: #"{"idToken":"not.a.token"}"#, headers: [("X-Real-IP", address)])
            .status
    }

    /// nginx's per-client limit is 30 a minute with a burst of 20: of 30 requests as fast as they
    /// go, 21 pass at once (one and the burst), one more every 2 s, so the rest are refused unless
    /// each request took over half a second.
    func expectLimitedPastTheBurst(_ statuses: [Int], _ note: String = "") {
        #expect(statuses.prefix(21).allSatisfy { $0 == 401 }, "\(statuses) \(note)")
        #expect(statuses.contains(429), "\(statuses)")
        #expect(Set(statuses) == [401, 429])
    }

    /// nginx's per-client limit counts an IPv6 client by its /64.
    @Test func nginxCountsAnIPv6ClientByItsSlash64() throws {
        let h = try Harness()
        let stack = try Stack(h, environment: ["FRONTDOOR_REAL_IP_HEADER": "X-Real-IP"])
        defer { stack.stop() }
        // 30 addresses of one /64.
        expectLimitedPastTheBurst(try (1...30).map { try refusedSignIn(stack, from: "2001:db8:5:6:\(String($0, radix: 16))::\($0)") })
        // Its neighbour /64 and an IPv4 client are other clients.
        #expect(try refusedSignIn(stack, from: "2001:db8:5:7::1") == 401)
        #expect(try refusedSignIn(stack, from: "192.0.2.44") == 401)
    }

    /// An IPv4-mapped address (`::ffff:a.b.c.d`, from a proxy's header here) is its IPv4 address
    /// in nginx's key, as in `ClientAddress`; as a /64 every IPv4 client would share one bucket.
    @Test func nginxCountsAnIPv4MappedClientAsItsIPv4Address() throws {
        let h = try Harness()
        let stack = try Stack(h, environment: ["FRONTDOOR_REAL_IP_HEADER": "X-Real-IP"])
        defer { stack.stop() }
        expectLimitedPastTheBurst(try (1...30).map { _ in try refusedSignIn(stack, from: "::ffff:198.51.100.7") })
        // Another IPv4 client, mapped or not, is another bucket; the same one unmapped is the same.
        #expect(try refusedSignIn(stack, from: "::ffff:198.51.100.8") == 401)
        #expect(try refusedSignIn(stack, from: "198.51.100.9") == 401)
        #expect(try refusedSignIn(stack, from: "198.51.100.7") == 429)
    }

    /// A dual-stack listener sees IPv4 clients as mapped addresses: two loopback clients.
    @Test func aDualStackListenerKeepsIPv4ClientsApart() throws {
        let h = try Harness()
        let stack = try Stack(h, environment: ["FRONTDOOR_LISTEN": "mapped"])
        defer { stack.stop() }
        func send(from address: String) throws -> Int {
            try RawHTTP.exchange(
                port: stack.port, method: "POST", path: "/auth/signin-google", headers: [],
                body: #"{"idToken":"not.a.token"}"#, from: address
            ).status
        }
        expectLimitedPastTheBurst(try (1...30).map { _ in try send(from: "127.0.0.1") }, stack.errorLog().suffix(1000).description)
        // nginx saw the mapped form (its log line is written after the answer: the first one).
        #expect(stack.accessLog().hasPrefix("::ffff:127.0.0.1 "), "\(stack.accessLog().prefix(500))")
        #expect(try send(from: "127.0.0.2") == 401)
    }

    @Test func nginxAnswersItsOwnErrorsInJSON() throws {
        let h = try Harness()
        let stack = try Stack(h)
        defer { stack.stop() }
        let get = try stack.request("GET", "/auth/signin-google")
        #expect(get.status == 405)
        #expect(get.json?["error"]?.stringValue == "method_not_allowed")
        let big = try stack.request("POST", "/auth/signin-google", body: [UInt8](repeating: 0x61, count: 1 << 20))
        #expect(big.status == 413)
        #expect(big.json?["error"]?.stringValue == "payload_too_large")
        let unknown = try stack.post("/auth/frontdoor-check", json: "{}")
        #expect(unknown.status == 404)
        #expect(unknown.json?["error"]?.stringValue == "not_found")
        let traversal = try stack.post("/auth/../etc/passwd", json: "{}")
        #expect(traversal.status == 404 || traversal.status == 400)
        let wrongType = try stack.post("/auth/signin-google", json: "{}", contentType: "text/plain")
        #expect(wrongType.status == 415)
        #expect(wrongType.json?["error"]?.stringValue == "unsupported_media_type")
        for response in [get, big, unknown, wrongType] {
            #expect(response.header("cache-control") == "no-store")
        }
    }

    @Test func appleRelaySignInThroughNginx() throws {
        let w = try AppleWorld()
        let stack = try Stack(w.h)
        defer { stack.stop() }
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-http", rawNonce: nonce, email: "http.apple@privaterelay.appleid.com")
        let body = AppleWorld.body(token, nonce: nonce, givenName: "Htt", familyName: "Pea")
        let first = try stack.post("/auth/signin-apple", json: body)
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self)) \(stack.errorLog())")
        #expect(first.header("cache-control") == "no-store")
        #expect(first.json?["created"] == true)
        #expect(first.json?["providers"] == .array(["apple"]))
        let replay = try stack.post("/auth/signin-apple", json: body)
        #expect(replay.status == 401)
        #expect(replay.json?["error"]?.stringValue == "invalid_token")
        // The deletion runs after nginx has the answer, in a process this test cannot wait on: wait
        // for its outcome, bounded by the process's own ceiling.
        let deadline = Clock.monotonicMillis() + 10_000
        func settled() throws -> Bool { try w.firebase.userCount == 0 && w.count("relay_cleanups") == 0 }
        while try !settled(), Clock.monotonicMillis() < deadline {
            usleep(20_000)
        }
        #expect(w.firebase.userCount == 0)
        #expect(w.firebase.usersCreated == 1)
        #expect(try w.count("relay_cleanups") == 0)
        let log = stack.errorLog()
        #expect(log.contains("endpoint=signin-apple status=200"))
        for secret in [token, nonce, "http.apple", "Pea"] { #expect(!log.contains(secret)) }
    }
}
