/// What every response is checked against: the RP ID (`passkeys.rpId`) and the exact origins
/// allowed to use it (`PasskeyOrigins.allowed`).
public struct PasskeyRelyingParty: Sendable {
    public let id: String
    public let origins: [String]
    /// SHA-256 of the RP ID's bytes, which the authenticator data must start with.
    public let idHash: [UInt8]

    public init(id: String, origins: [String]) {
        self.id = id
        self.origins = origins
        idHash = SHA256.hash(Array(id.utf8))
    }

    /// The checks of the authenticator data that L3 sections 7.1 and 7.2 share: the RP ID's hash,
    /// user presence, user verification when required, and no BS without BE. (UP is
    /// required at registration too: frontdoor never asks for conditional creation.)
    func check(_ data: AuthenticatorData, requireUserVerification: Bool) throws(PasskeyError) {
        guard ConstantTime.equal(data.rpIdHash, idHash) else { throw .refused(.rpIdHash) }
        guard data.flags.contains(.userPresent) else { throw .refused(.userPresence) }
        if requireUserVerification, !data.flags.contains(.userVerified) { throw .refused(.userVerification) }
        if data.flags.contains(.backupState), !data.flags.contains(.backupEligible) {
            throw .refused(.backupState)
        }
    }
}
