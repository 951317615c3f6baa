#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking stream socket to the server, where every wait (connect, each write, each read)
/// is a `poll` bounded by the caller's deadline. A failed connect closes it; after that its owner
/// closes it (`close`, or deinit on every path).
final class PostgresSocket {
    private var fd: Int32
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)

    /// Connects to `address` before `deadline` (monotonic milliseconds).
    init(_ address: PostgresURL.Address, deadline: Double) throws(PostgresError) {
        switch address {
        case .unixSocket(let directory, let port):
            let path = directory + "/.s.PGSQL.\(port)"
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw PostgresError(.connectFailed, "socket: errno \(errno)") }
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
                close()
                throw PostgresError(.connectFailed, "socket path too long")
            }
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            try connect(&addr, MemoryLayout<sockaddr_un>.size, deadline: deadline, what: path)
        case .tcp(let host, let port):
            let v6 = host.contains(":")
            fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw PostgresError(.connectFailed, "socket: errno \(errno)") }
            var noDelay: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let what = "\(host) port \(port)"
            if v6 {
                var addr = sockaddr_in6()
                addr.sin6_family = sa_family_t(AF_INET6)
                addr.sin6_port = in_port_t(UInt16(port).bigEndian)
                guard inet_pton(AF_INET6, host, &addr.sin6_addr) == 1 else {
                    close()
                    throw PostgresError(.connectFailed, "not an address: \(what)")
                }
                try connect(&addr, MemoryLayout<sockaddr_in6>.size, deadline: deadline, what: what)
            } else {
                var addr = sockaddr_in()
                addr.sin_family = sa_family_t(AF_INET)
                addr.sin_port = in_port_t(UInt16(port).bigEndian)
                guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else {
                    close()
                    throw PostgresError(.connectFailed, "not an address: \(what)")
                }
                try connect(&addr, MemoryLayout<sockaddr_in>.size, deadline: deadline, what: what)
            }
        }
    }

    deinit { close() }

    var isOpen: Bool { fd >= 0 }

    func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    private func connect<A>(_ addr: inout A, _ length: Int, deadline: Double, what: String) throws(PostgresError) {
        while true {
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(length)) }
            }
            if rc == 0 { return }
            let error = errno
            switch error {
            case EINTR:
                continue
            case EAGAIN:
                // A unix socket whose backlog is full: the server is swamped; try again shortly.
                guard Clock.monotonicMillis() < deadline else {
                    close()
                    throw PostgresError(.timedOut, "connecting to \(what): the listen queue stayed full")
                }
                usleep(1_000)
                continue
            case EINPROGRESS:
                try wait(POLLOUT, deadline: deadline, what: "connecting to \(what)")
                var soError: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &size) == 0 else {
                    close()
                    throw PostgresError(.connectFailed, "connecting to \(what): errno \(errno)")
                }
                if soError == 0 { return }
                close()
                throw PostgresError(.connectFailed, "connecting to \(what): \(Self.name(soError))")
            default:
                close()
                throw PostgresError(.connectFailed, "connecting to \(what): \(Self.name(error))")
            }
        }
    }

    /// Writes all of `bytes` before `deadline`.
    func write(_ bytes: [UInt8], deadline: Double) throws(PostgresError) {
        guard fd >= 0 else { throw PostgresError(.connectionLost, "the connection is closed") }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                offset += n
                continue
            }
            let error = errno
            if n < 0 && error == EINTR { continue }
            if n < 0 && (error == EAGAIN || error == EWOULDBLOCK) {
                try wait(POLLOUT, deadline: deadline, what: "writing")
                continue
            }
            // Left open: the server's last words (a FATAL error) may still wait to be read.
            throw PostgresError(.connectionLost, "writing: \(Self.name(error))")
        }
    }

    /// Waits for bytes before `deadline` and appends what one `recv` gives to `framer`.
    func read(into framer: inout PostgresFramer, deadline: Double) throws(PostgresError) {
        guard fd >= 0 else { throw PostgresError(.connectionLost, "the connection is closed") }
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                return
            }
            if n == 0 { throw PostgresError(.connectionLost, "the server closed the connection") }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                try wait(POLLIN, deadline: deadline, what: "waiting for the server")
                continue
            }
            throw PostgresError(.connectionLost, "reading: \(Self.name(error))")
        }
    }

    /// Appends whatever has already arrived to `framer`, without waiting.
    func drain(into framer: inout PostgresFramer) {
        guard fd >= 0 else { return }
        while framer.pendingBytes < framer.maxMessageBytes {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    private func wait(_ events: Int32, deadline: Double, what: String) throws(PostgresError) {
        while true {
            let left = deadline - Clock.monotonicMillis()
            guard left > 0 else { throw PostgresError(.timedOut, "\(what): no answer in time") }
            var poller = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left.rounded(.up), Double(Int32.max))))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw PostgresError(.connectionLost, "\(what): poll errno \(errno)") }
        }
    }

    private static func name(_ error: Int32) -> String {
        switch error {
        case ENOENT: "no such socket (is the server running?)"
        case ECONNREFUSED: "connection refused"
        case EACCES: "permission denied"
        case ECONNRESET: "connection reset"
        case EPIPE: "connection closed"
        case ETIMEDOUT: "timed out"
        case ENETUNREACH, EHOSTUNREACH: "unreachable"
        default: "errno \(error)"
        }
    }
}
