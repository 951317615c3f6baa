import Foundation
import Testing
@testable import FrontdoorClient
import Shared

/// Every stable code has its case, and the data it carries arrives.
@Suite struct ErrorCodeTests {
    /// The client's case for each of the server's codes. The switch has no `default`: a code added
    /// to the server's `FrontdoorError.Code` stops this file compiling until it has its case here
    /// and in the client.
    static func clientCase(_ code: Shared.FrontdoorError.Code) -> FrontdoorClient.FrontdoorError {
        switch code {
        case .invalidRequest: .invalidRequest
        case .invalidTicket: .invalidTicket
        case .invalidToken: .invalidToken
        case .invalidCredentials: .invalidCredentials
        case .invalidCode: .invalidCode
        case .unauthorized: .unauthorized
        case .emailNotVerified: .emailNotVerified
        case .accountDisabled: .accountDisabled
        case .methodNotAllowed: .methodNotAllowed
        case .notFound: .notFound
        case .emailTaken: .emailTaken
        case .credentialTaken: .credentialTaken
        case .tooManyPasskeys: .tooManyPasskeys
        case .reauthenticationRequired: .reauthenticationRequired(methods: [])
        case .accountMismatch: .accountMismatch
        case .identityTaken: .identityTaken
        case .providerLinked: .providerLinked
        case .lastSignInMethod: .lastSignInMethod
        case .noPassword: .noPassword
        case .passwordExists: .passwordExists
        case .proofRequired: .proofRequired(ticket: "t", email: "e", methods: [])
        case .payloadTooLarge: .payloadTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .invalidEmail: .invalidEmail(suggestion: nil)
        case .invalidPassword: .invalidPassword(reason: nil, minLength: nil)
        case .rateLimited: .rateLimited(retryAfter: nil)
        case .tooManyAttempts: .tooManyAttempts
        case .upstreamUnavailable: .upstreamUnavailable(startOver: false)
        case .internal: .internal
        }
    }

    /// The server's own codes, each from an answer the server's own error type writes.
    static let serverCodes: [Shared.FrontdoorError.Code] = [
        .invalidRequest, .invalidTicket, .invalidToken, .invalidCredentials, .invalidCode, .unauthorized,
        .emailNotVerified, .accountDisabled, .methodNotAllowed, .notFound, .emailTaken, .credentialTaken,
        .tooManyPasskeys, .proofRequired, .payloadTooLarge, .unsupportedMediaType, .invalidEmail, .invalidPassword,
        .rateLimited, .tooManyAttempts, .upstreamUnavailable, .internal, .reauthenticationRequired, .accountMismatch,
        .identityTaken, .providerLinked, .lastSignInMethod, .noPassword, .passwordExists,
    ]

    /// DESIGN.md's "Codes to keep stable" (and the passkeys' `credential_taken`), including those
    /// whose server half may not be in this tree yet.
    static let designCodes = [
        "invalid_request", "invalid_ticket", "invalid_token", "invalid_credentials", "invalid_code", "unauthorized",
        "email_not_verified", "account_disabled", "method_not_allowed", "email_taken", "payload_too_large",
        "unsupported_media_type", "invalid_email", "invalid_password", "not_found", "too_many_passkeys",
        "reauthentication_required", "account_mismatch", "identity_taken", "provider_linked", "last_sign_in_method",
        "no_password", "password_exists", "rate_limited", "too_many_attempts", "upstream_unavailable", "internal",
        "proof_required", "credential_taken",
    ]

    static func decode(_ status: Int, _ json: String, retryAfter: String? = nil) -> FrontdoorClient.FrontdoorError {
        FrontdoorClient.FrontdoorError(status: status, body: Data(json.utf8), retryAfter: retryAfter)
    }

    @Test func everyServerCodeHasItsCase() {
        for code in Self.serverCodes {
            let error = Shared.FrontdoorError(code, "A sentence.", extra: code == .proofRequired
                ? [("ticket", "t"), ("email", "e"), ("methods", .array([]))] : [])
            let decoded = Self.decode(error.status, error.extra.isEmpty
                ? #"{"error":"\#(code.rawValue)","message":"A sentence."}"#
                : #"{"error":"proof_required","message":"A sentence.","ticket":"t","email":"e","methods":[]}"#)
            #expect(decoded == Self.clientCase(code), "\(code.rawValue)")
            #expect(decoded.code == code.rawValue)
        }
    }

    @Test func everyDesignCodeHasItsCase() {
        for code in Self.designCodes {
            let body = code == "proof_required"
                ? #"{"error":"proof_required","ticket":"t","email":"e","methods":["password"]}"#
                : #"{"error":"\#(code)","message":"x"}"#
            let decoded = Self.decode(400, body)
            #expect(decoded.code == code)
            if case .unknown = decoded { Issue.record("\(code) fell through to unknown") }
            #expect(!decoded.sentence.isEmpty)
        }
    }

    @Test func theDataEachCodeCarriesArrives() {
        #expect(Self.decode(409, #"{"error":"proof_required","message":"m","ticket":"tk","email":"ada@example.com","methods":["password","email_code"]}"#)
            == .proofRequired(ticket: "tk", email: "ada@example.com", methods: [.password, .emailCode]))
        #expect(Self.decode(429, #"{"error":"rate_limited","message":"m"}"#, retryAfter: " 120 ") == .rateLimited(retryAfter: 120))
        #expect(Self.decode(429, #"{"error":"rate_limited","message":"m"}"#) == .rateLimited(retryAfter: nil))
        #expect(Self.decode(422, #"{"error":"invalid_email","message":"m","suggestion":"ada@gmail.com"}"#)
            == .invalidEmail(suggestion: "ada@gmail.com"))
        #expect(Self.decode(422, #"{"error":"invalid_password","message":"m","reason":"too_short","minLength":15}"#)
            == .invalidPassword(reason: .tooShort, minLength: 15))
        #expect(Self.decode(422, #"{"error":"invalid_password","message":"m","reason":"new_reason"}"#)
            == .invalidPassword(reason: PasswordRefusal(rawValue: "new_reason"), minLength: nil))
        #expect(Self.decode(403, #"{"error":"reauthentication_required","message":"m","methods":["apple","passkey"]}"#)
            == .reauthenticationRequired(methods: [.apple, .passkey]))
        #expect(Self.decode(503, #"{"error":"upstream_unavailable","message":"m","startOver":true}"#) == .upstreamUnavailable(startOver: true))
        #expect(Self.decode(503, #"{"error":"upstream_unavailable","message":"m"}"#) == .upstreamUnavailable(startOver: false))
    }

    /// A code this client does not know is kept as it came; an answer that is not the contract's says so.
    @Test func unknownAndUnreadableAnswers() {
        #expect(Self.decode(418, #"{"error":"new_code","message":"A new sentence."}"#)
            == .unknown(code: "new_code", status: 418, message: "A new sentence."))
        #expect(Self.decode(502, "<html>Bad Gateway</html>") == .unreadableAnswer(status: 502))
        #expect(Self.decode(409, #"{"error":"proof_required","message":"no ticket"}"#) == .unreadableAnswer(status: 409))
    }

    /// Backing out of a sheet (1001) is nothing; closing Apple's "sign in to your Apple Account"
    /// sheet (1000) is one plain sentence; anything else says it did not work.
    @Test func applesSheetCodes() {
        #expect(AuthorizationOutcome.failure(code: 1001, appleSignIn: true) == nil)
        #expect(AuthorizationOutcome.failure(code: 1001, appleSignIn: false) == nil)
        #expect(AuthorizationOutcome.failure(code: 1000, appleSignIn: true) == .appleAccountNeeded)
        #expect(AuthorizationOutcome.failure(code: 1000, appleSignIn: false) == .authorizationFailed(code: 1000))
        #expect(AuthorizationOutcome.failure(code: 1004, appleSignIn: true) == .authorizationFailed(code: 1004))
        #expect(FrontdoorClient.FrontdoorError.appleAccountNeeded.sentence.contains("Settings"))
    }
}
