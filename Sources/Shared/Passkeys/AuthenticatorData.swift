/// Authenticator data (L3 section 6.1): `rpIdHash(32) | flags(1) | signCount(4, big-endian)`,
/// then the attested credential data when AT is set, then a CBOR map of extension outputs when
/// ED is set, and nothing else.
public struct AuthenticatorData: Sendable {
    /// The data as received: what the signature covers.
    public let bytes: [UInt8]
    public let rpIdHash: [UInt8]
    public let flags: AuthenticatorFlags
    public let signCount: UInt32
    /// Present exactly when AT is set.
    public let attestedCredentialData: AttestedCredentialData?

    /// 37 bytes, the attested data of a 1023-byte id and an RSA-4096 key (about 1.6 KiB), and
    /// room for extension outputs.
    public static let maxBytes = 4096
    static let fixedLength = 37

    /// Reads the layout. Extension outputs are read to find their end and then ignored: L3 lets
    /// a relying party ignore any of them, and clients may add some nobody asked for (Android's
    /// sends `devicePubKey`); refusing them would refuse real phones. What the flags and the
    /// bytes disagree on is malformed: data after the last announced part, a part announced and
    /// missing, an extensions value that is not a map with text keys.
    ///
    /// AT must be set for a registration (`.create`) and clear for an assertion (`.get`), L3
    /// section 6.1; that is checked from the flags before anything after them is read, so a
    /// response of the wrong kind is refused for what it is.
    public static func parse(_ bytes: [UInt8], for ceremony: ClientData.Ceremony) throws(PasskeyError)
        -> AuthenticatorData
    {
        guard bytes.count <= maxBytes else { throw .malformed(.tooLarge("authenticatorData")) }
        guard bytes.count >= fixedLength else { throw .malformed(.authenticatorDataTruncated) }
        let flags = AuthenticatorFlags(rawValue: bytes[32])
        switch (ceremony, flags.contains(.attestedCredentialData)) {
        case (.create, false): throw .refused(.attestedDataMissing)
        case (.get, true): throw .refused(.attestedDataInAssertion)
        default: break
        }
        let signCount = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var offset = fixedLength
        var attested: AttestedCredentialData?
        if flags.contains(.attestedCredentialData) {
            let (data, end) = try AttestedCredentialData.read(bytes, from: offset)
            attested = data
            offset = end
        }
        if flags.contains(.extensionData) {
            guard offset < bytes.count else { throw .malformed(.authenticatorDataTruncated) }
            let extensions: (value: CBORValue, end: Int)
            do {
                extensions = try CBORReader.decodePrefix(bytes, from: offset, limits: .extensions)
            } catch {
                throw error.passkey
            }
            guard let entries = extensions.value.mapEntries,
                entries.allSatisfy({ if case .text = $0.key { true } else { false } })
            else { throw .malformed(.extensions) }
            offset = extensions.end
        }
        guard offset == bytes.count else { throw .malformed(.trailingBytes) }
        return AuthenticatorData(
            bytes: bytes, rpIdHash: Array(bytes[0..<32]), flags: flags, signCount: signCount,
            attestedCredentialData: attested)
    }
}

/// `aaguid(16) | credentialIdLength(2, big-endian) | credentialId | credentialPublicKey (COSE_Key)`
/// (L3 section 6.5.1). The key's length is found only by reading it.
public struct AttestedCredentialData: Sendable {
    public let aaguid: [UInt8]
    public let credentialId: [UInt8]
    public let publicKey: CredentialPublicKey

    /// L3 section 4: an authenticator's credential ids are at least 16 bytes (or an encrypted
    /// credential source, longer), and at most 1023.
    public static let credentialIdLengths = 16...1023

    static func read(_ bytes: [UInt8], from start: Int) throws(PasskeyError) -> (AttestedCredentialData, end: Int) {
        guard bytes.count - start >= 18 else { throw .malformed(.authenticatorDataTruncated) }
        let aaguid = Array(bytes[start..<(start + 16)])
        let length = Int(bytes[start + 16]) << 8 | Int(bytes[start + 17])
        guard credentialIdLengths.contains(length) else { throw .malformed(.credentialIdLength) }
        let idStart = start + 18
        // The key needs at least one byte after the id.
        guard bytes.count - idStart > length else { throw .malformed(.authenticatorDataTruncated) }
        let credentialId = Array(bytes[idStart..<(idStart + length)])
        let keyStart = idStart + length
        let key: (value: CBORValue, end: Int)
        do {
            key = try CBORReader.decodePrefix(bytes, from: keyStart, limits: .coseKey)
        } catch {
            throw error.passkey
        }
        let publicKey = try CredentialPublicKey.make(key.value, bytes: Array(bytes[keyStart..<key.end]))
        return (AttestedCredentialData(aaguid: aaguid, credentialId: credentialId, publicKey: publicKey), key.end)
    }
}
