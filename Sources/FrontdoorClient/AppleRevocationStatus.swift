/// What a deletion did about Sign in with Apple (`delete-account`'s `appleRevocation`).
public struct AppleRevocationStatus: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    /// Revoked after the answer, with the fresh Apple authorization the deletion sent.
    public static let scheduled = AppleRevocationStatus(rawValue: "scheduled")
    /// The account had Apple but no usable fresh authorization came: tell the person where
    /// Settings lets them remove the app (Apple ID → Sign-In & Security → Sign in with Apple).
    public static let notRequested = AppleRevocationStatus(rawValue: "not_requested")
    public static let notApplicable = AppleRevocationStatus(rawValue: "not_applicable")
    /// The fresh authorization was another Apple account's: deleted, nothing revoked.
    public static let identityMismatch = AppleRevocationStatus(rawValue: "identity_mismatch")
}
