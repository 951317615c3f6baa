/// What an issuer's tokens must say to be accepted (DESIGN.md rule 1).
///
/// The lists are arrays searched one by one, not sets: they hold a few names, and a process's
/// first Set<String> costs ~100 K instructions of run-time type set-up.
public struct ClaimsPolicy: Sendable {
    /// `iss` must be one of these, exactly.
    public var issuers: [String]
    /// `aud` must be one of these, or an array of nothing but these (OIDC Core 3.1.3.7).
    public var audiences: [String]
    /// Seconds of disagreement between our clock and the issuer's that `exp`, `iat` and `nbf` allow.
    public var clockSkew: Int64 = 60
    /// The longest `exp - iat` accepted, in seconds: a day and a minute. Apple's identity tokens
    /// live exactly 24 hours (`exp - iat = 86400`, every dated sample since 2021), and an issuer
    /// that rounds its clock may add a second; the minute is DESIGN.md's slack (rule 1).
    public var maxLifetime: Int64 = 86_400 + 60

    public init(issuers: [String], audiences: [String]) {
        self.issuers = issuers
        self.audiences = audiences
    }
}

/// The claims `TokenVerifier.checkClaims` checked, in the types we use.
public struct CheckedClaims: Sendable, Equatable {
    public let subject: String
    public let issuer: String
    /// `aud` as sent: one member for a string, every member for an array.
    public let audiences: [String]
    public let issuedAt: UnixTime
    public let expiresAt: UnixTime
    public let notBefore: UnixTime?
    /// nil when absent.
    public let email: String?
    /// True only for `true` or `"true"`; false for `false`, `"false"` or absent.
    public let emailVerified: Bool
}
