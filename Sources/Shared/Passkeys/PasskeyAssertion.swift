/// A sign-in response (`AuthenticatorAssertionResponse` with the credential's `rawId`).
public struct AssertionResponse: Sendable {
    public var credentialId: [UInt8]
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// nil when absent; an empty one counts as absent (Safari once sent "", w3c/webauthn#1723).
    public var userHandle: [UInt8]?

    public init(
        credentialId: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]?
    ) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// The credential record a sign-in is checked against, as the store keeps it.
public struct StoredPasskey: Sendable {
    public var credentialId: [UInt8]
    /// The COSE_Key bytes `RegisteredPasskey.publicKey` gave.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backupState: Bool
    /// The user handle of the account the credential belongs to.
    public var userHandle: [UInt8]

    public init(
        credentialId: [UInt8], publicKey: [UInt8], signCount: UInt32, backupEligible: Bool, backupState: Bool,
        userHandle: [UInt8]
    ) {
        self.credentialId = credentialId
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.userHandle = userHandle
    }
}

/// What a verified sign-in gives the store: the record's new state, and the signals that are
/// recorded and counted but never refuse anyone (rule 17).
public struct VerifiedAssertion: Sendable, Equatable {
    /// The authenticator's counter, which the record takes (L3's update step).
    public let signCount: UInt32
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
    public let origin: String
    /// The counter did not go up although it or the stored one is not zero: L3's "signal, but
    /// not proof" of a cloned authenticator (or two devices of a password manager racing).
    /// Synced passkeys send 0 every time, which is no signal.
    public let counterWentBackwards: Bool
    /// BE differs from the record's. L3 says it never changes; iCloud Keychain's passkeys made
    /// before their first sync later turn it on, and refusing that locked people out elsewhere.
    public let backupEligibilityChanged: Bool
    /// BS differs from the record's (it may: a backup made or lost).
    public let backupStateChanged: Bool
}

public enum PasskeyAssertion {
    /// Signatures are at most 72 bytes (ES256, DER) or 512 (RS256 with RSA-4096).
    public static let maxSignatureBytes = 1024
    /// L3 section 5.4.3: a user handle is 1 to 64 bytes.
    public static let maxUserHandleBytes = 64

    /// L3 section 7.2 for a discoverable credential: the caller found `credential` by the
    /// response's credential id, and the user handle sent must be present and be that record's
    /// account's. Then the client data, the authenticator data, the signature over
    /// `authenticatorData || SHA-256(clientDataJSON)`, and the counter and backup flags, which
    /// are reported, never refused.
    public static func verify(
        _ response: AssertionResponse, challenge: [UInt8], relyingParty: PasskeyRelyingParty,
        credential: StoredPasskey, requireUserVerification: Bool = true
    ) throws(PasskeyError) -> VerifiedAssertion {
        guard response.signature.count <= maxSignatureBytes else { throw .malformed(.tooLarge("signature")) }
        guard (response.userHandle?.count ?? 0) <= maxUserHandleBytes else {
            throw .malformed(.tooLarge("userHandle"))
        }
        // Identify the user: the credential is the record's, and the handle names its account.
        guard response.credentialId == credential.credentialId else { throw .refused(.credentialId) }
        guard let handle = response.userHandle, !handle.isEmpty, ConstantTime.equal(handle, credential.userHandle)
        else { throw .refused(.userHandle) }
        // The client data: type, challenge, origin, crossOrigin, topOrigin.
        let origin = try ClientData.verify(
            response.clientDataJSON, ceremony: .get, challenge: challenge, origins: relyingParty.origins)
        let data = try AuthenticatorData.parse(response.authenticatorData, for: .get)
        // The RP ID's hash, UP, UV, BS only with BE.
        try relyingParty.check(data, requireUserVerification: requireUserVerification)
        let backupEligible = data.flags.contains(.backupEligible)
        let backupState = data.flags.contains(.backupState)
        // The signature, with the stored key read by the same rules as at registration.
        let key = try CredentialPublicKey.parse(credential.publicKey)
        let signed = response.authenticatorData + SHA256.hash(response.clientDataJSON)
        guard key.verify(signature: response.signature, message: signed) else { throw .refused(.signature) }
        let counterWentBackwards =
            (data.signCount != 0 || credential.signCount != 0) && data.signCount <= credential.signCount
        return VerifiedAssertion(
            signCount: data.signCount, userVerified: data.flags.contains(.userVerified),
            backupEligible: backupEligible, backupState: backupState, origin: origin,
            counterWentBackwards: counterWentBackwards,
            backupEligibilityChanged: backupEligible != credential.backupEligible,
            backupStateChanged: backupState != credential.backupState)
    }
}
