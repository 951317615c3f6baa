import Shared

/// Apple's sign-in keys, played on 127.0.0.1, and an Apple identity-token minter shaped like the
/// real ones (`nonce` the lowercase hex SHA-256 of the raw nonce, `email_verified` and
/// `is_private_email` as strings or booleans).
public final class FakeApple: @unchecked Sendable {
    public static let bundleId = "com.example.frontdoor"
    public static let issuer = "https://appleid.apple.com"
    public static let keysPath = "/apple/auth/keys"

    private let state: Locked<(keys: [SigningKey], fetches: Int)>
    /// nil when the keys are served by someone else's server (`frontdoor-dev serve`).
    public let server: LoopbackHTTPServer?

    public init(keys: [SigningKey], serve: Bool = true) throws {
        let state = Locked((keys: keys, fetches: 0))
        self.state = state
        server = serve ? try LoopbackHTTPServer { request in FakeApple.handle(request, state: state) } : nil
    }

    public var keysURL: String { (server?.baseURL ?? "") + Self.keysPath }
    public var keys: [SigningKey] { state.current.keys }
    public var keyFetches: Int { state.current.fetches }

    /// What the phone puts in Apple's request: the lowercase hex SHA-256 of the raw nonce.
    public static func nonceClaim(_ rawNonce: String) -> String { Hex.encode(SHA256.hash(Array(rawNonce.utf8))) }

    /// An Apple identity token. `rawNonce` nil leaves the nonce out; `.null` in `overrides` removes a claim.
    public func token(
        sub: String, rawNonce: String?, email: String? = nil, emailVerified: JSONValue = "true",
        isPrivateEmail: JSONValue? = nil, audience: String = FakeApple.bundleId, now: UnixTime = Clock.now(),
        key: SigningKey? = nil, overrides: [(String, JSONValue)] = []
    ) throws -> String {
        guard let key = key ?? keys.first else { throw FakeGoogle.FakeError.noKey }
        var claims: [(String, JSONValue)] = [
            ("iss", .string(Self.issuer)), ("aud", .string(audience)), ("exp", .number(Double(now + 600))),
            ("iat", .number(Double(now))), ("sub", .string(sub)), ("c_hash", "fake-c-hash"),
            ("auth_time", .number(Double(now))), ("nonce_supported", true),
        ]
        if let rawNonce { claims.append(("nonce", .string(Self.nonceClaim(rawNonce)))) }
        if let email {
            claims.append(("email", .string(email)))
            claims.append(("email_verified", emailVerified))
            if let isPrivateEmail { claims.append(("is_private_email", isPrivateEmail)) }
        }
        for (name, value) in overrides {
            claims.removeAll { $0.0 == name }
            if !value.isNull { claims.append((name, value)) }
        }
        return try JWTMinter.mint(claims: claims, key: key)
    }

    /// The key set, for a request to `keysPath`; nil for any other path.
    public func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour? {
        DevProvider.splitQuery(request.path).0.hasSuffix(Self.keysPath) ? Self.handle(request, state: state) : nil
    }

    static func handle(
        _ request: LoopbackHTTPServer.Request, state: Locked<(keys: [SigningKey], fetches: Int)>
    ) -> LoopbackHTTPServer.Behaviour {
        guard DevProvider.splitQuery(request.path).0.hasSuffix(keysPath) else {
            return .respond(.json(#"{"error":"not found"}"#, status: 404))
        }
        let keys = state.withLock { s -> [SigningKey] in
            s.fetches += 1
            return s.keys
        }
        return .respond(.json(JWTMinter.jwks(keys), headers: [("Cache-Control", "max-age=86400")]))
    }
}
