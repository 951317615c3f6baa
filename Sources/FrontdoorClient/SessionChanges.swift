import Foundation

/// The kept session as `sessionChanges` tells it.
public enum SessionState: Equatable, Sendable {
    /// A sign-in kept this session (and, first, one kept from before).
    case signedIn(StoredSession)
    /// `checkSession()` found the server had moved its expiry, and kept the new one.
    case renewed(StoredSession)
    /// No session is kept: signed out, deleted, or gone at the server (401).
    case signedOut
}

/// The streams of one client and its copies: each `sessionChanges` call adds a continuation,
/// removed when its consumer goes away.
final class SessionChanges: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<SessionState>.Continuation] = [:]

    func stream(current: SessionState) -> AsyncStream<SessionState> {
        AsyncStream { continuation in
            let id = UUID()
            lock.lock()
            continuations[id] = continuation
            lock.unlock()
            continuation.yield(current)
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.lock.lock()
                self.continuations[id] = nil
                self.lock.unlock()
            }
        }
    }

    func send(_ state: SessionState) {
        lock.lock()
        let all = Array(continuations.values)
        lock.unlock()
        for continuation in all { continuation.yield(state) }
    }
}
