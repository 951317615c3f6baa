import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection: reads requests (keep-alive), asks the handler, acts on its answer.
/// Every wait polls the server's wake pipe too, so `stop()` ends it at once.
struct LoopbackConnection {
    typealias Server = LoopbackHTTPServer

    private static let maxHeaderBytes = 64 * 1024
    private static let maxBodyBytes = 64 * 1024 * 1024

    let fd: Int32
    let id: Int
    let core: LoopbackServerCore
    private var buffer: [UInt8] = []
    private var start = 0

    init(fd: Int32, id: Int, core: LoopbackServerCore) {
        self.fd = fd
        self.id = id
        self.core = core
    }

    mutating func serve() {
        defer { close(fd) }
        while let (request, keepAlive) = readRequest() {
            let handler = core.state.withLock { state in
                state.requests.append(request)
                return state.handler
            }
            switch handler(request) {
            case .respond(let response):
                guard write(Self.encode(response, for: request, keepAlive: keepAlive)), keepAlive else { return }
            case .hang(let seconds):
                _ = wait(events: 0, milliseconds: Int32(max(0, min(seconds, 86_400)) * 1000))
                return
            case .close:
                return
            case .endlessBody:
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n"
                let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x78, count: 0x10000) + Array("\r\n".utf8)
                guard write(Array(head.utf8)) else { return }
                while write(chunk) {}
                return
            case .garbage:
                _ = write([0x00, 0xFF, 0x13, 0x37] + Array("this is not HTTP\r\n\r\n".utf8))
                return
            }
        }
    }

    // MARK: Reading

    private enum Wait { case ready, stopped, timedOut }

    /// Polls the socket for `events` (none: only wait for stop or the timeout) and the wake pipe.
    private func wait(events: Int16, milliseconds: Int32 = -1) -> Wait {
        var fds = [
            pollfd(fd: fd, events: events, revents: 0), pollfd(fd: core.wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&fds, 2, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { return .timedOut }
            return ready > 0 && fds[1].revents == 0 ? .ready : .stopped
        }
    }

    /// Reads more bytes into the buffer; false on end of stream, error or stop.
    private mutating func fill() -> Bool {
        if start > 0 && (start == buffer.count || start > Self.maxHeaderBytes) {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            guard wait(events: Int16(POLLIN)) == .ready else { return false }
            let count = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            return false
        }
    }

    private mutating func readLine(limit: Int = maxHeaderBytes) -> [UInt8]? {
        var scanned = 0  // relative to `start`, which `fill()` may move
        while true {
            if let newline = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
                var line = Array(buffer[start..<newline])
                if line.last == 0x0D { line.removeLast() }
                start = newline + 1
                return line
            }
            scanned = buffer.count - start
            guard buffer.count - start <= limit, fill() else { return nil }
        }
    }

    private mutating func readExactly(_ count: Int) -> [UInt8]? {
        while buffer.count - start < count {
            guard fill() else { return nil }
        }
        defer { start += count }
        return Array(buffer[start..<(start + count)])
    }

    /// The next request and whether the connection stays open after it; nil when the client has
    /// gone, the server stops, or the bytes are not a request we understand.
    private mutating func readRequest() -> (Server.Request, Bool)? {
        var requestLine: [UInt8] = []
        while requestLine.isEmpty {  // RFC 9112 2.2: ignore empty lines before a request
            guard let line = readLine() else { return nil }
            requestLine = line
        }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)) else { return nil }
        let version = String(decoding: parts[2], as: UTF8.self)
        var headers: [(String, String)] = []
        var headerBytes = requestLine.count
        while true {
            guard let line = readLine() else { return nil }
            headerBytes += line.count + 2
            guard headerBytes <= Self.maxHeaderBytes else { return nil }
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            headers.append((name, Self.trimmed(line[(colon + 1)...])))
        }
        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }

        let chunked = header("transfer-encoding")?.lowercased().contains("chunked") == true
        let length = chunked ? 0 : Int(header("content-length") ?? "0") ?? -1
        guard (0...Self.maxBodyBytes).contains(length) else { return nil }
        if header("expect")?.lowercased() == "100-continue" && (chunked || length > buffer.count - start) {
            guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
        }
        guard let body = chunked ? readChunkedBody() : readExactly(length) else { return nil }

        let connection = header("connection")?.lowercased() ?? ""
        let keepAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        let request = Server.Request(
            method: String(decoding: parts[0], as: UTF8.self), path: String(decoding: parts[1], as: UTF8.self),
            headers: headers, body: body, connectionID: id)
        return (request, keepAlive)
    }

    private mutating func readChunkedBody() -> [UInt8]? {
        var body: [UInt8] = []
        while true {
            guard let line = readLine() else { return nil }
            let digits = line.prefix { $0 != UInt8(ascii: ";") }
            guard let size = Int(Self.trimmed(digits[...]), radix: 16), size >= 0,
                  body.count + size <= Self.maxBodyBytes
            else { return nil }
            if size == 0 {
                while true {  // trailers, up to the blank line
                    guard let trailer = readLine() else { return nil }
                    if trailer.isEmpty { return body }
                }
            }
            guard let data = readExactly(size), readLine()?.isEmpty == true else { return nil }
            body += data
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        let isSpace = { (c: UInt8) in c == 0x20 || c == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    // MARK: Writing

    /// Writes everything unless the client goes or the server stops; never raises SIGPIPE.
    private func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard wait(events: Int16(POLLOUT)) == .ready else { return false }
            let sent = bytes[offset...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    static func encode(_ response: Server.Response, for request: Server.Request, keepAlive: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        let names = Set(response.headers.map { $0.0.lowercased() })
        let bodyless = request.method == "HEAD" || response.status == 204 || response.status == 304
            || (100...199).contains(response.status)
        if !names.contains("content-length") && !names.contains("transfer-encoding") && response.status != 204 {
            head += "Content-Length: \(response.body.count)\r\n"
        }
        if !keepAlive && !names.contains("connection") { head += "Connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (bodyless ? [] : response.body)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
