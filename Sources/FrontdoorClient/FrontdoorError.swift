/// Every way a call can fail: one case per stable code of the server's contract (DESIGN.md, "Codes
/// to keep stable"), carrying the data the server sends with it; `unknown` for a code this client
/// does not know yet, kept as it came; and the few failures that happen on the phone (no answer,
/// an answer that is not the contract's, the session store, Apple's sheets). `sentence` says each
/// in one plain sentence.
public enum FrontdoorError: Error, Equatable, Sendable {
    case invalidRequest
    case invalidTicket
    case invalidToken
    case invalidCredentials
    case invalidCode
    case unauthorized
    case emailNotVerified
    case accountDisabled
    case methodNotAllowed
    case notFound
    case emailTaken
    case credentialTaken
    case tooManyPasskeys
    /// A sign-in would join an account whose address must be proven first: `verify-email` with
    /// the ticket, by the account's password or a mailed code (`methods` says which apply).
    case proofRequired(ticket: String, email: String, methods: [ProofMethod])
    case payloadTooLarge
    case unsupportedMediaType
    /// `suggestion` is the address the server thinks was meant (a slip such as `gmial.com`);
    /// nil when it is not an address at all. Sending it again with `acceptAsTyped` keeps it.
    case invalidEmail(suggestion: String?)
    case invalidPassword(reason: PasswordRefusal?, minLength: Int?)
    /// The change needs a recent sign-in: sign in again with one of `methods` while signed in
    /// (`reauthenticating: true`), then repeat the change.
    case reauthenticationRequired(methods: [Provider])
    case accountMismatch
    case identityTaken
    case providerLinked
    case lastSignInMethod
    case noPassword
    case passwordExists
    /// `retryAfter`: seconds, from the `Retry-After` header.
    case rateLimited(retryAfter: Int?)
    case tooManyAttempts
    /// `startOver`: begin a new sign-in (a new nonce, a new Apple sheet) rather than sending the
    /// same token again, which the server invites when it is false.
    case upstreamUnavailable(startOver: Bool)
    case `internal`
    /// A code this client does not know, with the server's own sentence.
    case unknown(code: String, status: Int, message: String?)

    /// The server could not be reached, or did not answer in time (nothing is known to have happened).
    case unreachable(String)
    /// The caller's task was cancelled (the screen went away, a newer request replaced it): not an
    /// outage, and nothing to tell the person. Swift's `CancellationError`, in this typed error.
    case cancelled
    /// An answer that is not the contract's (a proxy's error page, say).
    case unreadableAnswer(status: Int)
    /// The session store (the Keychain) failed to keep or read the session.
    case sessionStore(String)
    /// Apple's sheet said the device is signed in to no Apple Account (error 1000 after its
    /// "sign in to your Apple Account" sheet was closed).
    case appleAccountNeeded
    /// Apple's or the passkey sheet failed (an `ASAuthorizationError` code other than a cancel).
    case authorizationFailed(code: Int)
}
