import DevSupport
import Shared
import Testing

/// The closing numbers of issue 3: what one relay sign-in sends and how long it keeps the phone
/// waiting, next to one round trip to the fake.
@Suite(.serialized) struct AppleRelayCostTests {
    /// The `ms=` the endpoint logs: the time to its answer, work after the answer excluded.
    static func answerMillis(_ answer: CGIAnswer) -> Double? {
        let parts = answer.stderr.split(separator: " ms=", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let digits = parts[1].prefix { $0 == "." || $0.isNumber }
        return Double(String(digits))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : (sorted[sorted.count / 2] * 10).rounded() / 10
    }

    @Test func requestsConnectionsAndTimePerRelaySignIn() throws {
        let w = try AppleWorld()
        w.firebase.resetLog()
        let cold = try w.signInNew(sub: "apple-cost-0")
        #expect(cold.status == 200)
        let coldRequests = w.firebase.requests.count
        let coldConnections = w.firebase.connectionCount
        // Keys cached: signInWithIdp, then (after the answer) delete, on one connection.
        #expect(coldRequests == 3)
        #expect(coldConnections == 2)

        var relayMillis: [Double] = []
        for i in 1...5 {
            w.firebase.resetLog()
            let answer = try w.signInNew(sub: "apple-cost-\(i)")
            #expect(answer.status == 200)
            #expect(w.firebase.requests.count == 2)
            #expect(w.firebase.connectionCount == 1)
            #expect(Set(w.firebase.requests.map { $0.connectionID }).count == 1)
            if let ms = Self.answerMillis(answer) { relayMillis.append(ms) }
        }
        #expect(w.firebase.userCount == 0)

        var googleMillis: [Double] = []
        #expect(try w.h.signInGoogle(try w.h.google.token(sub: "g-cost-warm")).status == 200)
        for i in 0..<5 {
            let answer = try w.h.signInGoogle(try w.h.google.token(sub: "g-cost-\(i)"))
            if let ms = Self.answerMillis(answer) { googleMillis.append(ms) }
        }

        // One round trip as the process makes it: a new connection, a signInWithIdp the fake verifies.
        var tripMillis: [Double] = []
        for i in 0..<5 {
            let nonce = AppleWorld.nonce()
            let token = try w.apple.token(sub: "apple-trip-\(i)", rawNonce: nonce)
            let postBody = FormEncoding.encode([("id_token", token), ("providerId", "apple.com"), ("nonce", nonce)])
            let body = JSONValue.object([
                ("requestUri", "http://localhost"), ("postBody", .string(postBody)), ("returnSecureToken", true),
            ]).serialized
            let started = Clock.monotonicMillis()
            let response = try CurlHTTPClient().send(HTTPRequest(
                method: "POST", url: w.firebase.identityToolkitURL + "/v1/accounts:signInWithIdp",
                headers: [("Content-Type", "application/json"), ("X-Goog-Api-Key", FakeFirebase.apiKey)],
                body: Array(body.utf8)))
            tripMillis.append(Clock.monotonicMillis() - started)
            #expect(response.status == 200)
        }
        print("""
            relay sign-in: cold keys \(coldRequests) requests on \(coldConnections) connections; \
            warm keys 2 requests on 1 connection (one TLS handshake in production)
            time to answer (median of 5, ms): relay \(Self.median(relayMillis)), \
            Google with cached keys \(Self.median(googleMillis)), one fake signInWithIdp round trip \
            \(Self.median(tripMillis))
            """)
    }
}
