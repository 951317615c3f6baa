import Foundation

/// The server's error body (`{"error", "message", ...}`) turned into `FrontdoorError`.
extension FrontdoorError {
    private struct Body: Decodable {
        let error: String
        let message: String?
        let ticket: String?
        let email: String?
        let methods: [String]?
        let suggestion: String?
        let reason: PasswordRefusal?
        let minLength: Int?
        let startOver: Bool?
    }

    /// The error an answer of `status` with `body` stands for; `retryAfter` is its `Retry-After`.
    init(status: Int, body: Data, retryAfter: String?) {
        guard let answer = try? JSONDecoder().decode(Body.self, from: body) else {
            self = .unreadableAnswer(status: status)
            return
        }
        switch answer.error {
        case "invalid_request": self = .invalidRequest
        case "invalid_ticket": self = .invalidTicket
        case "invalid_token": self = .invalidToken
        case "invalid_credentials": self = .invalidCredentials
        case "invalid_code": self = .invalidCode
        case "unauthorized": self = .unauthorized
        case "email_not_verified": self = .emailNotVerified
        case "account_disabled": self = .accountDisabled
        case "method_not_allowed": self = .methodNotAllowed
        case "not_found": self = .notFound
        case "email_taken": self = .emailTaken
        case "credential_taken": self = .credentialTaken
        case "too_many_passkeys": self = .tooManyPasskeys
        case "proof_required":
            guard let ticket = answer.ticket, let email = answer.email else {
                self = .unreadableAnswer(status: status)
                return
            }
            self = .proofRequired(ticket: ticket, email: email, methods: (answer.methods ?? []).map(ProofMethod.init))
        case "payload_too_large": self = .payloadTooLarge
        case "unsupported_media_type": self = .unsupportedMediaType
        case "invalid_email": self = .invalidEmail(suggestion: answer.suggestion)
        case "invalid_password": self = .invalidPassword(reason: answer.reason, minLength: answer.minLength)
        case "reauthentication_required":
            self = .reauthenticationRequired(methods: (answer.methods ?? []).map(Provider.init))
        case "account_mismatch": self = .accountMismatch
        case "identity_taken": self = .identityTaken
        case "provider_linked": self = .providerLinked
        case "last_sign_in_method": self = .lastSignInMethod
        case "no_password": self = .noPassword
        case "password_exists": self = .passwordExists
        case "rate_limited": self = .rateLimited(retryAfter: retryAfter.flatMap(Self.seconds))
        case "too_many_attempts": self = .tooManyAttempts
        case "upstream_unavailable": self = .upstreamUnavailable(startOver: answer.startOver == true)
        case "internal": self = .internal
        default: self = .unknown(code: answer.error, status: status, message: answer.message)
        }
    }

    /// `Retry-After` as delay-seconds (RFC 9110 10.2.3); the server never sends a date.
    private static func seconds(_ header: String) -> Int? {
        Int(header.trimmingCharacters(in: .whitespaces)).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The stable code of a server's case, as the server spells it; nil for the phone's own failures.
    public var code: String? {
        switch self {
        case .invalidRequest: "invalid_request"
        case .invalidTicket: "invalid_ticket"
        case .invalidToken: "invalid_token"
        case .invalidCredentials: "invalid_credentials"
        case .invalidCode: "invalid_code"
        case .unauthorized: "unauthorized"
        case .emailNotVerified: "email_not_verified"
        case .accountDisabled: "account_disabled"
        case .methodNotAllowed: "method_not_allowed"
        case .notFound: "not_found"
        case .emailTaken: "email_taken"
        case .credentialTaken: "credential_taken"
        case .tooManyPasskeys: "too_many_passkeys"
        case .proofRequired: "proof_required"
        case .payloadTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .invalidEmail: "invalid_email"
        case .invalidPassword: "invalid_password"
        case .reauthenticationRequired: "reauthentication_required"
        case .accountMismatch: "account_mismatch"
        case .identityTaken: "identity_taken"
        case .providerLinked: "provider_linked"
        case .lastSignInMethod: "last_sign_in_method"
        case .noPassword: "no_password"
        case .passwordExists: "password_exists"
        case .rateLimited: "rate_limited"
        case .tooManyAttempts: "too_many_attempts"
        case .upstreamUnavailable: "upstream_unavailable"
        case .internal: "internal"
        case .unknown(let code, _, _): code
        case .unreachable, .cancelled, .unreadableAnswer, .sessionStore, .appleAccountNeeded, .authorizationFailed: nil
        }
    }
}
