import Foundation

/// What the phone's authenticator made for `register_finish` (on an iPhone, an
/// `ASAuthorizationPlatformPublicKeyCredentialRegistration`).
public struct PasskeyRegistrationCredential: Equatable, Sendable {
    public let credentialId: Data
    public let clientDataJSON: Data
    public let attestationObject: Data
    public let transports: [String]

    public init(credentialId: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = ["internal", "hybrid"]) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }

    var json: JSONBody {
        PasskeyWire.credential(id: credentialId, response: [
            ("clientDataJSON", PasskeyWire.text(clientDataJSON)),
            ("attestationObject", PasskeyWire.text(attestationObject)),
            ("transports", .array(transports.map(JSONBody.string))),
        ])
    }
}

/// What the phone's authenticator signed for `signin-passkey` `finish` (on an iPhone, an
/// `ASAuthorizationPlatformPublicKeyCredentialAssertion`).
public struct PasskeyAssertionCredential: Equatable, Sendable {
    public let credentialId: Data
    public let clientDataJSON: Data
    public let authenticatorData: Data
    public let signature: Data
    public let userHandle: Data?

    public init(credentialId: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    var json: JSONBody {
        PasskeyWire.credential(id: credentialId, response: [
            ("clientDataJSON", PasskeyWire.text(clientDataJSON)),
            ("authenticatorData", PasskeyWire.text(authenticatorData)),
            ("signature", PasskeyWire.text(signature)), ("userHandle", userHandle.map(PasskeyWire.text)),
        ])
    }
}
