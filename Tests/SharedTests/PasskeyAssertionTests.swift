import DevSupport
import Shared
import Testing

@Suite struct PasskeyAssertionTests {
    typealias F = PasskeyFixtures
    typealias Spoil = SoftwareAuthenticator.Spoil

    func refuses(_ error: PasskeyError, _ algorithm: COSEAlgorithm = .es256, _ change: (inout Spoil) -> Void) throws {
        let authenticator = try F.authenticator(algorithm)
        #expect(throws: error) { try F.signIn(authenticator, spoil: F.spoil(change)) }
    }

    /// A registration's record, then a sign-in against it: the whole round, as the endpoints will.
    @Test(arguments: COSEAlgorithm.allCases)
    func signsInWithWhatARegistrationStored(_ algorithm: COSEAlgorithm) throws {
        let authenticator = try F.authenticator(algorithm)
        let registered = try F.register(authenticator)
        let record = StoredPasskey(
            credentialId: registered.credentialId, publicKey: registered.publicKey, signCount: registered.signCount,
            backupEligible: registered.backupEligible, backupState: registered.backupState, userHandle: F.userHandle)
        let verified = try F.signIn(authenticator, stored: record)
        #expect(verified.signCount == 0 && verified.userVerified && verified.origin == F.origin)
        #expect(verified.backupEligible && verified.backupState)
        #expect(!verified.counterWentBackwards && !verified.backupEligibilityChanged && !verified.backupStateChanged)
        #expect(try F.signIn(authenticator, stored: record, origin: F.androidOrigin).origin == F.androidOrigin)
    }

    @Test func refusesSpoiledClientData() throws {
        try refuses(.refused(.type)) { $0.type = "webauthn.create" }
        try refuses(.refused(.challenge)) { $0.challenge = [UInt8](repeating: 7, count: 32) }
        try refuses(.refused(.crossOrigin)) { $0.crossOrigin = true }
        try refuses(.refused(.topOrigin)) { $0.topOrigin = "https://evil.example" }
        let duplicate = #"{"type":"webauthn.get","challenge":"AA","challenge":"\#(Base64URL.encode(F.challenge))"}"#
        try refuses(.malformed(.clientData)) { $0.clientDataJSON = Array(duplicate.utf8) }
        #expect(throws: PasskeyError.refused(.origin(androidKeyHash: nil))) {
            try F.signIn(F.es256.get(), origin: "https://login.example.com.evil")
        }
    }

    @Test func refusesSpoiledAuthenticatorData() throws {
        try refuses(.refused(.rpIdHash)) { $0.rpId = "evil.example" }
        try refuses(.refused(.userPresence)) { $0.removeFlags = .userPresent }
        try refuses(.refused(.userVerification)) { $0.removeFlags = .userVerified }
        try refuses(.refused(.backupState)) { $0.removeFlags = .backupEligible }
        try refuses(.refused(.attestedDataInAssertion)) { $0.addFlags = .attestedCredentialData }
        try refuses(.malformed(.trailingBytes)) { $0.trailingBytes = [0] }
        try refuses(.malformed(.authenticatorDataTruncated)) { $0.addFlags = .extensionData }
        // Extension outputs, as Android sends them, are ignored.
        let verified = try F.signIn(F.es256.get(), spoil: F.spoil { $0.extensions = .map([(.text("devicePubKey"), .bytes([1]))]) })
        #expect(verified.userVerified)
    }

    @Test(arguments: COSEAlgorithm.allCases)
    func refusesSpoiledSignatures(_ algorithm: COSEAlgorithm) throws {
        try refuses(.refused(.signature), algorithm) { $0.signature = true }
        try refuses(.refused(.signature), algorithm) { $0.rawSignature = [] }
        try refuses(.malformed(.tooLarge("signature")), algorithm) { $0.rawSignature = [UInt8](repeating: 1, count: 1025) }
        // Another credential's key: each authenticator signs, the other's record is checked.
        let other: COSEAlgorithm = algorithm == .es256 ? .rs256 : .es256
        let signer = try F.authenticator(algorithm)
        var record = F.stored(signer)
        record.publicKey = try SoftwareAuthenticator(algorithm: algorithm).coseKey()
        #expect(throws: PasskeyError.refused(.signature)) { try F.signIn(signer, stored: record) }
        record.publicKey = try F.authenticator(other).coseKey()
        #expect(throws: PasskeyError.refused(.signature)) { try F.signIn(signer, stored: record) }
    }

    @Test func refusesSignaturesOverOtherClientData() throws {
        let authenticator = try F.es256.get()
        var response = try authenticator.assert(challenge: F.challenge, rpId: F.rpId, origin: F.origin, userHandle: F.userHandle)
        response.clientDataJSON = Array(#"{"type":"webauthn.get","challenge":"\#(Base64URL.encode(F.challenge))","origin":"\#(F.origin)","x":1}"#.utf8)
        #expect(throws: PasskeyError.refused(.signature)) {
            try PasskeyAssertion.verify(
                response, challenge: F.challenge, relyingParty: F.relyingParty, credential: F.stored(authenticator))
        }
    }

    @Test func theUserHandleMustNameTheCredentialsAccount() throws {
        let authenticator = try F.es256.get()
        for handle: [UInt8]? in [nil, [], [UInt8](repeating: 0xA5, count: 31), [UInt8](repeating: 0x5A, count: 32)] {
            #expect(throws: PasskeyError.refused(.userHandle), "\(String(describing: handle))") {
                try F.signIn(authenticator, userHandle: handle)
            }
        }
        #expect(throws: PasskeyError.malformed(.tooLarge("userHandle"))) {
            try F.signIn(authenticator, userHandle: [UInt8](repeating: 0xA5, count: 65))
        }
        var record = F.stored(authenticator)
        record.credentialId = [UInt8](repeating: 3, count: 32)
        #expect(throws: PasskeyError.refused(.credentialId)) { try F.signIn(authenticator, stored: record) }
    }

    /// L3 section 7.2: a counter that does not go up while either is non-zero is a signal,
    /// reported and never refused; synced passkeys send 0 every time.
    @Test func reportsCounterRegressionsWithoutRefusing() throws {
        let authenticator = try F.es256.get()
        let cases: [(stored: UInt32, sent: UInt32, signal: Bool)] = [
            (0, 0, false), (0, 1, false), (5, 6, false), (5, 5, true), (5, 3, true), (5, 0, true),
            (UInt32.max - 1, UInt32.max, false),
        ]
        for (stored, sent, signal) in cases {
            let verified = try F.signIn(
                authenticator, stored: F.stored(authenticator, signCount: stored), spoil: F.spoil { $0.signCount = sent })
            #expect(verified.counterWentBackwards == signal, "stored \(stored), sent \(sent)")
            #expect(verified.signCount == sent)
        }
    }

    /// BE should never change and does (iCloud Keychain before its first sync); BS may. Both are
    /// reported, never refused.
    @Test func reportsBackupFlagChangesWithoutRefusing() throws {
        let authenticator = try F.es256.get()
        let upgraded = try F.signIn(authenticator, stored: F.stored(authenticator, backupEligible: false, backupState: false))
        #expect(upgraded.backupEligibilityChanged && upgraded.backupStateChanged)
        #expect(upgraded.backupEligible && upgraded.backupState)
        let downgraded = try F.signIn(
            authenticator, stored: F.stored(authenticator), spoil: F.spoil { $0.removeFlags = [.backupEligible, .backupState] })
        #expect(downgraded.backupEligibilityChanged && downgraded.backupStateChanged)
        let lostBackup = try F.signIn(authenticator, stored: F.stored(authenticator), spoil: F.spoil { $0.removeFlags = .backupState })
        #expect(!lostBackup.backupEligibilityChanged && lostBackup.backupStateChanged)
    }

    /// A registration's response handed in as a sign-in: its client data is of the other kind,
    /// and its authenticator data carries attested data.
    @Test func refusesTheOtherCeremonysResponse() throws {
        let authenticator = try F.es256.get()
        let registration = try authenticator.register(challenge: F.challenge, rpId: F.rpId, origin: F.origin)
        let object = try AttestationObject.parse(registration.attestationObject)
        let assertion = try authenticator.assert(challenge: F.challenge, rpId: F.rpId, origin: F.origin, userHandle: F.userHandle)
        var mixed = assertion
        mixed.clientDataJSON = registration.clientDataJSON
        #expect(throws: PasskeyError.refused(.type)) {
            try PasskeyAssertion.verify(mixed, challenge: F.challenge, relyingParty: F.relyingParty, credential: F.stored(authenticator))
        }
        mixed = assertion
        mixed.authenticatorData = object.authenticatorData.bytes
        #expect(throws: PasskeyError.refused(.attestedDataInAssertion)) {
            try PasskeyAssertion.verify(mixed, challenge: F.challenge, relyingParty: F.relyingParty, credential: F.stored(authenticator))
        }
    }

    @Test func theStoredKeyIsReadByTheSameRules() throws {
        let authenticator = try F.es256.get()
        var record = F.stored(authenticator)
        record.publicKey = authenticator.coseKey() + [0]
        #expect(throws: PasskeyError.malformed(.cbor(.trailingBytes))) { try F.signIn(authenticator, stored: record) }
    }
}
