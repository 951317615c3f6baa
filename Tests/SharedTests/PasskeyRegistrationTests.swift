import DevSupport
import Shared
import Testing

@Suite struct PasskeyRegistrationTests {
    typealias F = PasskeyFixtures
    typealias Spoil = SoftwareAuthenticator.Spoil

    func refuses(_ error: PasskeyError, _ algorithm: COSEAlgorithm = .es256, _ change: (inout Spoil) -> Void) throws {
        let authenticator = try F.authenticator(algorithm)
        #expect(throws: error) { try F.register(authenticator, spoil: F.spoil(change)) }
    }

    @Test(arguments: COSEAlgorithm.allCases)
    func acceptsARegistration(_ algorithm: COSEAlgorithm) throws {
        let authenticator = try F.authenticator(algorithm)
        let registered = try F.register(authenticator)
        #expect(registered.credentialId == authenticator.credentialId)
        #expect(registered.publicKey == authenticator.coseKey())
        #expect(registered.algorithm == algorithm)
        #expect(registered.signCount == 0)
        #expect(registered.userVerified && registered.backupEligible && registered.backupState)
        #expect(registered.aaguid == [UInt8](repeating: 0, count: 16))
        #expect(registered.transports == ["internal", "hybrid"])
        #expect(registered.origin == F.origin)
        #expect(try CredentialPublicKey.parse(registered.publicKey).algorithm == algorithm)
    }

    @Test func acceptsAnAndroidAppAndWhatPhonesAdd() throws {
        let authenticator = try F.es256.get()
        let spoil = F.spoil {
            $0.clientDataMembers = [("androidPackageName", "com.example.app")]
            $0.crossOrigin = false
            $0.removeFlags = [.backupEligible, .backupState]
            $0.signCount = 7
            $0.extensions = .map([(.text("credProtect"), .integer(2))])
            $0.shape = .unsortedKeys
        }
        let registered = try F.register(authenticator, origin: F.androidOrigin, spoil: spoil)
        #expect(registered.origin == F.androidOrigin)
        #expect(registered.signCount == 7)
        #expect(!registered.backupEligible && !registered.backupState)
        let response = try authenticator.register(
            challenge: F.challenge, rpId: F.rpId, origin: F.origin, transports: ["usb", "internal", "warp", "usb"])
        #expect(try PasskeyRegistration.verify(response, challenge: F.challenge, relyingParty: F.relyingParty).transports
            == ["usb", "internal"])
    }

    @Test func refusesSpoiledClientData() throws {
        try refuses(.refused(.type)) { $0.type = "webauthn.get" }
        try refuses(.refused(.challenge)) { $0.challenge = Array(F.challenge.reversed()) }
        try refuses(.refused(.crossOrigin)) { $0.crossOrigin = true }
        try refuses(.refused(.topOrigin)) { $0.topOrigin = "https://evil.example" }
        try refuses(.malformed(.clientData)) { $0.clientDataJSON = Array("not json".utf8) }
        #expect(throws: PasskeyError.refused(.origin(androidKeyHash: nil))) {
            try F.register(F.es256.get(), origin: "https://evil.example")
        }
    }

    @Test func refusesSpoiledAuthenticatorData() throws {
        try refuses(.refused(.rpIdHash)) { $0.rpId = "evil.example" }
        try refuses(.refused(.rpIdHash)) { $0.rpId = "LOGIN.example.com" }
        try refuses(.refused(.rpIdHash)) { $0.rpId = "example.com" }
        try refuses(.refused(.userPresence)) { $0.removeFlags = .userPresent }
        try refuses(.refused(.userVerification)) { $0.removeFlags = .userVerified }
        try refuses(.refused(.backupState)) { $0.removeFlags = .backupEligible }
        try refuses(.refused(.attestedDataMissing)) { $0.removeFlags = .attestedCredentialData }
        try refuses(.malformed(.trailingBytes)) { $0.trailingBytes = [0] }
        try refuses(.malformed(.authenticatorDataTruncated)) { $0.addFlags = .extensionData }
        try refuses(.malformed(.credentialIdLength)) { $0.attestedCredentialId = [UInt8](repeating: 1, count: 1024) }
        try refuses(.refused(.credentialId)) { $0.attestedCredentialId = [UInt8](repeating: 1, count: 32) }
    }

    @Test func refusesSpoiledKeys() throws {
        try refuses(.refused(.algorithm)) { $0.key = .algorithm(-8) }
        try refuses(.refused(.keyType)) { $0.key = .algorithm(-257) }
        try refuses(.refused(.keyType)) { $0.key = .curve(2) }
        try refuses(.refused(.publicKey)) { $0.key = .offCurve }
        try refuses(.refused(.keyType)) { $0.key = .compressedPoint }
        try refuses(.refused(.keyType)) { $0.key = .extraLabel }
        try refuses(.malformed(.cbor(.mapKeyOrder))) { $0.key = .unsorted }
        try refuses(.refused(.keyType), .rs256) { $0.key = .algorithm(-7) }
        // An RS256 key where the ceremony offered only ES256.
        let rsa = try F.rs256.get().register(challenge: F.challenge, rpId: F.rpId, origin: F.origin)
        #expect(throws: PasskeyError.refused(.algorithm)) {
            try PasskeyRegistration.verify(rsa, challenge: F.challenge, relyingParty: F.relyingParty, algorithms: [.es256])
        }
    }

    @Test func refusesAnyAttestationButNone() throws {
        try refuses(.refused(.attestationFormat)) { $0.format = "packed" }
        try refuses(.refused(.attestationFormat)) { $0.format = "None" }
        try refuses(.refused(.attestationStatement)) { $0.statement = .map([(.text("alg"), .integer(-7))]) }
        try refuses(.malformed(.attestationObject)) { $0.statement = .array([]) }
        try refuses(.malformed(.attestationObject)) { $0.format = String(repeating: "n", count: 33) }
    }

    @Test func refusesAttestationObjectsNotInStrictCBOR() throws {
        try refuses(.malformed(.cbor(.indefiniteLength))) { $0.shape = .indefiniteLength }
        try refuses(.malformed(.cbor(.tag))) { $0.shape = .tagged }
        try refuses(.malformed(.cbor(.duplicateMapKey))) { $0.shape = .duplicateKey }
        try refuses(.malformed(.cbor(.nonShortestEncoding))) { $0.shape = .nonShortestLength }
        try refuses(.malformed(.attestationObject)) { $0.shape = .extraMember }
        try refuses(.malformed(.cbor(.trailingBytes))) { $0.shape = .trailingByte }
    }

    @Test func userVerificationIsRequiredUnlessTheCallerSaysOtherwise() throws {
        let response = try F.es256.get().register(
            challenge: F.challenge, rpId: F.rpId, origin: F.origin, spoil: F.spoil { $0.removeFlags = .userVerified })
        #expect(throws: PasskeyError.refused(.userVerification)) {
            try PasskeyRegistration.verify(response, challenge: F.challenge, relyingParty: F.relyingParty)
        }
        let registered = try PasskeyRegistration.verify(
            response, challenge: F.challenge, relyingParty: F.relyingParty, requireUserVerification: false)
        #expect(!registered.userVerified)
    }

    /// Each refusal maps to the answer DESIGN.md gives: 401 for a failed check, 400 for input
    /// that cannot be read.
    @Test func errorsMapToTheContract() {
        #expect(PasskeyError.refused(.signature).frontdoorError.code == .invalidCredentials)
        #expect(PasskeyError.refused(.signature).frontdoorError.status == 401)
        #expect(PasskeyError.malformed(.cbor(.tag)).frontdoorError.code == .invalidRequest)
        #expect(PasskeyError.malformed(.cbor(.tag)).frontdoorError.status == 400)
        #expect(PasskeyError.malformed(.cbor(.tag)).frontdoorError.detail == "passkey response malformed: cbor_tag")
    }
}
