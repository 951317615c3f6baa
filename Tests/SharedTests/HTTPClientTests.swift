import DevSupport
@testable import Shared
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// CurlHTTPClient over real sockets against LoopbackHTTPServer.
@Suite struct CurlHTTPClientTests {
    typealias Server = LoopbackHTTPServer

    @Test func getArrivesIntactAndResponseComesBack() throws {
        let server = try Server { _ in
            .respond(.json(#"{"ok":true}"#, status: 201, headers: [("X-Trace", "  abc  "), ("Cache-Control", "none")]))
        }
        defer { server.stop() }
        let client = CurlHTTPClient()
        let response = try client.send(HTTPRequest(
            url: server.baseURL + "/keys?alg=RS256&key=SECRET",
            headers: [("Accept", "application/json"), ("X-Empty", "")]))
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(response.header("x-trace") == "abc")
        #expect(response.header("CONTENT-TYPE") == "application/json")
        #expect(response.headers.allSatisfy { $0.0 == $0.0.lowercased() })
        let seen = try #require(server.requests.first)
        #expect(seen.method == "GET")
        #expect(seen.path == "/keys?alg=RS256&key=SECRET")
        #expect(seen.header("accept") == "application/json")
        #expect(seen.header("x-empty") == "")
        #expect(seen.header("expect") == nil)
        #expect(seen.body.isEmpty)
    }

    @Test func postCarriesBinaryBodyAndHeaders() throws {
        let server = try Server { .respond(.init(body: $0.body)) }
        defer { server.stop() }
        let client = CurlHTTPClient()
        // Zero bytes and invalid UTF-8 would be cut short by a strlen; 2 MB would trigger Expect: 100-continue.
        var body: [UInt8] = [0, 1, 0xFF, 0xC3, 0x28, 0] + Array(repeating: 0x41, count: 2_000_000)
        body += [0]
        let response = try CurlHTTPClient(maxResponseBytes: 4 << 20).send(HTTPRequest(
            method: "POST", url: server.baseURL + "/upload",
            headers: [("Content-Type", "application/octet-stream"), ("X-Goog-Api-Key", "k")], body: body))
        #expect(response.status == 200)
        #expect(response.body == body)
        let seen = try #require(server.requests.first)
        #expect(seen.method == "POST" && seen.path == "/upload")
        #expect(seen.body == body)
        #expect(seen.header("content-type") == "application/octet-stream")
        #expect(seen.header("x-goog-api-key") == "k")
        #expect(seen.header("content-length") == String(body.count))

        let empty = try client.send(HTTPRequest(method: "POST", url: server.baseURL + "/empty"))
        #expect(empty.status == 200 && empty.body.isEmpty)
        #expect(server.requests.last?.header("content-length") == "0")
    }

    @Test func otherMethods() throws {
        let server = try Server { .respond(.init(status: 200, body: Array("\($0.method) \($0.bodyText)".utf8))) }
        defer { server.stop() }
        let client = CurlHTTPClient()
        let delete = try client.send(HTTPRequest(method: "DELETE", url: server.baseURL + "/x"))
        #expect(String(decoding: delete.body, as: UTF8.self) == "DELETE ")
        let patch = try client.send(HTTPRequest(method: "PATCH", url: server.baseURL + "/x", body: Array("p".utf8)))
        #expect(String(decoding: patch.body, as: UTF8.self) == "PATCH p")
        let get = try client.send(HTTPRequest(url: server.baseURL + "/x"))
        #expect(String(decoding: get.body, as: UTF8.self) == "GET ")
        let head = try client.send(HTTPRequest(method: "HEAD", url: server.baseURL + "/x"))
        #expect(head.status == 200 && head.body.isEmpty)
    }

    @Test func callsOnOneClientShareOneConnection() throws {
        let server = try Server { _ in .respond(.json("{}")) }
        defer { server.stop() }
        let client = CurlHTTPClient()
        for _ in 0..<3 {
            #expect(try client.send(HTTPRequest(url: server.baseURL + "/a")).status == 200)
        }
        _ = try client.send(HTTPRequest(method: "POST", url: server.baseURL + "/b", body: [1, 2, 3]))
        #expect(server.connectionCount == 1)
        #expect(client.connectionsOpened == 1)
        #expect(Set(server.requests.map(\.connectionID)).count == 1)
    }

    @Test func separateClientsOpenSeparateConnections() throws {
        let server = try Server { _ in .respond(.json("{}")) }
        defer { server.stop() }
        let first = CurlHTTPClient()
        let second = CurlHTTPClient()
        _ = try first.send(HTTPRequest(url: server.baseURL))
        _ = try second.send(HTTPRequest(url: server.baseURL))
        _ = try first.send(HTTPRequest(url: server.baseURL))
        #expect(first.connectionsOpened == 1 && second.connectionsOpened == 1)
        #expect(server.connectionCount == 2)
        #expect(server.requests.map(\.connectionID) == [1, 2, 1])
    }

    @Test func errorStatusesAreReturnedNotThrown() throws {
        let server = try Server { _ in .respond(.json(#"{"error":"boom"}"#, status: 500)) }
        defer { server.stop() }
        let response = try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + "/"))
        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"boom"}"#)
    }

    @Test func hangTimesOutWithinTheTotalTimeout() throws {
        let server = try Server { _ in .hang(seconds: 3600) }
        defer { server.stop() }
        let client = CurlHTTPClient(connectTimeoutSeconds: 1, totalTimeoutSeconds: 1)
        let started = Shared.Clock.monotonicMillis()
        let error = expectUpstream { try client.send(HTTPRequest(url: server.baseURL + "/slow?key=SECRET")) }
        let elapsed = Shared.Clock.monotonicMillis() - started
        // It waited for the 1 s timeout, and not for the hour the server would have taken.
        #expect(elapsed >= 900 && elapsed < 10_000, "took \(elapsed) ms")
        #expect(error?.detail?.hasPrefix("127.0.0.1: ") == true)
        #expect(error?.detail?.contains("SECRET") == false)
        // Sent, then no answer: the server may have acted on it.
        #expect(error?.requestNeverSent == false)
    }

    @Test func refusedConnectionFailsFast() throws {
        // Bound but not listening: connects are refused, and no other test can take the port meanwhile.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let started = Shared.Clock.monotonicMillis()
        let client = CurlHTTPClient(connectTimeoutSeconds: 30, totalTimeoutSeconds: 30)
        let error = expectUpstream { try client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/")) }
        // Refused at once, not after the 30 s a connect may take.
        #expect(Shared.Clock.monotonicMillis() - started < 3000)
        #expect(error?.detail == "127.0.0.1: Couldn't connect to server")
        #expect(error?.requestNeverSent == true)
    }

    /// A TLS handshake that fails comes before any byte of the request.
    @Test func aFailedTLSHandshakeNeverSentTheRequest() throws {
        let server = try Server { _ in .respond(.json("{}")) }
        defer { server.stop() }
        let error = expectUpstream {
            try CurlHTTPClient(connectTimeoutSeconds: 2, totalTimeoutSeconds: 2).send(
                HTTPRequest(method: "POST", url: "https://127.0.0.1:\(server.port)/", body: Array("{}".utf8)))
        }
        #expect(error?.requestNeverSent == true, "\(error?.detail ?? "-")")
        #expect(server.requests.isEmpty)
    }

    /// libcurl's codes by number (curl.h), so this file need not import CCurl.
    /// The seed's surprise, said where it happens: Apple's host answers A and no AAAA.
    @Test func aNameWithoutAnIPv6AddressIsNamedAsTheReason() {
        let hosts = FileResolver(text: "appleid.apple.com A 17.32.194.99\nboth.example.com A 192.0.2.1\nboth.example.com AAAA 2001:db8::1\n")
        let couldNotConnect = 7, couldNotResolve = 6
        #expect(CurlHTTPClient.unreachableReason(code: couldNotConnect, host: "appleid.apple.com", resolver: hosts)
            == " (appleid.apple.com has no IPv6 address, `dig AAAA appleid.apple.com` answers none, and its IPv4 one cannot be reached from here)")
        #expect(CurlHTTPClient.unreachableReason(code: couldNotConnect, host: "both.example.com", resolver: hosts) == "")
        #expect(CurlHTTPClient.unreachableReason(code: couldNotConnect, host: "gone.example.com", resolver: hosts) == "")
        #expect(CurlHTTPClient.unreachableReason(code: couldNotResolve, host: "appleid.apple.com", resolver: hosts) == "")
        #expect(CurlHTTPClient.unreachableReason(code: couldNotConnect, host: "127.0.0.1", resolver: hosts) == "")
    }

    @Test func whetherARequestCanHaveArrived() {
        let resolve = 6, connect = 7, timedOut = 28, tls = 35, gotNothing = 52, sendError = 55, recvError = 56,
            peerVerification = 60
        #expect(CurlHTTPClient.neverSent(code: resolve, reachedTransfer: false))
        #expect(CurlHTTPClient.neverSent(code: connect, reachedTransfer: false))
        #expect(CurlHTTPClient.neverSent(code: tls, reachedTransfer: false))
        #expect(CurlHTTPClient.neverSent(code: peerVerification, reachedTransfer: false))
        // A time-out before the transfer began (connecting) sent nothing; one after may have.
        #expect(CurlHTTPClient.neverSent(code: timedOut, reachedTransfer: false))
        #expect(!CurlHTTPClient.neverSent(code: timedOut, reachedTransfer: true))
        #expect(!CurlHTTPClient.neverSent(code: recvError, reachedTransfer: true))
        #expect(!CurlHTTPClient.neverSent(code: sendError, reachedTransfer: false))
        #expect(!CurlHTTPClient.neverSent(code: gotNothing, reachedTransfer: true))
    }

    @Test(arguments: [Server.Behaviour.close, .garbage])
    func brokenAnswersAreUpstreamErrors(behaviour: Server.Behaviour) throws {
        let server = try Server { _ in behaviour }
        defer { server.stop() }
        let error = expectUpstream { try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + "/")) }
        #expect(error?.requestNeverSent == false)
    }

    @Test func endlessBodyIsCutOffAtTheCap() throws {
        let server = try Server { _ in .endlessBody }
        defer { server.stop() }
        let client = CurlHTTPClient(totalTimeoutSeconds: 60, maxResponseBytes: 100_000)
        let started = Shared.Clock.monotonicMillis()
        let error = expectUpstream { try client.send(HTTPRequest(url: server.baseURL + "/")) }
        #expect(error?.detail == "127.0.0.1: response too large")
        // Cut off by the cap, not by the 60 s timeout.
        #expect(Shared.Clock.monotonicMillis() - started < 6000)
    }

    @Test func declaredLengthOverTheCapIsRefused() throws {
        let server = try Server { _ in .respond(.init(body: Array(repeating: 7, count: 2000))) }
        defer { server.stop() }
        let error = expectUpstream { try CurlHTTPClient(maxResponseBytes: 1999).send(HTTPRequest(url: server.baseURL)) }
        #expect(error?.detail == "127.0.0.1: response too large")
        #expect(try CurlHTTPClient(maxResponseBytes: 2000).send(HTTPRequest(url: server.baseURL)).body.count == 2000)
    }

    @Test(arguments: [
        "http://example.com/", "http://127.0.0.1.evil.com/", "ftp://127.0.0.1/", "file:///etc/passwd",
        "smtp://127.0.0.1/", "smtps://mail.example.com/", "garbage",
    ])
    func refusedBeforeAnyIO(url: String) {
        #expect(throws: FrontdoorError.internal("")) { try CurlHTTPClient().send(HTTPRequest(url: url)) }
    }

    @Test func headerInjectionIsRefused() throws {
        let server = try Server { _ in .respond(.init()) }
        defer { server.stop() }
        let client = CurlHTTPClient()
        #expect(throws: FrontdoorError.internal("")) {
            try client.send(HTTPRequest(url: server.baseURL, headers: [("X-A", "1\r\nX-B: 2")]))
        }
        #expect(throws: FrontdoorError.internal("")) {
            try client.send(HTTPRequest(method: "GET /x", url: server.baseURL))
        }
        #expect(server.connectionCount == 0)
    }

    /// Runs `body`, which must throw `.upstreamUnavailable`, and hands back the error.
    @discardableResult
    private func expectUpstream(
        _ body: () throws -> HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation
    ) -> FrontdoorError? {
        do {
            let response = try body()
            Issue.record("expected an upstream error, got status \(response.status)", sourceLocation: sourceLocation)
            return nil
        } catch {
            let error = error as? FrontdoorError
            #expect(error?.code == .upstreamUnavailable, "\(String(describing: error))", sourceLocation: sourceLocation)
            return error
        }
    }
}
