/// One outbound HTTP request. Headers go out in order, exactly as given; the body is sent as is.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The final response to an `HTTPRequest` (interim 1xx responses are dropped).
public struct HTTPResponse: Sendable {
    public let status: Int
    /// In arrival order, names lower-cased, values trimmed.
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers.map { ($0.0.lowercased(), $0.1) }
        self.body = body
    }

    /// The first header of that name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0 == wanted }?.1
    }
}

/// The library's one door to the network, so tests can stand in for it.
public protocol HTTPClient: AnyObject {
    /// Sends one request and returns the response, whatever its status: callers decide what a 4xx or
    /// 5xx means. Throws `.upstreamUnavailable` when no complete response arrived (with
    /// `requestNeverSent` true only when the request cannot have reached the server), `.internal`
    /// for a request that must not be sent.
    func send(_ request: HTTPRequest) throws(FrontdoorError) -> HTTPResponse
}
