import Shared

/// Google's key endpoint, played on 127.0.0.1: serves the JWKS of the keys it is given, counts
/// fetches, can be taken down, and mints ID tokens the way Google shapes them.
public final class FakeGoogle: @unchecked Sendable {
    public static let clientId = "frontdoor-dev.apps.googleusercontent.com"
    public static let issuer = "https://accounts.google.com"

    struct State {
        var keys: [SigningKey]
        var maxAge = 3600
        var down = false
        var fetches = 0
    }

    public let server: LoopbackHTTPServer
    private let state: Locked<State>

    public init(keys: [SigningKey], port: Int = 0) throws {
        let state = Locked(State(keys: keys))
        self.state = state
        server = try LoopbackHTTPServer(port: port) { request in
            FakeGoogle.handle(request, state: state)
        }
    }

    public var certsURL: String { server.baseURL + "/google/certs" }
    public var keys: [SigningKey] { state.current.keys }
    /// Key-set requests served (or refused while down) so far.
    public var certFetches: Int { state.current.fetches }

    public func setKeys(_ keys: [SigningKey]) { state.withLock { $0.keys = keys } }
    public func setDown(_ down: Bool) { state.withLock { $0.down = down } }
    public func setMaxAge(_ seconds: Int) { state.withLock { $0.maxAge = seconds } }

    /// A Google-shaped ID token; every claim can be overridden or removed (`.null` removes).
    public func token(
        sub: String, email: String? = nil, emailVerified: JSONValue = true, now: UnixTime = Clock.now(),
        key: SigningKey? = nil, overrides: [(String, JSONValue)] = []
    ) throws -> String {
        guard let key = key ?? keys.first else { throw FakeError.noKey }
        var claims: [(String, JSONValue)] = [
            ("iss", .string(Self.issuer)), ("azp", "android-client.apps.googleusercontent.com"),
            ("aud", .string(Self.clientId)), ("sub", .string(sub)), ("iat", .number(Double(now))),
            ("exp", .number(Double(now + 3600))),
        ]
        if let email {
            claims.append(("email", .string(email)))
            claims.append(("email_verified", emailVerified))
        }
        for (name, value) in overrides {
            claims.removeAll { $0.0 == name }
            if !value.isNull { claims.append((name, value)) }
        }
        return try JWTMinter.mint(claims: claims, key: key)
    }

    /// The answer to a request for the key set (404 for any other path).
    public func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour {
        Self.handle(request, state: state)
    }

    static func handle(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard path == "/google/certs" else { return .respond(.json(#"{"error":"not found"}"#, status: 404)) }
        let (keys, maxAge, down) = state.withLock { s -> ([SigningKey], Int, Bool) in
            s.fetches += 1
            return (s.keys, s.maxAge, s.down)
        }
        if down { return .respond(.json(#"{"error":"unavailable"}"#, status: 503)) }
        return .respond(
            .json(JWTMinter.jwks(keys), headers: [("Cache-Control", "public, max-age=\(maxAge), must-revalidate")]))
    }

    public enum FakeError: Error { case noKey }
}
