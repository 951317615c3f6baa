import Shared

/// An HTTP forward proxy on 127.0.0.1, as `apple.keysProxy` names one: a request in absolute form
/// (`GET http://host/path HTTP/1.1`, RFC 9112 section 3.2.2, what libcurl sends a proxy for an
/// `http://` URL) is fetched and its answer passed back. An `https://` URL would go through a
/// CONNECT tunnel instead, which this fake does not open: the tests' keys are served over plain
/// loopback HTTP. It records the targets it was asked for, and can be taken down. It can also reach
/// what the box cannot (`reach`): an IPv4 host seen from a box that has only IPv6.
public final class FakeHTTPProxy: @unchecked Sendable {
    public let server: LoopbackHTTPServer
    struct State {
        var targets: [String] = []
        var down = false
        var routes: [(from: String, to: String)] = []
    }
    private let state = Locked<State>(State())

    public init() throws {
        let state = self.state
        server = try LoopbackHTTPServer { request in
            let (down, routes) = state.withLock { s -> (Bool, [(from: String, to: String)]) in
                s.targets.append(request.method + " " + request.path)
                return (s.down, s.routes)
            }
            if down { return .close }
            guard request.method == "GET", request.path.hasPrefix("http://") else {
                return .respond(.json(#"{"error":"this proxy forwards absolute-form GETs only"}"#, status: 405))
            }
            var target = request.path
            if let route = routes.first(where: { target.hasPrefix($0.from) }) {
                target = route.to + target.dropFirst(route.from.count)
            }
            let client = CurlHTTPClient(connectTimeoutSeconds: 2, totalTimeoutSeconds: 5)
            guard let answer = try? client.send(HTTPRequest(method: "GET", url: target)) else {
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
    /// Requests for URLs that start with `unreachable` (`http://127.0.0.1:<a closed port>`, what
    /// the box cannot reach) are fetched from `reachable` instead: the proxy reaches a host the
    /// box has no route to.
    public func reach(_ unreachable: String, at reachable: String) {
        state.withLock { $0.routes.append((unreachable, reachable)) }
    }
}
