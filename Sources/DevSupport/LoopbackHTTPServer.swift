import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1, for tests and `make run`: libcurl talks to it over a real
/// socket, keep-alive included. One thread accepts, one thread serves each connection; the handler
/// runs on the connection's thread, so it may be called concurrently.
public final class LoopbackHTTPServer: Sendable {
    public struct Request: Sendable {
        public let method: String
        /// The request target as sent: path and query.
        public let path: String
        /// In arrival order, names lower-cased.
        public let headers: [(String, String)]
        public let body: [UInt8]
        /// 1 for the first connection accepted, 2 for the next, and so on.
        public let connectionID: Int

        public func header(_ name: String) -> String? {
            let wanted = name.lowercased()
            return headers.first { $0.0 == wanted }?.1
        }

        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Response: Sendable {
        public var status: Int
        /// Sent as given; `Content-Length` is added unless present.
        public var headers: [(String, String)]
        public var body: [UInt8]

        public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        public static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> Response {
            Response(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
        }
    }

    public enum Behaviour: Sendable {
        case respond(Response)
        /// Reads the request, answers nothing for that long (or until `stop()`), then closes.
        case hang(seconds: Double)
        /// Closes the connection without answering.
        case close
        /// A 200 with a chunked body that goes on until the client leaves.
        case endlessBody
        /// Bytes that are not HTTP, then closes.
        case garbage
    }

    public let port: Int
    private let core: LoopbackServerCore

    /// Binds 127.0.0.1:`port` (0 picks a free port) and starts serving at once.
    public init(port: Int = 0, handler: @escaping @Sendable (Request) -> Behaviour) throws {
        core = try LoopbackServerCore(port: port, handler: handler)
        self.port = core.port
    }

    deinit { core.stop() }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request so far (since the last `resetLog()`), in arrival order.
    public var requests: [Request] { core.state.withLock { $0.requests } }

    /// Connections accepted so far (since the last `resetLog()`).
    public var connectionCount: Int { core.state.withLock { $0.connectionCount } }

    public func setHandler(_ handler: @escaping @Sendable (Request) -> Behaviour) {
        core.state.withLock { $0.handler = handler }
    }

    /// Forgets the requests and connection count so far; connection ids keep counting up.
    public func resetLog() {
        core.state.withLock {
            $0.requests = []
            $0.connectionCount = 0
        }
    }

    /// Closes the listener and every open connection, and waits (about a second at most) for the
    /// threads to end. Safe to call more than once; `deinit` calls it too.
    public func stop() { core.stop() }
}
