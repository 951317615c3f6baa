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
    private let listenFD: Int32
    /// One end of a socket pair that `stop()` writes to and nobody reads, so it stays readable: every
    /// poll that includes it wakes.
    let wakeFD: Int32
    private let wakeWriteFD: Int32

    typealias Handler = @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour

    init(port: Int, handler: @escaping Handler) throws {
        guard (0...65535).contains(port) else { throw LoopbackServerError("port", errno: EINVAL) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackServerError("socket") }
        var yes: Int32 = 1
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0
                    && bind(fd, raw, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let error = LoopbackServerError("bind 127.0.0.1:\(port)")
            close(fd)
            throw error
        }
        var pipeFDs: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeFDs) == 0 else {
            let error = LoopbackServerError("socketpair")
            close(fd)
            throw error
        }
        listenFD = fd
        wakeFD = pipeFDs[0]
        wakeWriteFD = pipeFDs[1]
        self.port = Int(UInt16(bigEndian: address.sin_port))
        state = Locked(State(handler: handler))
        guard spawn({ $0.acceptLoop() }) else {
            close(listenFD)
            throw LoopbackServerError("pthread_create", errno: EAGAIN)
        }
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first {
            var byte: UInt8 = 1
            _ = write(wakeWriteFD, &byte, 1)
        }
        // Every loop polls the wake pipe, so threads end within one poll; the bound only guards
        // against a handler that never returns.
        for _ in 0..<500 where state.withLock({ $0.liveThreads }) > 0 {
            usleep(2000)
        }
    }

    private func acceptLoop() {
        defer { close(listenFD) }
        while true {
            var fds = [
                pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, fds[1].revents == 0 else { return }
            let client = Self.accept4(listenFD, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED || errno == EAGAIN { continue }
                return
            }
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
        let box = Unmanaged.passRetained(ThreadBody { [self] in
            defer { state.withLock { $0.liveThreads -= 1 } }
            body(self)
        })
        var thread: pthread_t = 0
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        if started == 0 {
            pthread_detach(thread)
        } else {
            box.release()
            state.withLock { $0.liveThreads -= 1 }
        }
        return started == 0
    }
}

extension LoopbackServerCore {
    private typealias Accept4 = @convention(c) (
        Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
    ) -> Int32

    /// Glibc's Swift module hides accept4 (it wants _GNU_SOURCE), and a plain accept would leave a
    /// window in which a test's fork inherits the connection and holds it open.
    private static let accept4: Accept4 = unsafeBitCast(dlsym(nil, "accept4")!, to: Accept4.self)
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
