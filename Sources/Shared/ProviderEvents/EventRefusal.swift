/// Why a provider's event was refused (rule 16). Each receiver answers these in its provider's
/// own terms (Apple: 400 `invalid_token`; Google: RFC 8935's `err` codes); the reason goes to
/// stderr only and never holds a value from the token.
public enum EventRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a notification or a SET, or a claim of the wrong shape: RFC 8935's `invalid_request`.
    case request(String)
    /// The algorithm, the key or the signature: `invalid_key`.
    case key(String)
    /// `iss` is not the provider's: `invalid_issuer`.
    case issuer
    /// `aud` names none of our ids: `invalid_audience`.
    case audience
    /// `iat` is older than a receiver keeps the record of an event (`ProviderEventStore`), so a
    /// repeat could no longer be told: RFC 8935's `invalid_request`.
    case stale
    /// Nothing was wrong with the event: the keys or the store could not be had. Answered as
    /// that error is (503 for keys out of reach), which both providers retry.
    case failed(FrontdoorError)

    /// The signature layer's and the claims layer's refusals, by what they concern.
    init(_ error: TokenError) {
        switch error {
        case .malformed: self = .request(error.detail)
        case .unsupportedAlgorithm, .forbiddenHeader, .unknownKeyID, .missingKeyID, .noUsableKey, .badSignature:
            self = .key(error.detail)
        case .claim("iss"): self = .issuer
        case .claim("aud"): self = .audience
        case .claim: self = .request(error.detail)
        }
    }

    public var description: String {
        switch self {
        case .request(let why), .key(let why): why
        case .issuer: "token claim refused: iss"
        case .audience: "token claim refused: aud"
        case .stale: "token claim refused: iat: older than an event's record is kept"
        case .failed(let error): error.detail ?? error.message
        }
    }

    /// RFC 8935 section 2.4's error code (the IANA "Security Event Token Error Codes").
    var riscCode: String {
        switch self {
        case .request, .stale, .failed: "invalid_request"
        case .key: "invalid_key"
        case .issuer: "invalid_issuer"
        case .audience: "invalid_audience"
        }
    }
}
