/// The `credential` member of a finish request: `PublicKeyCredential.toJSON()`'s shape (L3
/// section 5.1.8), binary values in strict base64url without padding (DESIGN.md, Passkeys).
/// Members beyond the ones read (`authenticatorAttachment`, `clientExtensionResults`, a
/// response's `publicKey`) are ignored, as the verification ignores extension outputs.
public enum PasskeyCredentialJSON {
    /// `{"id", "rawId", "type": "public-key", "response": {"clientDataJSON", "attestationObject",
    /// "transports"?}}`.
    public static func registration(_ credential: JSONValue) throws(PasskeyError) -> RegistrationResponse {
        let id = try credentialId(credential)
        let response = try member(credential, "response")
        var transports: [String] = []
        if let list = response["transports"], !list.isNull {
            guard let elements = list.arrayValue, elements.count <= 16 else {
                throw .malformed(.credential("transports"))
            }
            for element in elements {
                guard let name = element.stringValue else { throw .malformed(.credential("transports")) }
                transports.append(name)
            }
        }
        return RegistrationResponse(
            credentialId: id, clientDataJSON: try binary(response, "clientDataJSON"),
            attestationObject: try binary(response, "attestationObject"), transports: transports)
    }

    /// `{"id", "rawId", "type": "public-key", "response": {"clientDataJSON", "authenticatorData",
    /// "signature", "userHandle"?}}`; a `userHandle` that is absent, null or "" is absent.
    public static func assertion(_ credential: JSONValue) throws(PasskeyError) -> AssertionResponse {
        let id = try credentialId(credential)
        let response = try member(credential, "response")
        var userHandle: [UInt8]?
        if let handle = response["userHandle"], !handle.isNull {
            guard let text = handle.stringValue, let bytes = Base64URL.decode(text) else {
                throw .malformed(.credential("userHandle"))
            }
            userHandle = bytes.isEmpty ? nil : bytes
        }
        return AssertionResponse(
            credentialId: id, clientDataJSON: try binary(response, "clientDataJSON"),
            authenticatorData: try binary(response, "authenticatorData"), signature: try binary(response, "signature"),
            userHandle: userHandle)
    }

    /// `rawId`, which `id` must spell the same, of a credential of type `public-key`.
    static func credentialId(_ credential: JSONValue) throws(PasskeyError) -> [UInt8] {
        guard credential["type"]?.stringValue == "public-key" else { throw .malformed(.credential("type")) }
        let raw = try binary(credential, "rawId")
        guard credential["id"]?.stringValue == credential["rawId"]?.stringValue else {
            throw .malformed(.credential("id"))
        }
        guard AttestedCredentialData.credentialIdLengths.contains(raw.count) else {
            throw .malformed(.credentialIdLength)
        }
        return raw
    }

    private static func member(_ object: JSONValue, _ name: String) throws(PasskeyError) -> JSONValue {
        guard let value = object[name], value.objectValue != nil else { throw .malformed(.credential(name)) }
        return value
    }

    private static func binary(_ object: JSONValue, _ name: String) throws(PasskeyError) -> [UInt8] {
        guard let text = object[name]?.stringValue, !text.isEmpty, let bytes = Base64URL.decode(text) else {
            throw .malformed(.credential(name))
        }
        return bytes
    }
}
