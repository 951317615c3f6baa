import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The iPhone app's client of a frontdoor server: one method per endpoint and action of the API
/// (docs/api.md), typed answers, and `FrontdoorError` for every failure. It keeps the session a
/// sign-in answers in `store`, sends it as the bearer where the API asks for one, and forgets it
/// when the server says it is gone (401), when it is signed out, and when the account is deleted.
///
/// Sign-ins made while signed in go out without the bearer, unless `reauthenticating` is true:
/// then the same account's session is proven again in place (rule 18), and another account's
/// is refused (`accountMismatch`).
public struct Frontdoor: Sendable {
    /// The server's `/auth` location, e.g. `https://example.com/auth`.
    public let baseURL: URL
    public let store: any SessionStore
    /// What the phone calls itself ("Ada's iPhone"), sent with every sign-in (at most 64 bytes).
    public let deviceName: String?
    let urlSession: URLSession
    let changes: SessionChanges

    /// `store`: by default the Keychain on Apple's platforms (`KeychainSessionStore()`: the person
    /// stays signed in across launches), memory elsewhere. Copies of this value share
    /// `sessionChanges`.
    public init(
        baseURL: URL, store: any SessionStore = Frontdoor.defaultStore, deviceName: String? = nil,
        urlSession: URLSession = .shared
    ) {
        self.baseURL = baseURL
        self.store = store
        self.deviceName = deviceName
        self.urlSession = urlSession
        changes = SessionChanges()
    }

    /// The Keychain where there is one, else memory.
    public static var defaultStore: any SessionStore {
        #if canImport(Security)
        KeychainSessionStore()
        #else
        InMemorySessionStore()
        #endif
    }

    /// What happens to the kept session, as it happens (the way supabase-swift's
    /// `authStateChanges` works): first what is kept now, then every sign-in, renewal and
    /// sign-out through this client, so a SwiftUI app observes instead of polling. Each call
    /// makes a stream of its own; it ends when its task is cancelled.
    public var sessionChanges: AsyncStream<SessionState> {
        changes.stream(current: (try? store.load()).flatMap { $0 }.map(SessionState.signedIn) ?? .signedOut)
    }

    /// The session kept from the last sign-in, without asking the server (`checkSession()` asks).
    public func storedSession() throws(FrontdoorError) -> StoredSession? {
        do {
            return try store.load()
        } catch {
            throw .sessionStore(String(describing: error))
        }
    }
}
