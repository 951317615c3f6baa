/// Our allow-list. A token's `alg` is only looked up here; it never chooses anything else.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256, RSA key.
    case rs256 = "RS256"
    /// ECDSA P-256 with SHA-256, signature as 64-byte r||s.
    case es256 = "ES256"
}
