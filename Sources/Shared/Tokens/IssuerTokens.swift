/// Verifies a token against an issuer's published keys, going back to the issuer once when the
/// token names a key we have not seen (key rotation).
public enum IssuerTokens {
    public static func verify(
        _ token: String, keysUrl: String, policy: ClaimsPolicy, context: RequestContext
    ) throws(FrontdoorError) -> VerifiedToken {
        // Shape first: garbage is refused before the store or the network is touched.
        let jws: CompactJWS
        do {
            jws = try CompactJWS.parse(token)
        } catch {
            throw error.frontdoorError
        }
        let cache = KeySetCache(
            db: try context.database(), settings: context.config.keyCache, client: context.httpClient)
        let keys = try cache.keys(url: keysUrl, now: context.now)
        do {
            return try TokenVerifier.verify(jws, keys: keys, policy: policy, now: context.now)
        } catch .unknownKeyID {
            guard let fresh = try cache.refetchForUnknownKey(url: keysUrl, now: context.now) else {
                throw TokenError.unknownKeyID(nil).frontdoorError
            }
            do {
                return try TokenVerifier.verify(jws, keys: fresh, policy: policy, now: context.now)
            } catch {
                throw error.frontdoorError
            }
        } catch {
            throw error.frontdoorError
        }
    }
}
