/// A person as a provider vouches for them, after their token has been verified.
public struct ProviderIdentity: Sendable {
    public enum Provider: String, Sendable, CaseIterable {
        case google, apple

        /// For messages the person reads.
        public var displayName: String {
            switch self {
            case .google: "Google"
            case .apple: "Apple"
            }
        }
    }

    public let provider: Provider
    /// The provider's own subject: what the person is remembered by (rule 2).
    public let subject: String
    public let email: String?
    public let emailVerified: Bool
    /// Whether the provider speaks for the mailbox itself, so a verified email may join an
    /// existing verified account without further proof (rule 3).
    public let authoritativeForEmail: Bool
    /// A display name, stored only when an account is created.
    public let name: String?

    public init(
        provider: Provider, subject: String, email: String?, emailVerified: Bool, authoritativeForEmail: Bool,
        name: String? = nil
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.authoritativeForEmail = authoritativeForEmail
        self.name = name
    }

    /// The provider's address as it is stored and matched: trimmed and in NFC. nil when there is
    /// none, or when it is not an address by our rules or holds characters that fold into ASCII
    /// (`EmailValidation`): such an address is never stored, matched or mailed.
    public var usableEmail: String? {
        guard let email, case .success(let address) = EmailValidation.normalise(email, acceptAsTyped: true) else {
            return nil
        }
        return address
    }
}
