/// A registration response, as the phone's `PublicKeyCredential` carries it (decoded from
/// base64url by `PasskeyCredentialJSON`).
public struct RegistrationResponse: Sendable {
    /// The credential's `rawId`: it must be the id in the attested credential data.
    public var credentialId: [UInt8]
    public var clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]
    /// `getTransports()`, as sent; `PasskeyTransports.kept` decides what is stored.
    public var transports: [String]

    public init(credentialId: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8], transports: [String] = []) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// What a verified registration gives the store: L3 section 7.1's credential record.
public struct RegisteredPasskey: Sendable, Equatable {
    public let credentialId: [UInt8]
    /// The COSE_Key as the authenticator sent it; `CredentialPublicKey.parse` reads it back.
    public let publicKey: [UInt8]
    public let algorithm: COSEAlgorithm
    public let signCount: UInt32
    /// The record's `uvInitialized`.
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
    public let aaguid: [UInt8]
    /// The known transports sent, without repeats.
    public let transports: [String]
    /// The allowed origin that made it: `https://<rpId>` (an iPhone, or a browser) or one
    /// Android app's signing key.
    public let origin: String
}

public enum PasskeyRegistration {
    /// L3 section 7.1 from reading the client data to the credential id's length, for attestation
    /// `none`. The step after (the credential id not yet registered for anyone) and storing the
    /// record are the caller's, in the transaction that takes the ceremony. `requireUserVerification` is true wherever frontdoor verifies
    /// (rule 17); the spec's test vectors were made without UV, and are read with it false.
    public static func verify(
        _ response: RegistrationResponse, challenge: [UInt8], relyingParty: PasskeyRelyingParty,
        requireUserVerification: Bool = true, algorithms: [COSEAlgorithm] = COSEAlgorithm.allCases
    ) throws(PasskeyError) -> RegisteredPasskey {
        // The client data: type, challenge, origin, crossOrigin, topOrigin.
        let origin = try ClientData.verify(
            response.clientDataJSON, ceremony: .create, challenge: challenge, origins: relyingParty.origins)
        // The client data's hash is used only by attestation formats that sign; `none` signs
        // nothing. Then the CBOR, with the layout of the authenticator data and its COSE key.
        let object = try AttestationObject.parse(response.attestationObject)
        let data = object.authenticatorData
        // The RP ID's hash, UP, UV, BS only with BE.
        try relyingParty.check(data, requireUserVerification: requireUserVerification)
        guard let attested = data.attestedCredentialData else { throw .refused(.attestedDataMissing) }
        guard attested.credentialId == response.credentialId else { throw .refused(.credentialId) }
        // The key's alg is one the options offered.
        guard algorithms.contains(attested.publicKey.algorithm) else { throw .refused(.algorithm) }
        // The format, matched case-sensitively: `none` only, whose statement is the empty map.
        guard object.format == "none" else { throw .refused(.attestationFormat) }
        guard object.statement.mapEntries?.isEmpty == true else { throw .refused(.attestationStatement) }
        // The credential id's 1023 bytes were checked with the layout; extensions are ignored.
        return RegisteredPasskey(
            credentialId: attested.credentialId, publicKey: attested.publicKey.bytes,
            algorithm: attested.publicKey.algorithm, signCount: data.signCount,
            userVerified: data.flags.contains(.userVerified), backupEligible: data.flags.contains(.backupEligible),
            backupState: data.flags.contains(.backupState), aaguid: attested.aaguid,
            transports: PasskeyTransports.kept(response.transports), origin: origin)
    }
}
