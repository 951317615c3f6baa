import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

/// The passkey calls through the client, with the software authenticator as the phone's
/// (`SoftwareAuthenticator` makes what iOS's platform authenticator makes, byte for byte).
@Suite(.serialized) struct ClientPasskeyTests {
    static func world() throws -> ClientWorld {
        let h = try Harness()
        try h.writeConfig([PasskeyWorld.section, ("limits", .object([("passkeyRegistrationsPerAccountPerHour", 100)]))])
        return try ClientWorld(h)
    }

    static func registration(_ authenticator: SoftwareAuthenticator, _ options: PasskeyRegistrationOptions) throws
        -> PasskeyRegistrationCredential
    {
        let made = try authenticator.register(challenge: [UInt8](options.challenge), rpId: options.rpId, origin: PasskeyWorld.origin)
        return PasskeyRegistrationCredential(
            credentialId: Data(made.credentialId), clientDataJSON: Data(made.clientDataJSON),
            attestationObject: Data(made.attestationObject))
    }

    static func assertion(
        _ authenticator: SoftwareAuthenticator, _ options: PasskeyAssertionOptions, userHandle: Data,
        spoil: SoftwareAuthenticator.Spoil = .init()
    ) throws -> PasskeyAssertionCredential {
        let made = try authenticator.assert(
            challenge: [UInt8](options.challenge), rpId: options.rpId, origin: PasskeyWorld.origin,
            userHandle: [UInt8](userHandle), spoil: spoil)
        return PasskeyAssertionCredential(
            credentialId: Data(made.credentialId), clientDataJSON: Data(made.clientDataJSON),
            authenticatorData: Data(made.authenticatorData), signature: Data(made.signature),
            userHandle: made.userHandle.map { Data($0) })
    }

    func googlePhone(_ world: ClientWorld, _ sub: String) async throws -> (Frontdoor, Session) {
        let phone = world.phone()
        let token = ClientWorld.secret(try world.h.google.token(sub: sub, email: "\(sub)@gmail.com"))
        return (phone, try await phone.signInWithGoogle(idToken: token))
    }

    @Test func registerListSignInAndDelete() async throws {
        let world = try Self.world()
        let (phone, session) = try await googlePhone(world, "passkey-person")
        let authenticator = try SoftwareAuthenticator()
        let options = try await phone.beginPasskeyRegistration()
        #expect(options.rpId == PasskeyWorld.rpId)
        #expect(options.userName == "passkey-person@gmail.com")
        #expect(options.excludedCredentialIds.isEmpty)
        let added = try await phone.finishPasskeyRegistration(options, credential: try Self.registration(authenticator, options), name: "iPhone")
        let listed = try await phone.passkeys()
        #expect(listed.map(\.passkeyId) == [added.passkeyId])
        #expect(listed.first?.name == "iPhone")
        #expect(listed.first?.lastUsedAt == nil)
        #expect(try await phone.account().passkeys?.map(\.passkeyId) == [added.passkeyId])
        // The next registration lists it, so the phone does not make it twice.
        #expect(try await phone.beginPasskeyRegistration().excludedCredentialIds == [Data(authenticator.credentialId)])

        let other = world.phone("Another phone")
        let signIn = try await other.beginPasskeySignIn()
        let credential = try Self.assertion(authenticator, signIn, userHandle: options.userId)
        let signedIn = try await other.finishPasskeySignIn(signIn, credential: credential)
        _ = ClientWorld.secret(signedIn.sessionToken)
        #expect(signedIn.accountId == session.accountId)
        #expect(signedIn.providers.contains(.passkey))
        #expect(try await other.checkSession()?.providers.contains(.passkey) == true)
        // A ceremony is used once.
        #expect(await ClientWorld.failure { try await other.finishPasskeySignIn(signIn, credential: credential) } == .invalidTicket)
        // A signature that fails the check.
        var spoil = SoftwareAuthenticator.Spoil()
        spoil.signature = true
        let next = try await other.beginPasskeySignIn()
        let spoiled = try Self.assertion(authenticator, next, userHandle: options.userId, spoil: spoil)
        #expect(await ClientWorld.failure { try await other.finishPasskeySignIn(next, credential: spoiled) } == .invalidCredentials)

        #expect(await ClientWorld.failure { try await phone.deletePasskey(id: "no-such-passkey") } == .notFound)
        try await phone.deletePasskey(id: added.passkeyId)
        #expect(try await phone.passkeys().isEmpty)
    }

    @Test func registrationRefusals() async throws {
        let world = try Self.world()
        let (phone, _) = try await googlePhone(world, "passkey-owner")
        let authenticator = try SoftwareAuthenticator()
        let options = try await phone.beginPasskeyRegistration()
        _ = try await phone.finishPasskeyRegistration(options, credential: try Self.registration(authenticator, options))
        // The same credential for another account.
        let (stranger, _) = try await googlePhone(world, "passkey-stranger")
        let theirs = try await stranger.beginPasskeyRegistration()
        #expect(await ClientWorld.failure {
            try await stranger.finishPasskeyRegistration(theirs, credential: try Self.registration(authenticator, theirs))
        } == .credentialTaken)
        // An address typed and never proven cannot add a passkey.
        let typed = world.phone()
        _ = try await typed.register(email: "unproven@example.org", password: ClientEmailTests.password)
        #expect(await ClientWorld.failure { try await typed.beginPasskeyRegistration() } == .emailNotVerified)
        // Twenty passkeys an account at most: the twenty-first is refused at its begin.
        for _ in 2...20 {
            let begun = try await phone.beginPasskeyRegistration()
            _ = try await phone.finishPasskeyRegistration(begun, credential: try Self.registration(try SoftwareAuthenticator(), begun))
        }
        #expect(try await phone.passkeys().count == 20)
        #expect(await ClientWorld.failure { try await phone.beginPasskeyRegistration() } == .tooManyPasskeys)
    }
}
