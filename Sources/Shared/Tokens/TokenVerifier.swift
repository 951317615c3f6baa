/// A token whose signature and claims were checked.
public struct VerifiedToken: Sendable {
    public let header: JSONValue
    public let claims: JSONValue
    public let subject: String
    public let issuer: String
    public let issuedAt: UnixTime
    public let expiresAt: UnixTime
    /// nil when absent.
    public let email: String?
    /// True only for `true` or `"true"`; absent is false; any other type or value was refused.
    public let emailVerified: Bool
}

public enum TokenVerifier {
    /// `sub` longer than this is refused: providers' subjects are tens of bytes and we store them.
    public static let maxSubjectBytes = 255

    /// Signature first, then claims; `now` injected.
    public static func verify(_ token: String, keys: JSONWebKeySet, policy: ClaimsPolicy, now: UnixTime)
        throws(TokenError) -> VerifiedToken
    {
        try verify(try CompactJWS.parse(token), keys: keys, policy: policy, now: now)
    }

    /// The same, for a token already split and decoded (so it is parsed once per request).
    public static func verify(_ jws: CompactJWS, keys: JSONWebKeySet, policy: ClaimsPolicy, now: UnixTime)
        throws(TokenError) -> VerifiedToken
    {
        try verifySignature(of: jws, with: keys)
        let claims = try jws.claims()
        let checked = try checkClaims(claims, policy: policy, now: now)
        return VerifiedToken(
            header: jws.header, claims: claims, subject: checked.subject, issuer: checked.issuer,
            issuedAt: checked.issuedAt, expiresAt: checked.expiresAt, email: checked.email,
            emailVerified: checked.emailVerified)
    }

    /// Claims only, same rules as `verify`: for claims whose signature was checked elsewhere, or
    /// for a deliberate cheap check before the signature. `claims` must be an object.
    ///
    /// `iss` in `policy.issuers`; `aud` a string in `policy.audiences` or a non-empty array of
    /// nothing but such strings; `exp` and `iat` required NumericDates (non-integers floored),
    /// `nbf` optional; with skew s: `exp > now - s`, `iat <= now + s`, `nbf <= now + s`,
    /// `iat < exp`, `exp - iat <= maxLifetime`; `sub` a non-empty string of at most
    /// `maxSubjectBytes`; `email` a string when present; `email_verified` a boolean or the string
    /// "true"/"false" when present.
    public static func checkClaims(_ claims: JSONValue, policy: ClaimsPolicy, now: UnixTime)
        throws(TokenError) -> CheckedClaims
    {
        guard case .object = claims else { throw .malformed("claims not an object") }

        guard let issuer = claims["iss"]?.stringValue, policy.issuers.contains(issuer) else { throw .claim("iss") }
        let audiences = try checkedAudiences(claims["aud"], policy: policy)

        guard let expiresAt = try numericDate(claims["exp"], "exp") else { throw .claim("exp missing") }
        guard let issuedAt = try numericDate(claims["iat"], "iat") else { throw .claim("iat missing") }
        let notBefore = try numericDate(claims["nbf"], "nbf")
        let earliest = saturating(now, minus: policy.clockSkew)
        let latest = saturating(now, plus: policy.clockSkew)
        guard expiresAt > earliest else { throw .claim("exp: expired") }
        guard issuedAt <= latest else { throw .claim("iat: in the future") }
        if let notBefore, notBefore > latest { throw .claim("nbf: not yet valid") }
        guard expiresAt > issuedAt else { throw .claim("exp not after iat") }
        guard expiresAt - issuedAt <= policy.maxLifetime else { throw .claim("lifetime over the maximum") }

        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty,
            subject.utf8.count <= maxSubjectBytes
        else { throw .claim("sub") }

        var email: String?
        if let value = claims["email"] {
            guard let string = value.stringValue else { throw .claim("email") }
            email = string
        }
        let emailVerified: Bool
        switch claims["email_verified"] {
        case .none, .some(.bool(false)), .some(.string("false")): emailVerified = false
        case .some(.bool(true)), .some(.string("true")): emailVerified = true
        default: throw .claim("email_verified")
        }
        return CheckedClaims(
            subject: subject, issuer: issuer, audiences: audiences, issuedAt: issuedAt, expiresAt: expiresAt,
            notBefore: notBefore, email: email, emailVerified: emailVerified)
    }

    private static func checkedAudiences(_ value: JSONValue?, policy: ClaimsPolicy) throws(TokenError) -> [String] {
        switch value {
        case .string(let aud)? where policy.audiences.contains(aud):
            return [aud]
        case .array(let members)? where !members.isEmpty:
            var audiences: [String] = []
            for member in members {
                guard let aud = member.stringValue, policy.audiences.contains(aud) else { throw .claim("aud") }
                audiences.append(aud)
            }
            return audiences
        default:
            throw .claim("aud")
        }
    }

    /// A NumericDate (RFC 7519 section 2): a JSON number of seconds, maybe fractional, floored.
    /// Negative values and values beyond 2^53 are refused. nil when the claim is absent.
    private static func numericDate(_ value: JSONValue?, _ name: String) throws(TokenError) -> UnixTime? {
        guard let value else { return nil }
        guard let seconds = value.numberValue, seconds >= 0, seconds < 9_007_199_254_740_992 else {
            throw .claim(name)
        }
        return UnixTime(seconds.rounded(.down))
    }

    // The skew is configuration: no value of it may trap.
    private static func saturating(_ a: Int64, minus b: Int64) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        guard overflow else { return result }
        return b > 0 ? .min : .max
    }

    private static func saturating(_ a: Int64, plus b: Int64) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return result }
        return b > 0 ? .max : .min
    }
}
