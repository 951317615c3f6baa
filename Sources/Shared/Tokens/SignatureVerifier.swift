/// Header members that would let the token choose its own key or change what is signed. `crit`
/// is refused whatever it lists: we implement no extension. `b64` (RFC 7797) belongs in `crit`.
let forbiddenHeaderNames = ["jku", "x5u", "jwk", "x5c", "crit", "b64"]

/// The signature layer: the header's `alg` looked up in our allow-list, forbidden headers
/// refused, a key chosen from `keys` by `kid`, that key's `use`/`key_ops`/`alg` and type honoured,
/// and the signature checked with `EVP_DigestVerify`.
///
/// Only keys with the header's `kid` are tried; a token without one is refused (Google, Apple and
/// Firebase always send it, and Google's own libraries refuse a token that lacks it).
public func verifySignature(of jws: CompactJWS, with keys: JSONWebKeySet) throws(TokenError) {
    let (algorithm, kid) = try checkedHeader(jws.header)
    let named = keys.keys.filter { $0.kid == kid }
    if named.isEmpty {
        throw keys.skippedKeyIDs.contains(kid) ? .noUsableKey : .unknownKeyID(kid)
    }
    let usable = named.filter { $0.allows(algorithm) }
    guard !usable.isEmpty else { throw .noUsableKey }
    for jwk in usable where jwk.key.verify(algorithm, signature: jws.signature, message: jws.signingInput) {
        return
    }
    throw .badSignature
}

/// The algorithm and `kid` a header asks for, after the allow-list and forbidden-member checks.
func checkedHeader(_ header: JSONValue) throws(TokenError) -> (JWSAlgorithm, String) {
    guard let algValue = header["alg"] else { throw .malformed("header has no alg") }
    guard let alg = algValue.stringValue else { throw .malformed("header alg not a string") }
    guard let algorithm = JWSAlgorithm(rawValue: alg) else { throw .unsupportedAlgorithm(alg) }
    for name in forbiddenHeaderNames where header[name] != nil {
        throw .forbiddenHeader(name)
    }
    guard let kidValue = header["kid"] else { throw .missingKeyID }
    guard let kid = kidValue.stringValue else { throw .malformed("header kid not a string") }
    return (algorithm, kid)
}
