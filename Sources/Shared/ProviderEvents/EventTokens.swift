/// What a provider's event token must say (rule 16): Apple's notifications and Google's Security
/// Event Tokens are checked like sign-in tokens, with the differences the senders need.
public struct EventPolicy: Sendable {
    public var issuers: [String]
    public var audiences: [String]
    /// Apple's notifications carry `exp` (a day after `iat`) and it is checked when present;
    /// Google's SETs "represent historical events and as such, don't expire" (Google's RISC guide),
    /// and RFC 8417 has SETs that could pass for ID tokens leave it out, so it is not read.
    public var checksExpiry: Bool
    public var clockSkew: Int64 = 60
    /// As rule 1: a day and a minute.
    public var maxLifetime: Int64 = 86_400 + 60
    /// The oldest `iat` accepted, in seconds before now: a captured event replayed after its
    /// record (`jti`) was pruned would act again, so nothing older than the record is kept is
    /// taken (`ProviderEventStore.maxEventAgeSeconds`).
    public var maxAge: Int64 = ProviderEventStore.maxEventAgeSeconds
    public static let maxJTIBytes = 256

    public init(issuers: [String], audiences: [String], checksExpiry: Bool) {
        self.issuers = issuers
        self.audiences = audiences
        self.checksExpiry = checksExpiry
    }
}

/// An event token whose signature and claims were checked; `events` is the sender's to read.
public struct CheckedEvent: Sendable {
    public let jti: String
    public let issuedAt: UnixTime
    public let claims: JSONValue
}

public enum EventTokens {
    /// Shape, header, signature, claims, in that order: garbage is refused before the store or the
    /// network is touched. The keys come from the key cache, fetched through `client` when missing
    /// or expired (an expired copy serves within the cache's grace when the fetch fails) and once
    /// more for an unknown `kid`, as sign-in's are.
    public static func verify(
        _ token: String, keysUrl: String, client: @escaping () -> HTTPClient, policy: EventPolicy,
        context: RequestContext
    ) throws(EventRefusal) -> CheckedEvent {
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(token)
            // Both senders sign with RSA keys and RS256 (Apple's and Google's key sets hold nothing
            // else); the peers that act on these pin it too (mozilla/fxa `algorithms: ['RS256']`).
            _ = try checkedHeader(jws.header)
        } catch {
            throw EventRefusal(error)
        }
        guard jws.header["alg"]?.stringValue == "RS256" else { throw .key("event token alg is not RS256") }
        try checkSignature(jws, keysUrl: keysUrl, client: client, context: context)
        let claims: JSONValue
        do {
            claims = try jws.claims()
        } catch {
            throw EventRefusal(error)
        }
        return try checkClaims(claims, policy: policy, now: context.now)
    }

    static func checkSignature(
        _ jws: CompactJWS, keysUrl: String, client: @escaping () -> HTTPClient, context: RequestContext
    ) throws(EventRefusal) {
        let db: Database
        do {
            db = try context.database()
        } catch {
            throw .failed(error)
        }
        let cache = KeySetCache(db: db, settings: context.config.keyCache, client: client)
        let keys: JSONWebKeySet
        do {
            keys = try cache.keys(url: keysUrl, now: context.now)
        } catch {
            throw .failed(error)
        }
        do {
            try verifySignature(of: jws, with: keys)
        } catch .unknownKeyID {
            let fresh: JSONWebKeySet?
            do {
                fresh = try cache.refetchForUnknownKey(url: keysUrl, now: context.now)
            } catch {
                throw .failed(error)
            }
            guard let fresh else { throw EventRefusal(.unknownKeyID(nil)) }
            do {
                try verifySignature(of: jws, with: fresh)
            } catch {
                throw EventRefusal(error)
            }
        } catch {
            throw EventRefusal(error)
        }
    }

    /// `iss` one of `policy.issuers`; `aud` a string or an array naming at least one of
    /// `policy.audiences` (RFC 7519 4.1.3: the recipient must find itself there; a SET may be
    /// addressed to several of one project's clients); `iat` a NumericDate no later than the skew
    /// allows and no older than `policy.maxAge` (`stale`); `nbf` likewise; with `checksExpiry`, `exp` when present after now less the skew, after
    /// `iat`, within the lifetime; `jti` 1 to 256 printable ASCII characters; `events` present.
    public static func checkClaims(_ claims: JSONValue, policy: EventPolicy, now: UnixTime) throws(EventRefusal)
        -> CheckedEvent
    {
        guard case .object = claims else { throw .request("token malformed: claims not an object") }
        guard let issuer = claims["iss"]?.stringValue, policy.issuers.contains(issuer) else { throw .issuer }
        switch claims["aud"] {
        case .string(let aud)? where policy.audiences.contains(aud): break
        case .array(let members)? where members.contains(where: { $0.stringValue.map(policy.audiences.contains) == true })
            && members.allSatisfy({ $0.stringValue != nil }):
            break
        default: throw .audience
        }
        let latest = now.addingReportingOverflow(policy.clockSkew).overflow ? Int64.max : now + policy.clockSkew
        guard let issuedAt = try numericDate(claims["iat"], "iat") else { throw .request("token claim refused: iat missing") }
        guard issuedAt <= latest else { throw .request("token claim refused: iat: in the future") }
        guard issuedAt >= now - policy.maxAge else { throw .stale }
        if let notBefore = try numericDate(claims["nbf"], "nbf"), notBefore > latest {
            throw .request("token claim refused: nbf: not yet valid")
        }
        if policy.checksExpiry, let expiresAt = try numericDate(claims["exp"], "exp") {
            guard expiresAt > now - policy.clockSkew else { throw .request("token claim refused: exp: expired") }
            guard expiresAt > issuedAt else { throw .request("token claim refused: exp not after iat") }
            guard expiresAt - issuedAt <= policy.maxLifetime else {
                throw .request("token claim refused: lifetime over the maximum")
            }
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= EventPolicy.maxJTIBytes,
            jti.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .request("token claim refused: jti") }
        guard let events = claims["events"], !events.isNull else { throw .request("token claim refused: no events") }
        return CheckedEvent(jti: jti, issuedAt: issuedAt, claims: claims)
    }

    /// A NumericDate: a non-negative JSON number below 2^53, floored; nil when absent.
    static func numericDate(_ value: JSONValue?, _ name: String) throws(EventRefusal) -> UnixTime? {
        guard let value else { return nil }
        guard let seconds = value.numberValue, seconds >= 0, seconds < 9_007_199_254_740_992 else {
            throw .request("token claim refused: \(name)")
        }
        return UnixTime(seconds.rounded(.down))
    }
}
