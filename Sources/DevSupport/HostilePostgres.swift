#if canImport(Glibc)
import Glibc
#endif
import Shared

/// A server on 127.0.0.1 that speaks just enough of PostgreSQL's protocol 3.0 to misbehave the
/// ways a hostile or broken server can (issue 29): never answer, dribble, stop half-way through a
/// message, ask for a password in the clear, ask SCRAM for an absurd iteration count, or log in and
/// then answer every statement with a trickle that never ends. It counts the password messages it
/// receives. One thread accepts, one serves each connection; call `stop()` when done.
public final class HostilePostgres: @unchecked Sendable {
    public enum Mode: Sendable {
        /// Takes the connection and the startup message, and says nothing.
        case silent
        /// Sends an authentication message whose length promises a megabyte, one byte every 100 ms.
        case trickle
        /// Sends the first half of an authentication request, then nothing.
        case stallMidMessage
        /// Asks for the password in the clear (AuthenticationCleartextPassword).
        case askCleartext
        /// Asks for an MD5 password.
        case askMD5
        /// Offers SCRAM-SHA-256 and answers the client's first message with this iteration count.
        case scram(iterations: Int)
        /// Logs in with no password (as `trust` and `peer` do), then answers every statement with a
        /// row description that never completes, one byte every 100 ms.
        case trustThenTrickle
        /// Logs in with no password, then sends `count` ParameterStatus messages of as many names
        /// before its ReadyForQuery (a client that keeps them all grows without end).
        case parameterFlood(count: Int)
    }

    struct State {
        var passwords = 0
        var live = 0
        var stopping = false
    }

    public let port: Int
    public let mode: Mode
    private let state = Locked(State())
    private let listener: LoopbackListener

    public init(_ mode: Mode) throws {
        self.mode = mode
        listener = try LoopbackListener(port: 0)
        port = listener.port
        spawn { $0.acceptLoop() }
    }

    deinit { stop() }

    /// A URI for this server (`frontdoor` with a password, TCP on loopback) and `connect_timeout`.
    public func uri(connectTimeout: Int = 2, extra: String = "") -> String {
        "postgresql://frontdoor:not-a-real-password@127.0.0.1:\(port)/frontdoor?connect_timeout=\(connectTimeout)" + extra
    }

    /// PasswordMessages received (cleartext, MD5 or a SASL response all arrive as one).
    public var passwordMessages: Int { state.current.passwords }

    public func stop() {
        let first = state.withLock { s in
            defer { s.stopping = true }
            return !s.stopping
        }
        if first { listener.wake() }
        for _ in 0..<500 where state.current.live > 0 { usleep(2000) }
    }

    private func acceptLoop() {
        defer { listener.closeListening() }
        while let client = listener.accept() {
            let started = spawn { server in
                server.serve(client)
                close(client)
            }
            if !started { close(client) }
        }
    }

    private func serve(_ fd: Int32) {
        var connection = Wire(fd: fd, wakeFD: listener.wakeFD)
        // The startup message: a length and the rest.
        guard connection.readStartup() else { return }
        switch mode {
        case .silent:
            connection.waitForStop()
        case .trickle:
            let head: [UInt8] = [UInt8(ascii: "R")] + Self.be32(1 << 20)
            for byte in head + [UInt8](repeating: 0, count: 1 << 20) {
                guard connection.send([byte]), connection.pause(milliseconds: 100) else { return }
            }
        case .stallMidMessage:
            let message = Self.message("R", Self.be32(10) + Array("SCRAM-SHA-256".utf8) + [0, 0])
            guard connection.send(Array(message.prefix(message.count / 2))) else { return }
            connection.waitForStop()
        case .askCleartext, .askMD5:
            let request = {
                if case .askCleartext = self.mode { return Self.message("R", Self.be32(3)) }
                return Self.message("R", Self.be32(5) + [1, 2, 3, 4])
            }()
            guard connection.send(request) else { return }
            while let (type, _) = connection.readMessage() {
                if type == UInt8(ascii: "p") { state.withLock { $0.passwords += 1 } }
                _ = connection.send(Self.message("E", Array("SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed\0\0".utf8)))
                return
            }
        case .scram(let iterations):
            guard connection.send(Self.message("R", Self.be32(10) + Array("SCRAM-SHA-256".utf8) + [0, 0])),
                let (type, body) = connection.readMessage(), type == UInt8(ascii: "p")
            else { return }
            state.withLock { $0.passwords += 1 }
            // The client's nonce follows "r=" in its first message.
            let text = String(decoding: body, as: UTF8.self)
            guard let r = text.range(of: "r=") else { return }
            let nonce = String(text[r.upperBound...].prefix { $0 != "," && $0 != "\0" })
            let first = "r=\(nonce)hostile,s=c2FsdHNhbHQ=,i=\(iterations)"
            guard connection.send(Self.message("R", Self.be32(11) + Array(first.utf8))) else { return }
            if connection.readMessage()?.0 == UInt8(ascii: "p") { state.withLock { $0.passwords += 1 } }
            connection.waitForStop()
        case .parameterFlood(let count):
            guard connection.send(Self.message("R", Self.be32(0))) else { return }
            var batch: [UInt8] = []
            for i in 0..<count {
                batch += Self.message("S", Array("flood_\(i)\0value\0".utf8))
                if batch.count > 1 << 16 {
                    guard connection.send(batch) else { return }
                    batch = []
                }
            }
            _ = connection.send(batch + Self.message("K", Self.be32(4242) + Self.be32(1)) + Self.message("Z", [UInt8(ascii: "I")]))
            connection.waitForStop()
        case .trustThenTrickle:
            var login = Self.message("R", Self.be32(0))
            login += Self.message("S", Array("server_version\015.0 (hostile)\0".utf8))
            login += Self.message("K", Self.be32(4242) + Self.be32(1))
            login += Self.message("Z", [UInt8(ascii: "I")])
            guard connection.send(login) else { return }
            while connection.readMessage() != nil {
                // Answer nothing whole: the start of a row description, then a byte at a time.
                let head: [UInt8] = [UInt8(ascii: "T")] + Self.be32(1 << 20)
                for byte in head + [UInt8](repeating: 0x41, count: 1 << 20) {
                    guard connection.send([byte]), connection.pause(milliseconds: 100) else { return }
                }
            }
        }
    }

    static func be32(_ value: Int) -> [UInt8] {
        let v = UInt32(truncatingIfNeeded: value)
        return [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        [type.asciiValue ?? 0] + be32(body.count + 4) + body
    }

    @discardableResult
    private func spawn(_ body: @escaping @Sendable (HostilePostgres) -> Void) -> Bool {
        state.withLock { $0.live += 1 }
        let started = startDetachedThread { [self] in
            defer { state.withLock { $0.live -= 1 } }
            body(self)
        }
        if !started { state.withLock { $0.live -= 1 } }
        return started
    }
}

/// The fake's side of one connection: every wait also watches the listener's wake pipe.
private struct Wire {
    let fd: Int32
    let wakeFD: Int32
    var buffer: [UInt8] = []

    /// Waits for `events` on the socket (or only for the stop, with none) up to `milliseconds`;
    /// false when stopped or the socket failed.
    func wait(_ events: Int16, milliseconds: Int32) -> Bool? {
        var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return false }
            if ready == 0 { return nil }
            return fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) == 0 || fds[0].revents & events != 0
        }
    }

    func waitForStop() {
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 1, -1) < 0 && errno == EINTR {}
    }

    /// Sleeps, unless stopped or the client went away; false then.
    func pause(milliseconds: Int32) -> Bool {
        // 0x2000 is POLLRDHUP: the client went away.
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0), pollfd(fd: fd, events: 0x2000, revents: 0)]
        while true {
            let ready = poll(&fds, 2, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready == 0
        }
    }

    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard wait(Int16(POLLOUT), milliseconds: -1) == true else { return false }
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    mutating func fill(_ count: Int) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < count {
            guard wait(Int16(POLLIN), milliseconds: -1) == true else { return false }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
        }
        return true
    }

    static func length(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }

    mutating func readStartup() -> Bool {
        guard fill(4) else { return false }
        let length = Self.length(buffer[0..<4])
        guard length >= 8, length < 10_000, fill(length) else { return false }
        buffer.removeFirst(length)
        return true
    }

    /// The next frontend message's type and body.
    mutating func readMessage() -> (UInt8, [UInt8])? {
        guard fill(5) else { return nil }
        let length = Self.length(buffer[1..<5])
        guard length >= 4, length < 1 << 20, fill(1 + length) else { return nil }
        let message = (buffer[0], Array(buffer[5..<(1 + length)]))
        buffer.removeFirst(1 + length)
        return message
    }
}
