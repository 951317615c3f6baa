#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

/// Sessions an app can live with (issue 46): `sessionChanges` tells every sign-in, renewal and
/// sign-out as it happens; `checkSession()` keeps a renewed expiry; a cancelled task is
/// `.cancelled`, not an outage. Against the real server.
@Suite(.serialized) struct ClientSessionStateTests {
    /// Collects what the stream says until `count` states came.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var states: [SessionState] = []
        func add(_ state: SessionState) { lock.withLock { states.append(state) } }
        var all: [SessionState] { lock.withLock { states } }
    }

    static func until(_ seen: Seen, count: Int) async throws {
        for _ in 0..<400 where seen.all.count < count { try await Task.sleep(nanoseconds: 10_000_000) }
    }

    @Test func theStreamTellsSignInRenewalAndSignOut() async throws {
        let world = try ClientWorld(try Harness())
        let phone = world.phone()
        let seen = Seen()
        let watching = Task { for await state in phone.sessionChanges { seen.add(state) } }
        defer { watching.cancel() }
        try await Self.until(seen, count: 1)
        #expect(seen.all == [.signedOut], "nothing kept yet")

        let token = ClientWorld.secret(try world.h.google.token(sub: "state-watch", email: "state.watch@gmail.com"))
        let session = try await phone.signInWithGoogle(idToken: token)
        _ = ClientWorld.secret(session.sessionToken)
        try await Self.until(seen, count: 2)
        #expect(seen.all.last == .signedIn(StoredSession(session)))

        // The session is due for renewal: the check moves its expiry, and the client keeps it. (A
        // second later than the sign-in, so that the renewed expiry, to the second, is another.)
        try await Task.sleep(nanoseconds: 1_100_000_000)
        try world.h.database().run(
            "UPDATE sessions SET expires_at = expires_at - 100000, last_used_at = last_used_at - 100000 WHERE session_id = ?",
            [.text(session.sessionId)])
        let checked = try #require(try await phone.checkSession())
        #expect(checked.sessionExpiresAt > session.sessionExpiresAt)
        #expect(try phone.storedSession()?.sessionExpiresAt == checked.sessionExpiresAt)
        try await Self.until(seen, count: 3)
        #expect(seen.all.last == .renewed(try #require(try phone.storedSession())), "\(seen.all.map { "\($0)".prefix(60) })")

        try await phone.signOut()
        try await Self.until(seen, count: 4)
        #expect(seen.all.last == .signedOut && seen.all.count == 4, "\(seen.all)")
        // A second stream starts from what is kept now.
        var second = phone.sessionChanges.makeAsyncIterator()
        let first: SessionState? = await second.next()
        #expect(first == .signedOut)
    }

    /// The next launch: a new client on the same store is signed in (its stream starts there, and
    /// the server knows the session); what the default store is where there is no Keychain.
    @Test func theNextLaunchIsStillSignedIn() async throws {
        let world = try ClientWorld(try Harness())
        let store = InMemorySessionStore()
        let url = URL(string: world.stack.baseURL + "/auth")!
        let token = ClientWorld.secret(try world.h.google.token(sub: "state-launch", email: "state.launch@gmail.com"))
        let session = try await Frontdoor(baseURL: url, store: store).signInWithGoogle(idToken: token)
        _ = ClientWorld.secret(session.sessionToken)
        let relaunched = Frontdoor(baseURL: url, store: store)
        var states = relaunched.sessionChanges.makeAsyncIterator()
        let first: SessionState? = await states.next()
        #expect(first == .signedIn(StoredSession(session)))
        #expect(try await relaunched.checkSession()?.accountId == session.accountId)
        #expect(Frontdoor.defaultStore is InMemorySessionStore, "no Keychain on Linux")
    }

    /// A server that takes the request and never answers; the caller's task is cancelled.
    @Test func aCancelledTaskIsCancelledNotAnOutage() async throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let phone = Frontdoor(baseURL: URL(string: "http://127.0.0.1:\(port)/auth")!, store: InMemorySessionStore())
        let call = Task { () async -> ClientError? in
            do throws(ClientError) {
                _ = try await phone.signIn(email: "cancel@example.org", password: "a password long enough")
                return nil
            } catch {
                return error
            }
        }
        // Held: the request reached the server, which says nothing.
        let client = accept(fd, nil, nil)
        #expect(client >= 0)
        defer { if client >= 0 { close(client) } }
        call.cancel()
        #expect(await call.value == .cancelled)
        #expect(ClientError.cancelled.sentence.isEmpty == false)
    }
}
