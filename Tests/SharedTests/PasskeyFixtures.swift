import DevSupport
import Shared

/// One relying party, its origins, and one software authenticator of each algorithm, made once
/// per test process (RSA generation is the slow part).
enum PasskeyFixtures {
    static let rpId = "login.example.com"
    /// An Android app's signing key (a made-up certificate's SHA-256).
    static let androidKey: [UInt8] = (0..<32).map { UInt8($0 * 7 + 3) }
    static let androidOrigin = PasskeyOrigins.android(certificateSHA256: androidKey)
    static let relyingParty = PasskeyRelyingParty(
        id: rpId, origins: PasskeyOrigins.allowed(
            rpId: rpId, androidApps: [.init(package: "com.example.app", certSha256: [androidKey])]))
    static let origin = "https://" + rpId
    static let challenge: [UInt8] = Array(0..<32)
    static let userHandle: [UInt8] = Array(repeating: 0xA5, count: 32)

    static let es256 = Result { try SoftwareAuthenticator(algorithm: .es256) }
    static let rs256 = Result { try SoftwareAuthenticator(algorithm: .rs256) }

    static func authenticator(_ algorithm: COSEAlgorithm) throws -> SoftwareAuthenticator {
        try (algorithm == .es256 ? es256 : rs256).get()
    }

    /// A registration of `authenticator` with `spoil`, verified as frontdoor verifies it.
    static func register(
        _ authenticator: SoftwareAuthenticator, origin: String = origin, spoil: SoftwareAuthenticator.Spoil = .init()
    ) throws -> RegisteredPasskey {
        let response = try authenticator.register(challenge: challenge, rpId: rpId, origin: origin, spoil: spoil)
        return try PasskeyRegistration.verify(response, challenge: challenge, relyingParty: relyingParty)
    }

    /// The record a registration of `authenticator` leaves, with these counter and backup flags.
    static func stored(
        _ authenticator: SoftwareAuthenticator, signCount: UInt32 = 0, backupEligible: Bool = true,
        backupState: Bool = true
    ) -> StoredPasskey {
        StoredPasskey(
            credentialId: authenticator.credentialId, publicKey: authenticator.coseKey(), signCount: signCount,
            backupEligible: backupEligible, backupState: backupState, userHandle: userHandle)
    }

    /// An assertion of `authenticator` with `spoil`, verified against `stored`.
    static func signIn(
        _ authenticator: SoftwareAuthenticator, stored: StoredPasskey? = nil, origin: String = origin,
        userHandle: [UInt8]? = userHandle, spoil: SoftwareAuthenticator.Spoil = .init()
    ) throws -> VerifiedAssertion {
        let response = try authenticator.assert(
            challenge: challenge, rpId: rpId, origin: origin, userHandle: userHandle, spoil: spoil)
        return try PasskeyAssertion.verify(
            response, challenge: challenge, relyingParty: relyingParty, credential: stored ?? Self.stored(authenticator))
    }

    /// A spoil built by `change`.
    static func spoil(_ change: (inout SoftwareAuthenticator.Spoil) -> Void) -> SoftwareAuthenticator.Spoil {
        var spoil = SoftwareAuthenticator.Spoil()
        change(&spoil)
        return spoil
    }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)
        }
    }
}
