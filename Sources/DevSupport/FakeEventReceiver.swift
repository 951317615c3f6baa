import Shared

/// The app's receiver of account events, played on 127.0.0.1 the way real webhook receivers
/// behave: it checks `Frontdoor-Signature` (401 when it does not verify, or `t` is over five
/// minutes off), answers 200 to what it takes, and keeps every request in arrival order. It can be
/// switched to fail the ways a real one does: answer an error status (a 3xx is sent without being
/// followed by frontdoor), hang past any timeout, or refuse connections (it stops listening), and
/// then recover on the same port.
public final class FakeEventReceiver: @unchecked Sendable {
    public static let path = "/events"

    public enum Mode: Sendable, Equatable {
        case accept
        /// Answers `status` (500, 302, 400, …) without looking at the event.
        case fail(status: Int)
        /// Reads the request and answers nothing for a minute (or until stopped).
        case hang
        /// Listens no more: connections are refused. (Served by someone else's server: closes.)
        case refuse
    }

    /// One request, as it arrived.
    public struct Delivery: Sendable {
        /// `Frontdoor-Event-Id`.
        public let idHeader: String?
        public let signature: String?
        public let contentType: String?
        public let rawBody: String
        public let body: JSONValue?
        /// Why the signature was refused; nil: it verified.
        public let refusal: EventSignature.Refusal?
        /// The status answered; nil when it hung or closed.
        public let answered: Int?
        public let receivedAt: UnixTime

        public var id: String? { body?["id"]?.stringValue }
        public var type: String? { body?["type"]?.stringValue }
        public var accountId: String? { body?["accountId"]?.stringValue }
        public var accepted: Bool { refusal == nil && answered.map { (200...299).contains($0) } == true }
    }

    struct State {
        var mode: Mode = .accept
        var requests: [Delivery] = []
    }

    public let port: Int
    private let secret: [UInt8]
    private let state = Locked(State())
    private let server: Locked<LoopbackHTTPServer?>
    private let onDelivery: @Sendable (Delivery) -> Void

    /// `serve: false` when another server routes `/events` here (`frontdoor-dev serve`).
    public init(
        secret: [UInt8], port: Int = 0, serve: Bool = true, onDelivery: @escaping @Sendable (Delivery) -> Void = { _ in }
    ) throws {
        self.secret = secret
        self.onDelivery = onDelivery
        server = Locked(nil)
        if serve {
            let started = try Self.listen(port: port, state: state, secret: secret, onDelivery: onDelivery)
            self.port = started.port
            server.withLock { $0 = started }
        } else {
            self.port = port
        }
    }

    deinit { stop() }

    public var url: String { "http://127.0.0.1:\(port)" + Self.path }
    public var mode: Mode { state.current.mode }
    /// Every request so far, in arrival order.
    public var requests: [Delivery] { state.current.requests }
    /// The requests it took (a good signature, answered 2xx), in arrival order; an id may repeat.
    public var accepted: [Delivery] { requests.filter(\.accepted) }

    /// Switches behaviour; `.refuse` closes the listener, any other mode opens it again on the same port.
    public func setMode(_ mode: Mode) throws {
        state.withLock { $0.mode = mode }
        if mode == .refuse {
            let running = server.withLock { current -> LoopbackHTTPServer? in
                defer { current = nil }
                return current
            }
            running?.stop()
        } else if server.current == nil, port != 0 {
            let started = try Self.listen(port: port, state: state, secret: secret, onDelivery: onDelivery)
            server.withLock { $0 = started }
        }
    }

    public func stop() { server.current?.stop() }

    /// For a server that routes here: the answer to `/events` (and the development pages under
    /// it), or nil for any other path.
    public func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour? {
        let target = request.path.split(separator: "?", maxSplits: 1)
        let path = target.first.map(String.init) ?? ""
        switch (request.method, path) {
        case ("POST", Self.path):
            return Self.handle(request, state: state, secret: secret, onDelivery: onDelivery)
        case ("GET", Self.path + "/last"):
            guard let last = requests.last else { return .respond(.json(#"{"error":"no event yet"}"#, status: 404)) }
            return .respond(.json(Self.summary(last).serialized + "\n"))
        case ("GET", Self.path + "/mode"):
            // /events/mode?set=accept|hang|refuse|<status>, to try frontdoor's retries by hand.
            let query = target.count == 2 ? String(target[1]) : ""
            if let value = query.split(separator: "&").first(where: { $0.hasPrefix("set=") })?.dropFirst(4) {
                let mode: Mode? = switch value {
                case "accept": .accept
                case "hang": .hang
                case "refuse": .refuse
                default: Int(value).map { .fail(status: $0) }
                }
                guard let mode else { return .respond(.json(#"{"error":"set=accept|hang|refuse|<status>"}"#, status: 400)) }
                state.withLock { $0.mode = mode }
            }
            return .respond(.json(#"{"mode":"\#(Self.describe(mode))"}"# + "\n"))
        default:
            return nil
        }
    }

    /// What `/events/last` shows and the development log says.
    public static func summary(_ delivery: Delivery) -> JSONValue {
        .object([
            ("signature", .string(delivery.refusal.map { "refused: \($0.rawValue)" } ?? "ok")),
            ("answered", delivery.answered.map { .number(Double($0)) } ?? .null),
            ("eventIdHeader", delivery.idHeader.map(JSONValue.string) ?? .null),
            ("body", delivery.body ?? .string(delivery.rawBody)),
        ])
    }

    static func describe(_ mode: Mode) -> String {
        switch mode {
        case .accept: "accept"
        case .fail(let status): String(status)
        case .hang: "hang"
        case .refuse: "refuse"
        }
    }

    private static func listen(
        port: Int, state: Locked<State>, secret: [UInt8], onDelivery: @escaping @Sendable (Delivery) -> Void
    ) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(port: port) { request in
            let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
            guard request.method == "POST", path == Self.path else {
                return .respond(.json(#"{"error":"not found"}"#, status: 404))
            }
            return handle(request, state: state, secret: secret, onDelivery: onDelivery)
        }
    }

    private static func handle(
        _ request: LoopbackHTTPServer.Request, state: Locked<State>, secret: [UInt8],
        onDelivery: @Sendable (Delivery) -> Void
    ) -> LoopbackHTTPServer.Behaviour {
        let signature = request.header(EventSignature.headerName)
        let refusal = EventSignature.verify(header: signature, body: request.body, secret: secret, now: Clock.now())
        let mode = state.current.mode
        let behaviour: LoopbackHTTPServer.Behaviour
        let answered: Int?
        switch mode {
        case .accept where refusal != nil:
            (behaviour, answered) = (.respond(.json(#"{"error":"bad signature"}"#, status: 401)), 401)
        case .accept:
            (behaviour, answered) = (.respond(.json(#"{"received":true}"#)), 200)
        case .fail(let status):
            let headers = (300...399).contains(status) ? [("Location", "http://127.0.0.1:1/elsewhere")] : []
            (behaviour, answered) = (.respond(.json(#"{"error":"failing on purpose"}"#, status: status, headers: headers)), status)
        case .hang:
            (behaviour, answered) = (.hang(seconds: 60), nil)
        case .refuse:
            (behaviour, answered) = (.close, nil)
        }
        let delivery = Delivery(
            idHeader: request.header(EventSignature.idHeaderName), signature: signature,
            contentType: request.header("Content-Type"), rawBody: request.bodyText,
            body: try? JSONParser.parse(request.body), refusal: refusal, answered: answered, receivedAt: Clock.now())
        state.withLock { $0.requests.append(delivery) }
        onDelivery(delivery)
        return behaviour
    }
}
