/// The attestation object of a registration (L3 section 6.5.4): the CBOR map
/// `{"fmt": text, "attStmt": map, "authData": bytes}`, with its authenticator data read.
public struct AttestationObject: Sendable {
    /// The attestation statement format, matched case-sensitively by the caller.
    public let format: String
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    /// The authenticator data's limit and the map around it; a `none` object is the data plus
    /// 30 bytes.
    public static let maxBytes = AuthenticatorData.maxBytes + 2048
    /// L3 section 8: format identifiers are at most 32 characters.
    static let maxFormatBytes = 32

    /// Any member beyond the three, or one of the wrong type, is malformed; the key order is not
    /// enforced (see `CBORLimits.attestationObject`).
    public static func parse(_ bytes: [UInt8]) throws(PasskeyError) -> AttestationObject {
        let value: CBORValue
        do {
            value = try CBORReader.decode(bytes, limits: .attestationObject)
        } catch {
            throw error.passkey
        }
        guard let entries = value.mapEntries, entries.count == 3,
            let format = value[text: "fmt"]?.textValue, !format.isEmpty, format.utf8.count <= maxFormatBytes,
            let statement = value[text: "attStmt"], statement.mapEntries != nil,
            let authData = value[text: "authData"]?.bytesValue
        else { throw .malformed(.attestationObject) }
        return AttestationObject(
            format: format, statement: statement, authenticatorData: try AuthenticatorData.parse(authData, for: .create))
    }
}
