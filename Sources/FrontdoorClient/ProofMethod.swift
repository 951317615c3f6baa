/// How a person may prove an address before a sign-in joins its account (409 `proof_required`'s
/// `methods`): the account's password, or a code mailed to the address. Unknown names are kept.
public struct ProofMethod: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    public static let password = ProofMethod(rawValue: "password")
    public static let emailCode = ProofMethod(rawValue: "email_code")
}
