import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

/// `signin-apple` and a deletion's revocation through the client, in relay mode: the client's
/// own nonce, its hash in a dev Apple token (as Apple puts the request's nonce in the token), and
/// the relay's answers that tell the phone to start over or to try again.
@Suite(.serialized) struct ClientAppleTests {
    /// An Apple token as Apple mints it for a request whose nonce was `nonce.hashed`: the claim is
    /// the client's hash, not one the fake computed.
    static func token(_ w: AppleWorld, sub: String, nonce: Nonce, email: String? = nil, code: String? = nil) throws -> String {
        ClientWorld.secret(try w.apple.token(
            sub: sub, rawNonce: nil, email: email, code: code, overrides: [("nonce", .string(nonce.hashed))]))
    }

    @Test func theClientsNonceSignsInOnce() async throws {
        let w = try AppleWorld()
        let world = try ClientWorld(w.h)
        let phone = world.phone()
        let nonce = Nonce()
        let credential = AppleCredential(
            identityToken: try Self.token(w, sub: "apple-client", nonce: nonce, email: "apple.client@privaterelay.appleid.com"),
            nonce: nonce, givenName: "Ada", familyName: "Lovelace")
        let session = try await phone.signInWithApple(credential)
        _ = ClientWorld.secret(session.sessionToken)
        #expect(session.created)
        #expect(session.providers == [.apple])
        #expect(try await phone.account().name == "Ada Lovelace")
        // The nonce is spent: the same credential is refused.
        #expect(await ClientWorld.failure { try await world.phone().signInWithApple(credential) } == .invalidToken)
        // A token for another nonce's hash, and a raw nonce too short for the server.
        let other = AppleCredential(identityToken: try Self.token(w, sub: "apple-client", nonce: Nonce()), nonce: Nonce())
        #expect(await ClientWorld.failure { try await world.phone().signInWithApple(other) } == .invalidToken)
        let short = Nonce(raw: "short")
        let tooShort = AppleCredential(identityToken: try Self.token(w, sub: "apple-client", nonce: short), nonce: short)
        #expect(await ClientWorld.failure { try await world.phone().signInWithApple(tooShort) } == .invalidRequest)
    }

    /// Firebase answered a 5xx, so it may have taken the credential: a new sign-in. Firebase
    /// unreachable: the same credential again. Firebase refuses the project's set-up: `internal`.
    @Test func theRelaysAnswersForThePhone() async throws {
        let w = try AppleWorld()
        let world = try ClientWorld(w.h)
        let phone = world.phone()
        func fresh(_ sub: String) throws -> AppleCredential {
            let nonce = Nonce()
            return AppleCredential(identityToken: try Self.token(w, sub: sub, nonce: nonce), nonce: nonce)
        }
        w.firebase.setSignIn(.error(status: 503, message: "UNAVAILABLE"))
        let over = try fresh("apple-over")
        #expect(await ClientWorld.failure { try await phone.signInWithApple(over) } == .upstreamUnavailable(startOver: true))
        w.firebase.setSignIn(.error(status: 400, message: "OPERATION_NOT_ALLOWED : The identity provider is disabled."))
        let refused = try fresh("apple-internal")
        #expect(await ClientWorld.failure { try await phone.signInWithApple(refused) } == .internal)
        w.firebase.setSignIn(.normal)

        var members = w.configMembers()
        if let i = members.firstIndex(where: { $0.0 == "firebase" }), case .object(var inner) = members[i].1,
            let j = inner.firstIndex(where: { $0.0 == "identityToolkitUrl" })
        {
            inner[j].1 = .string("http://127.0.0.1:\(try Stack.freePort())")
            members[i].1 = .object(inner)
        }
        try w.h.writeConfig(members)
        let retryable = try fresh("apple-again")
        #expect(await ClientWorld.failure { try await phone.signInWithApple(retryable) } == .upstreamUnavailable(startOver: false))
        try w.writeConfig()
        // The nonce was given back: the same credential now signs in.
        #expect(try await phone.signInWithApple(retryable).created)
    }

    /// A deletion with a fresh Apple authorization (a new nonce, a code) schedules the revocation.
    @Test func deletingWithAFreshAppleAuthorization() async throws {
        let w = try AppleWorld()
        let world = try ClientWorld(w.h)
        let phone = world.phone()
        let nonce = Nonce()
        _ = try await phone.signInWithApple(AppleCredential(identityToken: try Self.token(w, sub: "apple-leaving", nonce: nonce), nonce: nonce))
        let code = ClientWorld.secret(try w.apple.issueCode(sub: "apple-leaving"))
        let freshNonce = Nonce()
        let fresh = AppleCredential(
            identityToken: try Self.token(w, sub: "apple-leaving", nonce: freshNonce, code: code), authorizationCode: code,
            nonce: freshNonce)
        #expect(try await phone.deleteAccount(apple: fresh) == .scheduled)
        #expect(try phone.storedSession() == nil)
        // Without a fresh authorization an Apple account is deleted without revoking.
        let second = Nonce()
        _ = try await phone.signInWithApple(AppleCredential(identityToken: try Self.token(w, sub: "apple-leaving-2", nonce: second), nonce: second))
        #expect(try await phone.deleteAccount() == .notRequested)
    }
}
