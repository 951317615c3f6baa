/// The flags byte of authenticator data (L3 section 6.1). Bits 1 and 5 are reserved: an
/// authenticator sets them to zero, and nothing here reads them.
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// User Present.
    public static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// User Verified (the phone's face, fingerprint or screen lock).
    public static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// Backup Eligible: a multi-device (synced) credential. Meant never to change after
    /// registration, and seen to change (iCloud Keychain before its first sync).
    public static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// Backup State: currently backed up.
    public static let backupState = AuthenticatorFlags(rawValue: 0x10)
    /// Attested credential data follows the counter.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// Extension outputs (a CBOR map) end the data.
    public static let extensionData = AuthenticatorFlags(rawValue: 0x80)
}
