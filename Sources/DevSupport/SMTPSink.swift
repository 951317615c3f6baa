#if canImport(Glibc)
import Glibc
#endif
import Shared

/// A real SMTP server on 127.0.0.1 that keeps what it receives, for tests and `make run`: EHLO/HELO,
/// MAIL FROM, RCPT TO, DATA, RSET, NOOP, QUIT. It can be told to misbehave the ways a mail server
/// does (`Mode`), for the outside-fault tests. One thread accepts, one serves each connection;
/// they keep the sink alive, so call `stop()` when done with it.
public final class SMTPSink: @unchecked Sendable {
    public enum Mode: Sendable {
        case accept
        /// 554 at the greeting.
        case refuse
        /// Accepts the connection and says nothing.
        case hang
        /// Behaves until `verb` (`MAIL`, `RCPT`, `DATA`, or `.` for the end of the message), then
        /// answers `reply` to it instead (a 4xx or 5xx line) and keeps no message.
        case rejectAt(_ verb: String, reply: String)
        /// Answers the greeting and every line with bytes that are not SMTP.
        case garbage
        /// A multi-line greeting that never ends (`220-` lines until the client leaves).
        case endlessReply
    }

    public struct Message: Sendable {
        public let from: String
        public let recipients: [String]
        /// The message as received (headers, blank line, body), dot-stuffing undone, CRLF kept.
        public let data: String

        /// The first run of exactly six digits in the body: the code.
        public var code: String? {
            let body = data.split(separator: "\r\n\r\n", maxSplits: 1).last.map(String.init) ?? data
            var run: [UInt8] = []
            for c in Array(body.utf8) + [0x20] {
                if c >= 0x30 && c <= 0x39 {
                    run.append(c)
                } else {
                    if run.count == 6 { return String(decoding: run, as: UTF8.self) }
                    run = []
                }
            }
            return nil
        }
    }

    struct State {
        var mode: Mode = .accept
        var messages: [Message] = []
        var connections = 0
        var live = 0
        var stopping = false
    }

    public let port: Int
    private let state = Locked(State())
    private let listener: LoopbackListener
    private let onMessage: (@Sendable (Message) -> Void)?

    /// Binds 127.0.0.1:`port` (0 picks a free one) and serves at once; `onMessage` sees each mail.
    public init(port: Int = 0, onMessage: (@Sendable (Message) -> Void)? = nil) throws {
        self.onMessage = onMessage
        listener = try LoopbackListener(port: port)
        self.port = listener.port
        spawn { $0.acceptLoop() }
    }

    deinit {
        stop()
    }

    public var url: String { "smtp://127.0.0.1:\(port)" }
    public var messages: [Message] { state.current.messages }
    public var connectionCount: Int { state.current.connections }
    public func setMode(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// The code in the latest message to `recipient` (compared without case).
    public func lastCode(to recipient: String) -> String? {
        let wanted = recipient.lowercased()
        return messages.last { $0.recipients.contains { $0.lowercased() == wanted } }?.code
    }

    /// Closes the listener and every connection; waits (about a second at most) for the threads.
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
            state.withLock { $0.connections += 1 }
            let started = spawn { sink in
                var session = SMTPSinkSession(fd: client, wakeFD: sink.listener.wakeFD)
                sink.serve(&session)
                close(client)
            }
            if !started { close(client) }
        }
    }

    private func serve(_ session: inout SMTPSinkSession) {
        let mode = state.current.mode
        var rejectVerb = "", rejectReply = ""
        switch mode {
        case .hang:
            session.waitForStop()
            return
        case .refuse:
            session.reply("554 5.3.2 frontdoor-sink is not taking mail")
            return
        case .garbage:
            let junk = "HTTP/1.1 200 OK\u{1}\u{7F}\u{FFFD}{\"not\": \"smtp\"}"
            guard session.reply(junk) else { return }
            while session.readLine() != nil { guard session.reply(junk) else { return } }
            return
        case .endlessReply:
            var line = 0
            while !state.current.stopping, session.reply("220-frontdoor-sink line \(line) of a greeting without end") {
                line += 1
            }
            return
        case .rejectAt(let verb, let reply):
            (rejectVerb, rejectReply) = (verb.uppercased(), reply)
            session.reply("220 frontdoor-sink ESMTP")
        case .accept:
            session.reply("220 frontdoor-sink ESMTP")
        }
        var from = ""
        var recipients: [String] = []
        while let line = session.readLine() {
            let verb = line.prefix(4).uppercased()
            if verb == rejectVerb {
                session.reply(rejectReply)
                continue
            }
            switch verb {
            case "EHLO": session.reply("250-frontdoor-sink\r\n250-8BITMIME\r\n250 SIZE 1048576")
            case "HELO": session.reply("250 frontdoor-sink")
            case "MAIL":
                from = Self.path(line)
                recipients = []
                session.reply("250 2.1.0 OK")
            case "RCPT":
                recipients.append(Self.path(line))
                session.reply("250 2.1.5 OK")
            case "DATA":
                guard !recipients.isEmpty else {
                    session.reply("503 5.5.1 RCPT first")
                    continue
                }
                session.reply("354 End data with <CR><LF>.<CR><LF>")
                guard let data = session.readData() else { return }
                if rejectVerb == "." {
                    recipients = []
                    session.reply(rejectReply)
                    continue
                }
                let message = Message(from: from, recipients: recipients, data: data)
                state.withLock { $0.messages.append(message) }
                onMessage?(message)
                recipients = []
                session.reply("250 2.0.0 OK queued")
            case "RSET":
                from = ""
                recipients = []
                session.reply("250 2.0.0 OK")
            case "NOOP": session.reply("250 2.0.0 OK")
            case "QUIT":
                session.reply("221 2.0.0 Bye")
                return
            default: session.reply("502 5.5.2 Command not recognised")
            }
        }
    }

    /// The address inside `<…>` of `MAIL FROM:<a>` or `RCPT TO:<b>`.
    static func path(_ line: String) -> String {
        guard let open = line.firstIndex(of: "<"), let close = line[open...].firstIndex(of: ">") else { return "" }
        return String(line[line.index(after: open)..<close])
    }

    /// Starts a detached thread counted in `live`, which `stop()` waits on.
    @discardableResult
    private func spawn(_ body: @escaping @Sendable (SMTPSink) -> Void) -> Bool {
        state.withLock { $0.live += 1 }
        let started = startDetachedThread { [self] in
            defer { state.withLock { $0.live -= 1 } }
            body(self)
        }
        if !started { state.withLock { $0.live -= 1 } }
        return started
    }
}

/// One SMTP connection's reading and writing; every wait also watches the sink's stop signal.
struct SMTPSinkSession {
    let fd: Int32
    let wakeFD: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32, wakeFD: Int32) {
        self.fd = fd
        self.wakeFD = wakeFD
    }

    /// Sends one line; false once the peer has gone.
    @discardableResult
    func reply(_ text: String) -> Bool {
        let bytes = Array((text + "\r\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    func waitForStop() {
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 1, -1) < 0 && errno == EINTR {}
    }

    /// The next line without its CRLF; nil when the peer leaves or the sink stops.
    mutating func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard buffer.count < 1 << 20, fill() else { return nil }
        }
    }

    /// DATA up to the lone `.` line, with dot-stuffing undone.
    mutating func readData() -> String? {
        var lines: [String] = []
        while let line = readLine() {
            if line == "." { return lines.joined(separator: "\r\n") }
            lines.append(line.hasPrefix(".") ? String(line.dropFirst()) : line)
        }
        return nil
    }

    private mutating func fill() -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, fds[1].revents == 0 else { return false }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            buffer += chunk[..<n]
            return true
        }
    }
}
