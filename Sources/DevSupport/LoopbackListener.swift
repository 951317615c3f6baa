#if canImport(Glibc)
import CSystem
import Glibc
#endif

/// A listening socket on 127.0.0.1 and the wake pair `stop()` uses: what both loopback fakes (the
/// HTTP server and the SMTP sink) stand on. Every poll that includes `wakeFD` wakes once `wake()`
/// has written to the pair, which nobody reads, so it stays readable.
final class LoopbackListener: @unchecked Sendable {
    let port: Int
    let wakeFD: Int32
    private let listenFD: Int32
    private let wakeWriteFD: Int32

    /// Binds 127.0.0.1:`port` (0 picks a free one) and listens.
    init(port: Int) throws {
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
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            let error = LoopbackServerError("socketpair")
            close(fd)
            throw error
        }
        listenFD = fd
        wakeFD = pair[0]
        wakeWriteFD = pair[1]
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    /// Wakes every poll on `wakeFD`, for good.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)
    }

    /// The next connection (close-on-exec), or nil once woken or on a failure that ends accepting.
    func accept() -> Int32? {
        while true {
            var fds = [
                pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, fds[1].revents == 0 else { return nil }
            // accept4, not accept: a plain accept would leave a window in which a test's fork
            // inherits the connection and holds it open.
            let client = accept4(listenFD, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            if client >= 0 { return client }
            if errno == EINTR || errno == ECONNABORTED || errno == EAGAIN { continue }
            return nil
        }
    }

    /// Called once by the accept loop as it ends.
    func closeListening() {
        close(listenFD)
    }
}
