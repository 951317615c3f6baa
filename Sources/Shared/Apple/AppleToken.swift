/// Apple's identity token as the phone handed it over: decoded and checked claim by claim, but
/// its signature not yet verified (Firebase does that in relay mode, `IssuerTokens` in direct mode).
public struct AppleToken: Sendable {
    public static let issuer = "https://appleid.apple.com"

    public let raw: String
    public let subject: String
    public let expiresAt: UnixTime
    public let email: String?
    /// `true` or `"true"`; Apple sends either.
    public let emailVerified: Bool
    /// The SHA-256 of the raw nonce, which the token's `nonce` claim carries in lowercase hex.
    public let nonceHash: [UInt8]

    /// `audiences`: the app's bundle ids and the web's Services IDs (`Config.Apple.audiences`).
    public static func policy(audiences: [String]) -> ClaimsPolicy {
        ClaimsPolicy(issuers: [issuer], audiences: audiences)
    }

    /// The cheap checks, before the nonce is spent and anything leaves the box: shape, header
    /// (`alg` allow-list, no `jku`/`x5u`/`jwk`/`x5c`/`crit`), `iss`, `aud` one of `audiences`,
    /// `exp`/`iat`/`nbf`, `sub`, and `nonce` equal to the lowercase hex SHA-256 of `rawNonce` (a
    /// token without a nonce is refused).
    public static func precheck(
        _ token: String, rawNonce: String, audiences: [String], now: UnixTime
    ) throws(FrontdoorError) -> AppleToken {
        let claims: JSONValue
        let checked: CheckedClaims
        do throws(TokenError) {
            let jws = try CompactJWS.parse(token)
            // The allow-list and forbidden headers too: `alg: none` or a `jku` must not spend the
            // nonce or reach Firebase (found by the attack corpus, issue 8).
            _ = try checkedHeader(jws.header)
            claims = try jws.claims()
            checked = try TokenVerifier.checkClaims(claims, policy: policy(audiences: audiences), now: now)
        } catch {
            throw error.frontdoorError
        }
        guard let nonce = claims["nonce"]?.stringValue else { throw .invalidToken("apple: nonce claim missing") }
        let hash = SHA256.hash(Array(rawNonce.utf8))
        guard !hash.isEmpty, nonce == Hex.encode(hash) else {
            throw .invalidToken("apple: nonce is not the SHA-256 (lowercase hex) of rawNonce")
        }
        return AppleToken(
            raw: token, subject: checked.subject, expiresAt: checked.expiresAt, email: checked.email,
            emailVerified: checked.emailVerified, nonceHash: hash)
    }
}
