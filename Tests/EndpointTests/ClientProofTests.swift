import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

/// `verify-email` through the client: proof before a join (by password, by code), the account's
/// own address, a password reset, and the limits on codes.
@Suite(.serialized) struct ClientProofTests {
    static let password = ClientWorld.secret("correct horse battery staple 34")

    /// A Google sign-in meets a typed, never proven address: proof first, by the account's password.
    @Test func proofByPasswordJoinsGoogle() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        let typed = try await phone.register(email: ClientWorld.secret("joiner@gmail.com"), password: Self.password)
        let token = ClientWorld.secret(try world.h.google.token(sub: "g-joiner", email: ClientWorld.secret("joiner@gmail.com")))
        let other = world.phone()
        let refusal = await ClientWorld.failure { try await other.signInWithGoogle(idToken: token) }
        guard case .proofRequired(let ticket, let email, let methods)? = refusal else {
            Issue.record("\(String(describing: refusal))")
            return
        }
        _ = ClientWorld.secret(ticket)
        #expect(email == "joiner@gmail.com")
        #expect(methods == [.password, .emailCode])
        #expect(await ClientWorld.failure { try await other.confirm(ticket: ticket, password: "not the password 34") }
            == .invalidCredentials)
        let joined = try await other.confirm(ticket: ticket, password: Self.password)
        #expect(joined.accountId == typed.accountId)
        #expect(Set(joined.providers) == [.google, .password])
        #expect(try await other.signInWithGoogle(idToken: token).accountId == typed.accountId)
    }

    /// Proof by a mailed code: a second code within the interval is `rateLimited` with its wait;
    /// wrong codes are `invalidCode` until the fifth, then even the right one is `tooManyAttempts`.
    @Test func proofByCodeAndItsLimits() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        _ = try await phone.register(email: ClientWorld.secret("coded@example.org"), password: Self.password)
        let token = ClientWorld.secret(try world.h.google.token(sub: "g-coded", email: ClientWorld.secret("coded@example.org")))
        guard case .proofRequired(let ticket, _, let methods)? = await ClientWorld.failure({
            try await phone.signInWithGoogle(idToken: token)
        }) else {
            Issue.record("no proof_required")
            return
        }
        _ = ClientWorld.secret(ticket)
        #expect(methods == [.emailCode])
        let sent = try await phone.sendCode(ticket: ticket)
        #expect(sent.codeExpiresAt > Date())
        let again = await ClientWorld.failure { try await phone.sendCode(ticket: ticket) }
        guard case .rateLimited(let wait?)? = again, wait > 0 else {
            Issue.record("\(String(describing: again))")
            return
        }
        let code = try await world.code(to: "coded@example.org")
        let wrong = code == "000000" ? "000001" : "000000"
        for _ in 0..<5 {
            #expect(await ClientWorld.failure { try await phone.confirm(ticket: ticket, code: wrong) } == .invalidCode)
        }
        #expect(await ClientWorld.failure { try await phone.confirm(ticket: ticket, code: code) } == .tooManyAttempts)
    }

    @Test func theAccountsOwnAddressAndAReset() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        _ = try await phone.register(email: ClientWorld.secret("own@example.org"), password: Self.password)
        guard case .needsProof(let ticket, let email, let methods) = try await phone.verifyOwnEmail() else {
            Issue.record("a typed address is not proven")
            return
        }
        _ = ClientWorld.secret(ticket)
        #expect(email == "own@example.org")
        #expect(methods == [.emailCode])
        _ = try await phone.sendCode(ticket: ticket)
        let proven = try await phone.confirm(ticket: ticket, code: try await world.code(to: "own@example.org"))
        #expect(try await phone.checkSession()?.emailVerified == true)
        #expect(try await phone.verifyOwnEmail() == .verified)
        #expect(proven.email == "own@example.org")

        let mails = world.h.smtp.messages.count
        let reset = try await world.phone().requestPasswordReset(email: ClientWorld.secret("own@example.org"))
        _ = ClientWorld.secret(reset.ticket)
        let newPassword = ClientWorld.secret("a brand new passphrase for 34")
        let code = try await world.code(to: "own@example.org", after: mails)
        let signedIn = try await world.phone().resetPassword(ticket: reset.ticket, code: code, newPassword: newPassword)
        #expect(signedIn.email == "own@example.org")
        // Every other session ended, this phone's too.
        #expect(try await phone.checkSession() == nil)
        _ = try await phone.signIn(email: ClientWorld.secret("own@example.org"), password: newPassword)
    }
}
