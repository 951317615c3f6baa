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

    public init(
        baseURL: URL, store: any SessionStore = InMemorySessionStore(), deviceName: String? = nil,
        urlSession: URLSession = .shared
    ) {
        self.baseURL = baseURL
        self.store = store
        self.deviceName = deviceName
        self.urlSession = urlSession
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
