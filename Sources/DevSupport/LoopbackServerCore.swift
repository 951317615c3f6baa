#if canImport(Glibc)
import Glibc
#endif

public struct LoopbackServerError: Error, CustomStringConvertible {
    public let description: String

    init(_ call: String, errno code: Int32 = errno) {
        description = "\(call): \(String(cString: strerror(code)))"
    }
}

/// The sockets and threads behind `LoopbackHTTPServer`. Threads hold this, not the server, so the
/// server's `deinit` runs (and stops them) when its last user lets go.
final class LoopbackServerCore: Sendable {
    struct State {
        var handler: Handler
        var requests: [LoopbackHTTPServer.Request] = []
        var connectionCount = 0
        var lastConnectionID = 0
        var liveThreads = 0
        var stopping = false
    }

    let port: Int
    /// `Locked` (a pthread mutex), not `Synchronization.Mutex`: on Linux the latter waits on a futex
    /// inside the uninstrumented standard library, so ThreadSanitizer saw its critical sections race.
    let state: Locked<State>
    private let listener: LoopbackListener
    /// Every poll that includes it wakes once `stop()` has been called.
    var wakeFD: Int32 { listener.wakeFD }

    typealias Handler = @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour

    init(port: Int, handler: @escaping Handler) throws {
        listener = try LoopbackListener(port: port)
        self.port = listener.port
        state = Locked(State(handler: handler))
        guard spawn({ $0.acceptLoop() }) else {
            listener.closeListening()
            throw LoopbackServerError("pthread_create", errno: EAGAIN)
        }
    }

    func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first { listener.wake() }
        // Every loop polls the wake pipe, so threads end within one poll; the bound only guards
        // against a handler that never returns.
        for _ in 0..<500 where state.withLock({ $0.liveThreads }) > 0 {
            usleep(2000)
        }
    }

    private func acceptLoop() {
        defer { listener.closeListening() }
        while let client = listener.accept() {
            let id = state.withLock { state in
                state.connectionCount += 1
                state.lastConnectionID += 1
                return state.lastConnectionID
            }
            let started = spawn { core in
                var connection = LoopbackConnection(fd: client, id: id, core: core)
                connection.serve()
            }
            if !started { close(client) }
        }
    }

    /// Starts a detached thread counted in `liveThreads`, which `stop()` waits on.
    private func spawn(_ body: @escaping @Sendable (LoopbackServerCore) -> Void) -> Bool {
        state.withLock { $0.liveThreads += 1 }
        let started = startDetachedThread { [self] in
            defer { state.withLock { $0.liveThreads -= 1 } }
            body(self)
        }
        if !started { state.withLock { $0.liveThreads -= 1 } }
        return started
    }
}
