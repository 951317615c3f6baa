/// Why a new password was refused (422 `invalid_password`'s `reason`, DESIGN rule 19). Unknown
/// reasons are kept as they came.
public struct PasswordRefusal: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    public static let tooShort = PasswordRefusal(rawValue: "too_short")
    public static let tooLong = PasswordRefusal(rawValue: "too_long")
    public static let common = PasswordRefusal(rawValue: "common")
    public static let repetitive = PasswordRefusal(rawValue: "repetitive")
    public static let containsContext = PasswordRefusal(rawValue: "contains_context")
}
