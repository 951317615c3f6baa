/// Why a token was refused. Every case becomes the same `invalid_token` answer; the case and its
/// short reason go to stderr only, so none of them may carry the token or anything personal.
public enum TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Shape, base64url, JSON, sizes, member types.
    case malformed(String)
    /// Anything but RS256 / ES256 (the value is the header's, shortened and sanitised for logs).
    case unsupportedAlgorithm(String)
    /// `jku`, `x5u`, `jwk`, `x5c`, `crit` (we understand no extension) or `b64`.
    case forbiddenHeader(String)
    /// No key in the set has this `kid`; the caller may refetch the key set once. (The value is
    /// for tests: it never reaches a log.)
    case unknownKeyID(String?)
    /// The header names no key. Google, Apple and Firebase always send `kid`, and Google's own
    /// libraries refuse a token without one.
    case missingKeyID
    /// The key exists but its kty/crv/use/key_ops/alg does not allow this algorithm, or we
    /// skipped it when loading the set.
    case noUsableKey
    case badSignature
    /// A claims check failed: which one, never a value.
    case claim(String)

    public var frontdoorError: FrontdoorError { .invalidToken(detail) }

    public var description: String { detail }

    /// One line for stderr: the kind of refusal, never a value the sender chose (beyond a
    /// registered algorithm name).
    public var detail: String {
        switch self {
        case .malformed(let why): "token malformed: \(why)"
        case .unsupportedAlgorithm(let alg): "token alg not allowed: \(TokenError.loggable(alg))"
        case .forbiddenHeader(let name): "token header not allowed: \(name)"
        case .unknownKeyID: "token kid unknown"
        case .missingKeyID: "token header has no kid"
        case .noUsableKey: "token key not usable for its alg"
        case .badSignature: "token signature invalid"
        case .claim(let which): "token claim refused: \(which)"
        }
    }

    /// JWS algorithm names of the IANA registry (RFC 7518) are worth an operator's reading; any
    /// other value came from whoever sent the token and is not logged.
    static func loggable(_ alg: String) -> String {
        registeredAlgorithms.contains(alg) ? alg : "(unregistered)"
    }

    static let registeredAlgorithms = [
        "none", "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384",
        "PS512", "EdDSA", "ES256K",
    ]
}
