import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

/// The Swift client's email and password calls, the session's own calls and the account, each
/// against the real server through nginx, with the typed answers and errors the server gives.
@Suite(.serialized) struct ClientEmailTests {
    static let password = ClientWorld.secret("correct horse battery staple 34")

    /// Register, check, a second phone, sign out the others, one session by id, delete.
    @Test func theSignInCheckSignOutDeleteCycle() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone("Ada's iPhone")
        #expect(try await phone.checkSession() == nil)
        let session = try await phone.register(email: ClientWorld.secret("ada.cycle@example.org"), password: Self.password, name: "Ada")
        _ = ClientWorld.secret(session.sessionToken)
        #expect(session.created)
        #expect(session.providers == [.password])
        #expect(session.email == "ada.cycle@example.org")
        #expect(session.sessionExpiresAt > Date())
        #expect(try phone.storedSession() == StoredSession(session))

        let check = try #require(try await phone.checkSession())
        #expect(check.accountId == session.accountId)
        #expect(check.sessionId == session.sessionId)
        #expect(!check.emailVerified)

        let tablet = world.phone("Ada's iPad")
        let second = try await tablet.signIn(email: ClientWorld.secret("ada.cycle@example.org"), password: Self.password)
        _ = ClientWorld.secret(second.sessionToken)
        #expect(!second.created)
        #expect(second.accountId == session.accountId)

        let account = try await phone.account()
        #expect(account.accountId == session.accountId)
        #expect(account.name == "Ada")
        #expect(account.hasPassword)
        #expect(Set(account.sessions.map(\.deviceName)) == ["Ada's iPhone", "Ada's iPad"])
        #expect(account.sessions.first { $0.current }?.sessionId == session.sessionId)
        #expect(try await phone.setName("Ada Lovelace").name == "Ada Lovelace")
        #expect(try await phone.setName(nil).name == nil)

        // Signing out the others ends the tablet's session: its next check finds none, and forgets it.
        #expect(try await phone.signOut(.others) == 1)
        #expect(try await tablet.checkSession() == nil)
        #expect(try tablet.storedSession() == nil)
        #expect(await ClientWorld.failure { try await tablet.account() } == .unauthorized)

        // One session by its id: another's or an unknown one is not found.
        let third = world.phone()
        let thirdSession = try await third.signIn(email: ClientWorld.secret("ada.cycle@example.org"), password: Self.password)
        #expect(await ClientWorld.failure { try await phone.signOut(.session("no-such-session")) } == .notFound)
        #expect(try await phone.signOut(.session(thirdSession.sessionId)) == 1)
        #expect(try await third.checkSession() == nil)

        #expect(try await phone.deleteAccount() == .notApplicable)
        #expect(try phone.storedSession() == nil)
        #expect(await ClientWorld.failure {
            try await phone.signIn(email: ClientWorld.secret("ada.cycle@example.org"), password: Self.password)
        } == .invalidCredentials)
    }

    @Test func signingOutThisPhoneForgetsItsSession() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        _ = try await phone.register(email: ClientWorld.secret("out@example.org"), password: Self.password)
        #expect(try await phone.signOut() == 1)
        #expect(try phone.storedSession() == nil)
        // No session kept: refused without asking.
        #expect(await ClientWorld.failure { try await phone.signOut() } == .unauthorized)
        _ = try await phone.signIn(email: ClientWorld.secret("out@example.org"), password: Self.password)
        #expect(try await phone.signOut(.all) == 1)
        #expect(try phone.storedSession() == nil)
    }

    /// The refusals of registration and sign-in, each as the server gives it.
    @Test func registrationAndSignInRefusals() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        #expect(await ClientWorld.failure { try await phone.register(email: ClientWorld.secret("ada@gmial.com"), password: Self.password) }
            == .invalidEmail(suggestion: "ada@gmail.com"))
        #expect(AddressCheck.suggestion(for: "ada@gmial.com") == "ada@gmail.com")
        #expect(await ClientWorld.failure { try await phone.register(email: "not an address", password: Self.password) }
            == .invalidEmail(suggestion: nil))
        let typed = try await phone.register(email: ClientWorld.secret("ada@gmial.com"), password: Self.password, acceptAsTyped: true)
        #expect(typed.email == "ada@gmial.com")
        #expect(await ClientWorld.failure { try await phone.register(email: ClientWorld.secret("ADA@gmial.com"), password: Self.password, acceptAsTyped: true) }
            == .emailTaken)
        #expect(await ClientWorld.failure { try await phone.signIn(email: ClientWorld.secret("ada@gmial.com"), password: "wrong password 34") }
            == .invalidCredentials)
        let refusal = await ClientWorld.failure { try await phone.register(email: ClientWorld.secret("short@example.org"), password: "short") }
        // Rule 19's answer as the client reads it: the reason and the config's minimum (8 here).
        guard case .invalidPassword(reason: .tooShort?, minLength: 8?) = refusal else {
            Issue.record("\(String(describing: refusal))")
            return
        }
        let huge = String(repeating: "p", count: 20_000)
        #expect(await ClientWorld.failure { try await phone.register(email: ClientWorld.secret("big@example.org"), password: huge) } == .payloadTooLarge)
        #expect(await ClientWorld.failure { try await phone.setName("a\u{0007}b") } == .invalidRequest)
        #expect(await ClientWorld.failure { try await phone.sendCode(ticket: "no-such-ticket") } == .invalidTicket)
        // No passkeys section in this config.
        #expect(await ClientWorld.failure { try await phone.beginPasskeySignIn() } == .notFound)
    }

    /// A stored session the server does not know: the check forgets it; a call with it is `unauthorized`.
    @Test func aSessionTheServerDoesNotKnowIsForgotten() async throws {
        let world = try ClientWorld(try Harness())
        let unknown = StoredSession(
            accountId: "a", sessionToken: String(repeating: "A", count: 43), sessionId: "s", sessionExpiresAt: Date())
        let store = InMemorySessionStore(unknown)
        let phone = Frontdoor(baseURL: world.phone().baseURL, store: store)
        #expect(await ClientWorld.failure { try await phone.account() } == .unauthorized)
        #expect(store.load() == nil)
        store.save(unknown)
        #expect(try await phone.checkSession() == nil)
        #expect(store.load() == nil)
    }

    /// What the client never sends (another method, another content type), answered by the real
    /// server and read by the client's own decoding.
    @Test func methodAndMediaTypeRefusalsAreRead() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        let get = try await phone.send("signin-email", method: "GET", body: nil)
        #expect(ClientError(status: get.status, body: get.body, retryAfter: get.retryAfter) == .methodNotAllowed)
        let text = try await phone.send("signin-email", body: Data("{}".utf8), contentType: "text/plain")
        #expect(ClientError(status: text.status, body: text.body, retryAfter: text.retryAfter) == .unsupportedMediaType)
    }

    /// The operator disabled the account: every sign-in is refused with its own code.
    @Test func aDisabledAccountIsSaidSo() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        let session = try await phone.register(email: ClientWorld.secret("disabled@example.org"), password: Self.password)
        #expect(try world.h.admin(["disable", session.accountId]).status == 0)
        #expect(try await phone.checkSession() == nil)
        #expect(await ClientWorld.failure { try await phone.signIn(email: ClientWorld.secret("disabled@example.org"), password: Self.password) }
            == .accountDisabled)
    }
}
