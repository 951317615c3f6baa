/// Why a token was refused. Every case becomes the same `invalid_token` answer; the case and its
/// short reason go to stderr only, so none of them may carry the token or anything personal.
public enum TokenError: Error, Sendable, Equatable {
    /// Shape, base64url, JSON, sizes, member types.
    case malformed(String)
    /// Anything but RS256 / ES256 (the value is the header's, shortened and sanitised for logs).
    case unsupportedAlgorithm(String)
    /// `jku`, `x5u`, `jwk`, `x5c`, `crit` (we understand no extension) or `b64`.
    case forbiddenHeader(String)
    /// No key in the set has this `kid` (nil: the token names none and the set is empty); the
    /// caller may refetch the key set once.
    case unknownKeyID(String?)
    /// The key exists but its kty/crv/use/key_ops/alg does not allow this algorithm, or we
    /// skipped it when loading the set.
    case noUsableKey
    case badSignature
    /// A claims check failed: which one, never a value.
    case claim(String)

    public var frontdoorError: FrontdoorError { .invalidToken(detail) }

    /// One line for stderr.
    public var detail: String {
        switch self {
        case .malformed(let why): "token malformed: \(why)"
        case .unsupportedAlgorithm(let alg): "token alg not allowed: \(TokenError.loggable(alg))"
        case .forbiddenHeader(let name): "token header not allowed: \(name)"
        case .unknownKeyID(let kid): "token kid unknown: \(kid.map(TokenError.loggable) ?? "(none)")"
        case .noUsableKey: "token key not usable for its alg"
        case .badSignature: "token signature invalid"
        case .claim(let which): "token claim refused: \(which)"
        }
    }

    /// Header values come from whoever sent the token: keep them short and on one line.
    static func loggable(_ value: String) -> String {
        let allowed = value.unicodeScalars.prefix(40).map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x21 && scalar.value < 0x7F ? Character(scalar) : "?"
        }
        return String(allowed) + (value.unicodeScalars.count > 40 ? "…" : "")
    }
}
