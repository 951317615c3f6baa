/// The error every endpoint answers with. `code` is the stable contract (DESIGN.md); `message`
/// is the sentence the client sees; `detail` goes to stderr only and never holds a token,
/// password, code or email.
public struct FrontdoorError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case invalidRequest = "invalid_request"
        case invalidTicket = "invalid_ticket"
        case invalidToken = "invalid_token"
        case invalidCredentials = "invalid_credentials"
        case invalidCode = "invalid_code"
        case unauthorized
        case emailNotVerified = "email_not_verified"
        case accountDisabled = "account_disabled"
        case methodNotAllowed = "method_not_allowed"
        case notFound = "not_found"
        case emailTaken = "email_taken"
        case credentialTaken = "credential_taken"
        case tooManyPasskeys = "too_many_passkeys"
        case reauthenticationRequired = "reauthentication_required"
        case accountMismatch = "account_mismatch"
        case identityTaken = "identity_taken"
        case providerLinked = "provider_linked"
        case lastSignInMethod = "last_sign_in_method"
        case noPassword = "no_password"
        case passwordExists = "password_exists"
        case proofRequired = "proof_required"
        case payloadTooLarge = "payload_too_large"
        case unsupportedMediaType = "unsupported_media_type"
        case invalidEmail = "invalid_email"
        case invalidPassword = "invalid_password"
        case rateLimited = "rate_limited"
        case tooManyAttempts = "too_many_attempts"
        case upstreamUnavailable = "upstream_unavailable"
        case `internal`
    }

    public let code: Code
    public let message: String
    public var detail: String?
    /// Members added to the JSON body beside `error` and `message` (a ticket, a suggestion).
    public var extra: [(String, JSONValue)]
    public var retryAfterSeconds: Int?
    /// An outbound call that failed before any byte of its request can have reached the server
    /// (no address, connection refused, the TLS handshake failed, a connect time-out). False when
    /// the request may have arrived, which is what a caller must assume by default.
    public var requestNeverSent = false

    public init(
        _ code: Code, _ message: String, detail: String? = nil, extra: [(String, JSONValue)] = [],
        retryAfterSeconds: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.detail = detail
        self.extra = extra
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The one place a code becomes an HTTP status.
    public var status: Int {
        switch code {
        case .invalidRequest, .invalidTicket: 400
        case .invalidToken, .invalidCredentials, .invalidCode, .unauthorized: 401
        case .emailNotVerified, .accountDisabled, .reauthenticationRequired: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .emailTaken, .credentialTaken, .tooManyPasskeys, .proofRequired, .accountMismatch, .identityTaken,
            .providerLinked, .lastSignInMethod, .noPassword, .passwordExists:
            409
        case .payloadTooLarge: 413
        case .unsupportedMediaType: 415
        case .invalidEmail, .invalidPassword: 422
        case .rateLimited, .tooManyAttempts: 429
        case .internal: 500
        case .upstreamUnavailable: 503
        }
    }

    public var description: String {
        "\(code.rawValue): \(message)" + (detail.map { " (\($0))" } ?? "")
    }

    public static func invalidRequest(_ message: String, detail: String? = nil) -> FrontdoorError {
        FrontdoorError(.invalidRequest, message, detail: detail)
    }

    /// One message for every token failure: the reason goes to stderr, never to the client.
    public static func invalidToken(_ detail: String) -> FrontdoorError {
        FrontdoorError(.invalidToken, "The sign-in token was not accepted.", detail: detail)
    }

    public static func upstream(_ detail: String) -> FrontdoorError {
        FrontdoorError(.upstreamUnavailable, "A sign-in service did not answer. Please try again.", detail: detail)
    }

    /// Firebase may have taken the Apple credential (it refuses one it has accepted), so the
    /// phone must begin a new Apple sign-in instead of resending the same token and nonce.
    public static func startOver(_ detail: String) -> FrontdoorError {
        FrontdoorError(
            .upstreamUnavailable, "A sign-in service did not answer. Please sign in again.", detail: detail,
            extra: [("startOver", true)])
    }

    /// Whether the answer carries `"startOver": true`.
    public var startsOver: Bool { extra.contains { $0.0 == "startOver" && $0.1 == true } }

    /// Any sign-in of an account the operator disabled (rule 14), said only to someone who proved
    /// they are its person: a wrong password or code is answered as for any account.
    public static var accountDisabled: FrontdoorError {
        FrontdoorError(.accountDisabled, "This account is disabled. Please contact the app's support.")
    }

    public static func `internal`(_ detail: String) -> FrontdoorError {
        FrontdoorError(.internal, "Something went wrong on our side.", detail: detail)
    }
}

extension FrontdoorError: Equatable {
    public static func == (lhs: FrontdoorError, rhs: FrontdoorError) -> Bool { lhs.code == rhs.code }
}
