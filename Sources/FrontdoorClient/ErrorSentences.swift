import Foundation

/// One plain sentence for each failure (DESIGN rule 21), in English: an app with other languages
/// switches on the case itself. A person who backed out of a sheet never sees one: that is no error.
extension FrontdoorError: LocalizedError {
    public var errorDescription: String? { sentence }

    public var sentence: String {
        switch self {
        case .invalidRequest, .methodNotAllowed, .unsupportedMediaType, .unreadableAnswer, .unknown:
            "Something went wrong. Please try again, or update the app."
        case .invalidTicket: "That step took too long. Please start again."
        case .invalidToken: "Signing in did not work. Please try again."
        case .invalidCredentials: "That email address and password do not match."
        case .invalidCode: "That code is not right, or it is too old. Please check it, or ask for a new one."
        case .unauthorized: "Please sign in again."
        case .emailNotVerified: "Please confirm your email address first."
        case .accountDisabled: "This account is disabled. Please contact the app's support."
        case .notFound: "That is no longer there."
        case .emailTaken: "There is already an account with that email address. Please sign in instead."
        case .credentialTaken: "This passkey is already saved for an account."
        case .tooManyPasskeys: "You have the most passkeys an account can have. Remove one first."
        case .proofRequired(_, let email, _): "You already have an account with \(email). Please show it is yours."
        case .payloadTooLarge: "That is too long."
        case .invalidEmail(let suggestion?): "Did you mean \(suggestion)?"
        case .invalidEmail(nil): "That does not look like an email address."
        case .invalidPassword(let reason, let minLength): Self.passwordSentence(reason, minLength)
        case .reauthenticationRequired: "For your safety, please sign in again first."
        case .accountMismatch: "That is a different account. Please use the one you are signed in with."
        case .identityTaken: "That sign-in already belongs to another account."
        case .providerLinked: "This account already has one of those."
        case .lastSignInMethod: "This is your only way to sign in, so it cannot be removed."
        case .noPassword: "This account has no password yet."
        case .passwordExists: "This account already has a password."
        case .rateLimited: "Too many tries. Please wait a little and try again."
        case .tooManyAttempts: "Too many wrong codes. Please ask for a new code."
        case .upstreamUnavailable(true): "Signing in did not finish. Please sign in again."
        case .upstreamUnavailable(false): "The sign-in service did not answer. Please try again."
        case .internal: "Something went wrong on our side. Please try again later."
        case .unreachable: "There is no connection. Please check your internet and try again."
        // Nobody asked for anything any more: an app shows nothing for it.
        case .cancelled: "This was stopped."
        case .sessionStore: "This phone could not keep you signed in. Please try again."
        case .appleAccountNeeded: "To continue with Apple, first sign in to your Apple Account in the Settings app."
        case .authorizationFailed: "That did not work this time. Please try again."
        }
    }

    private static func passwordSentence(_ reason: PasswordRefusal?, _ minLength: Int?) -> String {
        switch reason {
        case .tooShort?: "Please use a longer password" + (minLength.map { ": at least \($0) characters." } ?? ".")
        case .tooLong?: "That password is too long."
        case .common?: "That password is too easy to guess. Please choose another."
        case .repetitive?: "That password repeats itself too much. Please choose another."
        case .containsContext?: "Please choose a password without your email address or the app's name in it."
        default: "Please choose another password."
        }
    }
}
