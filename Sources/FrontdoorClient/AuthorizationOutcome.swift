/// What a finished Apple sheet (Sign in with Apple, or a passkey's) means, from its
/// `ASAuthorizationError` code. The Apple-only files ask this; the rule lives here, where the
/// tests on Linux reach it.
enum AuthorizationOutcome {
    /// `ASAuthorizationError.canceled`: the person backed out.
    static let canceled = 1001
    /// `ASAuthorizationError.unknown`: also what Apple answers when the person closes the "sign in
    /// to your Apple Account" sheet of a device signed in to none.
    static let unknown = 1000
    /// `ASAuthorizationError.invalidResponse`: used here for a credential of the wrong kind.
    static let invalidResponse = 1002

    /// Nil when the person backed out: nothing happened, and nothing is shown (rule 21). Never
    /// retried on its own either: the person chose.
    static func failure(code: Int, appleSignIn: Bool) -> FrontdoorError? {
        switch code {
        case canceled: nil
        case unknown where appleSignIn: .appleAccountNeeded
        default: .authorizationFailed(code: code)
        }
    }
}
