import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

/// `signin-google` through the client.
@Suite(.serialized) struct ClientGoogleTests {
    @Test func googleSignInsAndTheirRefusals() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        let google = world.h.google
        // Google's keys cannot be had yet: the same token may be sent again.
        google.setDown(true)
        let early = ClientWorld.secret(try google.token(sub: "g-client", email: "client.user@gmail.com"))
        #expect(await ClientWorld.failure { try await phone.signInWithGoogle(idToken: early) } == .upstreamUnavailable(startOver: false))
        google.setDown(false)
        let session = try await phone.signInWithGoogle(idToken: early)
        _ = ClientWorld.secret(session.sessionToken)
        #expect(session.created)
        #expect(session.providers == [.google])
        #expect(try await phone.checkSession()?.emailVerified == true)

        #expect(await ClientWorld.failure { try await phone.signInWithGoogle(idToken: "not.a.token") } == .invalidToken)
        let unverified = ClientWorld.secret(try google.token(sub: "g-unverified", email: "unverified@example.org", emailVerified: false))
        #expect(await ClientWorld.failure { try await world.phone().signInWithGoogle(idToken: unverified) } == .emailNotVerified)
        // A second Google identity with the same address: one identity per provider.
        let twin = ClientWorld.secret(try google.token(sub: "g-client-twin", email: "client.user@gmail.com"))
        #expect(await ClientWorld.failure { try await world.phone().signInWithGoogle(idToken: twin) } == .emailTaken)
        #expect(try await phone.deleteAccount() == .notApplicable)
    }

    /// The nonce the app gave Google goes with the token (`signInWithGoogle(idToken:nonce:)`):
    /// with `google.requireNonce` on, that sign-in passes and one without a nonce does not.
    @Test func aNonceGoesWithEveryGoogleSignIn() async throws {
        let h = try Harness()
        try h.writeConfig([("google", .object([
            ("clientIds", .array([.string(FakeGoogle.clientId)])), ("certsUrl", .string(h.google.certsURL)),
            ("requireNonce", true),
        ]))])
        let world = try ClientWorld(h)
        let nonce = Nonce()
        let token = ClientWorld.secret(try h.google.token(
            sub: "g-nonce", email: "nonce.user@gmail.com", overrides: [("nonce", .string(nonce.hashed))]))
        let session = try await world.phone().signInWithGoogle(idToken: token, nonce: nonce)
        _ = ClientWorld.secret(session.sessionToken)
        #expect(session.created)
        let bare = ClientWorld.secret(try h.google.token(sub: "g-bare", email: "bare.user@gmail.com"))
        #expect(await ClientWorld.failure { try await world.phone().signInWithGoogle(idToken: bare) } == .invalidToken)
    }
}
