import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

/// The Swift client's settings calls (rule 18) against the real server: each change, and each of
/// the settings' own errors as the server produces it (issue 34: every code of the contract).
@Suite(.serialized) struct ClientSettingsTests {
    static let password = ClientWorld.secret("correct horse battery staple 34")
    static let newPassword = ClientWorld.secret("a brand new passphrase for ada")

    /// Moves the session's last real sign-in past the recent window (600 s by default).
    static func age(_ world: ClientWorld, _ session: FrontdoorClient.Session) throws {
        try world.h.database().run(
            "UPDATE sessions SET signed_in_at = signed_in_at - 700 WHERE session_id = ?", [.text(session.sessionId)])
    }

    /// A password changed (other sessions end), refused by rule 19 and by a wrong current one; an
    /// address changed by a code to the new one, after the sign-in it asked for proved the same
    /// session again; another account's sign-in refused as proof.
    @Test func passwordAndAddress() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        let ada = try await phone.register(email: ClientWorld.secret("ada.settings@example.org"), password: Self.password)
        _ = ClientWorld.secret(ada.sessionToken)
        let tablet = world.phone("Ada's iPad")
        _ = ClientWorld.secret(try await tablet.signIn(email: "ada.settings@example.org", password: Self.password).sessionToken)

        #expect(await ClientWorld.failure {
            try await phone.changePassword(current: ClientWorld.secret("not the right password"), new: Self.newPassword)
        } == .invalidCredentials)
        let repetitive = await ClientWorld.failure {
            try await phone.changePassword(current: Self.password, new: ClientWorld.secret("aaaaaaaaaaaaaaaaaaaa"))
        }
        guard case .invalidPassword(reason: .repetitive?, minLength: .some) = repetitive else {
            Issue.record("\(String(describing: repetitive))")
            return
        }
        #expect(await ClientWorld.failure { try await phone.setPassword(Self.newPassword) } == .passwordExists)
        let changed = try await phone.changePassword(current: Self.password, new: Self.newPassword)
        #expect(changed == PasswordChange(changed: true, ended: 1))
        #expect(try await tablet.checkSession() == nil)

        #expect(await ClientWorld.failure { try await phone.changeEmail(to: "ada@gmial.com") } == .invalidEmail(suggestion: "ada@gmail.com"))
        let bob = world.phone()
        _ = ClientWorld.secret(try await bob.register(email: ClientWorld.secret("bob.settings@example.org"), password: Self.password).sessionToken)
        #expect(await ClientWorld.failure { try await phone.changeEmail(to: "bob.settings@example.org") } == .emailTaken)

        try Self.age(world, ada)
        #expect(await ClientWorld.failure { try await phone.changeEmail(to: "ada.moved@example.org") }
            == .reauthenticationRequired(methods: [.password]))
        #expect(await ClientWorld.failure {
            try await phone.signIn(email: "bob.settings@example.org", password: Self.password, reauthenticating: true)
        } == .accountMismatch)
        let proven = try await phone.signIn(email: "ada.settings@example.org", password: Self.newPassword, reauthenticating: true)
        #expect(proven.reauthenticated == true && proven.sessionId == ada.sessionId && proven.sessionToken == ada.sessionToken)

        let mails = world.h.smtp.messages.count
        let change = try await phone.changeEmail(to: ClientWorld.secret("ada.moved@example.org"))
        #expect(change.email == "ada.moved@example.org")
        let code = try await world.code(to: "ada.moved@example.org", after: mails)
        let moved = try await phone.confirm(ticket: ClientWorld.secret(change.ticket), code: ClientWorld.secret(code), reauthenticating: true)
        #expect(moved.email == "ada.moved@example.org" && moved.sessionId == ada.sessionId && moved.reauthenticated == true)
        let account = try await phone.account()
        #expect(account.email == "ada.moved@example.org" && account.emailVerified)
    }

    /// Google linked and unlinked, a password set on a Google account, and the refusals: no
    /// password to change, a provider already linked, an identity another account has, the last
    /// way in.
    @Test func waysIn() async throws {
        let world = try ClientWorld(try Harness())
        let google = world.h.google
        let gracePhone = world.phone()
        let grace = try await gracePhone.signInWithGoogle(
            idToken: ClientWorld.secret(try google.token(sub: "g-settings-grace", email: "grace.settings@gmail.com")))
        _ = ClientWorld.secret(grace.sessionToken)
        #expect(await ClientWorld.failure { try await gracePhone.changePassword(current: Self.password, new: Self.newPassword) }
            == .noPassword)
        try await gracePhone.setPassword(Self.newPassword)
        #expect(try await gracePhone.account().hasPassword)
        let withoutGoogle = try await gracePhone.unlink(.google)
        #expect(withoutGoogle.providers.map(\.provider) == [] && withoutGoogle.hasPassword, "\(withoutGoogle.providers)")
        #expect(await ClientWorld.failure { try await gracePhone.unlink(.password) } == .lastSignInMethod)
        let relinked = try await gracePhone.linkGoogle(
            idToken: ClientWorld.secret(try google.token(sub: "g-settings-grace", email: "grace.settings@gmail.com")))
        #expect(relinked.providers.map(\.provider).contains(.google))
        #expect(await ClientWorld.failure {
            try await gracePhone.linkGoogle(idToken: ClientWorld.secret(try google.token(sub: "g-settings-other", email: "other@gmail.com")))
        } == .providerLinked)

        let adaPhone = world.phone()
        _ = ClientWorld.secret(try await adaPhone.register(email: ClientWorld.secret("ada.ways@example.org"), password: Self.password).sessionToken)
        #expect(await ClientWorld.failure {
            try await adaPhone.linkGoogle(idToken: ClientWorld.secret(try google.token(sub: "g-settings-grace", email: "grace.settings@gmail.com")))
        } == .identityTaken)
        #expect(await ClientWorld.failure { try await adaPhone.deletePasskey(id: "no-such-passkey") } == .notFound)
    }
}
