import Shared

/// An HTTP forward proxy on 127.0.0.1, as `apple.keysProxy` names one: a request in absolute form
/// (`GET http://host/path HTTP/1.1`, RFC 9112 section 3.2.2, what libcurl sends a proxy for an
/// `http://` URL) is fetched and its answer passed back. An `https://` URL would go through a
/// CONNECT tunnel instead, which this fake does not open: the tests' keys are served over plain
/// loopback HTTP. It records the targets it was asked for, and can be taken down.
public final class FakeHTTPProxy: @unchecked Sendable {
    public let server: LoopbackHTTPServer
    private let state = Locked<(targets: [String], down: Bool)>(([], false))

    public init() throws {
        let state = self.state
        server = try LoopbackHTTPServer { request in
            let down = state.withLock { s -> Bool in
                s.targets.append(request.method + " " + request.path)
                return s.down
            }
            if down { return .close }
            guard request.method == "GET", request.path.hasPrefix("http://") else {
                return .respond(.json(#"{"error":"this proxy forwards absolute-form GETs only"}"#, status: 405))
            }
            let client = CurlHTTPClient(connectTimeoutSeconds: 2, totalTimeoutSeconds: 5)
            guard let answer = try? client.send(HTTPRequest(method: "GET", url: request.path)) else {
                return .respond(.json(#"{"error":"bad gateway"}"#, status: 502))
            }
            let headers = answer.headers.filter { ["content-type", "cache-control"].contains($0.0) }
            return .respond(LoopbackHTTPServer.Response(status: answer.status, headers: headers, body: answer.body))
        }
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:<port>`: the value for `apple.keysProxy`.
    public var url: String { server.baseURL }
    /// `METHOD target` of every request, in order.
    public var targets: [String] { state.current.targets }
    /// While down, every connection is closed unanswered.
    public func setDown(_ down: Bool) { state.withLock { $0.down = down } }
}
