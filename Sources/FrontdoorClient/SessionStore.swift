import Foundation

/// Where the client keeps the signed-in session between launches. On an iPhone,
/// `KeychainSessionStore`; in tests and previews, `InMemorySessionStore`. Errors are the store's
/// own; the client reports them as `FrontdoorError.sessionStore`.
public protocol SessionStore: Sendable {
    func load() throws -> StoredSession?
    func save(_ session: StoredSession) throws
    func clear() throws
}

/// A session kept in memory only: gone when the process ends.
public final class InMemorySessionStore: SessionStore, @unchecked Sendable {
    private let lock = NSLock()
    private var session: StoredSession?

    public init(_ session: StoredSession? = nil) {
        self.session = session
    }

    public func load() -> StoredSession? {
        lock.lock()
        defer { lock.unlock() }
        return session
    }

    public func save(_ session: StoredSession) {
        lock.lock()
        defer { lock.unlock() }
        self.session = session
    }

    public func clear() {
        lock.lock()
        defer { lock.unlock() }
        session = nil
    }
}
