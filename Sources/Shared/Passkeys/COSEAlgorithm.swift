/// The COSE algorithms a passkey may use here (IANA "COSE Algorithms"): the two every platform
/// authenticator offers, and the two frontdoor's `pubKeyCredParams` list (DESIGN.md rule 17).
public enum COSEAlgorithm: Int64, Sendable, CaseIterable {
    /// ECDSA with SHA-256 on P-256 (COSE EC2 key, crv 1); WebAuthn signatures are ASN.1 DER.
    case es256 = -7
    /// RSASSA-PKCS1-v1_5 with SHA-256 (COSE RSA key, RFC 8812).
    case rs256 = -257

    /// The same verification in the token layer's terms (`PublicKey.verify`).
    var jws: JWSAlgorithm {
        switch self {
        case .es256: .es256
        case .rs256: .rs256
        }
    }
}
