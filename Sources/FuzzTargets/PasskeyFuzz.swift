import Shared

/// The `cbor` target: the passkey parsers and checks on one input.
extension FuzzTargets {
    public static let passkeyChallenge = [UInt8](repeating: 0x2A, count: 32)
    static let passkeyRelyingParty = PasskeyRelyingParty(id: "example.org", origins: ["https://example.org"])
    static let passkeyUserHandle = [UInt8](repeating: 0x55, count: 16)

    /// Client data that passes, so an input reaches the checks after it.
    static func passkeyClientData(_ type: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(passkeyChallenge))","origin":"https://example.org"}"#.utf8)
    }

    /// The P-256 key of `fixedKeySet` (its x and y) as a COSE_Key: the stored key the assertions
    /// are checked with.
    static let passkeyStoredKey: [UInt8] = {
        let x = Base64URL.decode("EAZADEMSAB5luYgCYy2kmn5s21A-M0IJC4B-8jF7aeQ") ?? []
        let y = Base64URL.decode("wkx3QJ5Zl0kdkbrolTLWjXulvsS1xi5SJhfAJ8Y-9bw") ?? []
        return CBORWriter.encode(.map([
            (.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(1)),
            (.integer(-2), .bytes(x)), (.integer(-3), .bytes(y)),
        ]))
    }()

    /// The CBOR reader under each of its limit sets, where whatever it accepts must come back
    /// byte for byte from the writer; then the attestation object, authenticator data of both
    /// ceremonies, a COSE key, and a whole registration and assertion around the input.
    public static func cbor(_ input: [UInt8]) {
        for limits in [CBORLimits.attestationObject, .coseKey, .extensions] {
            if let value = try? CBORReader.decode(input, limits: limits) {
                precondition(CBORWriter.encode(value) == input, "CBOR did not survive its own writer")
            }
        }
        let object = try? AttestationObject.parse(input)
        _ = try? AuthenticatorData.parse(input, for: .create)
        _ = try? AuthenticatorData.parse(input, for: .get)
        _ = try? CredentialPublicKey.parse(input)
        let registration = RegistrationResponse(
            credentialId: object?.authenticatorData.attestedCredentialData?.credentialId ?? [],
            clientDataJSON: passkeyClientData("webauthn.create"), attestationObject: input)
        _ = try? PasskeyRegistration.verify(
            registration, challenge: passkeyChallenge, relyingParty: passkeyRelyingParty, requireUserVerification: false)
        let stored = StoredPasskey(
            credentialId: passkeyUserHandle, publicKey: passkeyStoredKey, signCount: 1, backupEligible: true,
            backupState: false, userHandle: passkeyUserHandle)
        let assertion = AssertionResponse(
            credentialId: passkeyUserHandle, clientDataJSON: passkeyClientData("webauthn.get"), authenticatorData: input,
            signature: Array(input.prefix(72)), userHandle: passkeyUserHandle)
        _ = try? PasskeyAssertion.verify(
            assertion, challenge: passkeyChallenge, relyingParty: passkeyRelyingParty, credential: stored,
            requireUserVerification: false)
    }
}
