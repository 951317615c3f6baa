import Shared

/// Apple's server-to-server notifications, shaped as they arrive (Apple forum thread 655485's
/// decoded sample: `events` a JSON string, `event_time` in milliseconds, `exp` a day after `iat`;
/// Apple's documentation: `events` an object, seconds, no `exp`). Each difference is a parameter.
extension FakeApple {
    /// The JWT of a notification. `events` as a string unless `eventsAsObject`; `eventTime` as
    /// given (a number of milliseconds or seconds, `.null` to leave it out); `expires` false leaves
    /// `exp` out. `.null` in `overrides` removes a claim, and `eventOverrides` does the same inside
    /// `events`.
    public func notificationToken(
        type: String, sub: String, eventTime: JSONValue? = nil, email: String? = nil, isPrivateEmail: JSONValue? = nil,
        eventsAsObject: Bool = false, jti: String? = nil, audience: String = FakeApple.bundleId, now: UnixTime = Clock.now(),
        expires: Bool = true, key: SigningKey? = nil, header: [(String, JSONValue)] = [],
        overrides: [(String, JSONValue)] = [], eventOverrides: [(String, JSONValue)] = []
    ) throws -> String {
        guard let key = key ?? keys.first else { throw FakeGoogle.FakeError.noKey }
        var event: [(String, JSONValue)] = [
            ("type", .string(type)), ("sub", .string(sub)),
            ("event_time", eventTime ?? .number(Double(now) * 1000)),
        ]
        if let email { event.append(("email", .string(email))) }
        if let isPrivateEmail { event.append(("is_private_email", isPrivateEmail)) }
        event = mergingJSONMembers(event, eventOverrides).filter { !$0.1.isNull }
        let events = JSONValue.object(event)
        var claims: [(String, JSONValue)] = [
            ("iss", .string(Self.issuer)), ("aud", .string(audience)), ("iat", .number(Double(now))),
            ("jti", .string(try jti ?? Self.newJTI())),
            ("events", eventsAsObject ? events : .string(events.serialized)),
        ]
        if expires { claims.append(("exp", .number(Double(now + 86_400)))) }
        claims = mergingJSONMembers(claims, overrides).filter { !$0.1.isNull }
        return try JWTMinter.mint(claims: claims, key: key, header: header)
    }

    /// The body Apple posts: `{"payload": "<JWT>"}`.
    public static func notificationBody(_ token: String) -> String {
        JSONValue.object([("payload", .string(token))]).serialized
    }

    /// Apple's `jti`s look like short hex strings.
    public static func newJTI() throws -> String { Hex.encode(try SecureRandom.bytes(11)) }
}

/// Google's Security Event Tokens for Cross-Account Protection, as Google's RISC guide shows
/// them: `iss` `https://accounts.google.com/` (with the slash), `aud` a client id, `iat`, `jti`,
/// no `exp`, and `events` keyed by event-type URI, each with an `iss-sub` subject.
extension FakeGoogle {
    public static let riscIssuer = "https://accounts.google.com/"

    /// `{"subject_type": "iss-sub", "iss", "sub"}`.
    public static func riscSubject(_ sub: String, issuer: String = FakeGoogle.riscIssuer) -> JSONValue {
        .object([("subject_type", "iss-sub"), ("iss", .string(issuer)), ("sub", .string(sub))])
    }

    /// One event's member: the type's URI and its payload, with `sub`'s subject and a `reason`.
    public static func riscEvent(_ type: String, sub: String, reason: String? = nil) -> (String, JSONValue) {
        var payload: [(String, JSONValue)] = [("subject", riscSubject(sub))]
        if let reason { payload.append(("reason", .string(reason))) }
        return (riscURI(type), .object(payload))
    }

    public static func riscURI(_ type: String) -> String {
        let oauth = type == "tokens-revoked" || type == "token-revoked"
        return "https://schemas.openid.net/secevent/" + (oauth ? "oauth" : "risc") + "/event-type/" + type
    }

    /// A SET with `events`; `.null` in `overrides` removes a claim.
    public func securityEvent(
        _ events: [(String, JSONValue)], jti: String? = nil, issuer: String = FakeGoogle.riscIssuer,
        audience: JSONValue = .string(FakeGoogle.clientId), now: UnixTime = Clock.now(), key: SigningKey? = nil,
        header: [(String, JSONValue)] = [], overrides: [(String, JSONValue)] = []
    ) throws -> String {
        guard let key = key ?? keys.first else { throw FakeError.noKey }
        let claims: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("aud", audience), ("iat", .number(Double(now))),
            ("jti", .string(try jti ?? Hex.encode(try SecureRandom.bytes(16)))), ("events", .object(events)),
        ]
        return try JWTMinter.mint(
            claims: mergingJSONMembers(claims, overrides).filter { !$0.1.isNull }, key: key, header: header)
    }
}
