#if canImport(Glibc)
import Glibc
#endif
import Shared

/// One HTTP/1.0 exchange written by hand, for requests libcurl will not send as given: header
/// names with underscores, the same header twice, a header with an empty value. HTTP/1.0, so
/// nginx answers without chunks and closes the connection.
struct RawHTTP {
    let status: Int
    /// Names lower-cased, in order.
    let headers: [(String, String)]
    let body: String

    func header(_ name: String) -> String? { headers.first { $0.0 == name.lowercased() }?.1 }
    var json: JSONValue? { try? JSONParser.parse(Array(body.utf8)) }

    /// A TCP connection to 127.0.0.1:`port` whose reads give up after 20 s; the caller closes it.
    /// `from`: the loopback address to send from (`127.0.0.2`: another client), else the kernel's choice.
    static func connect(port: Int, from source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                close(fd)
                throw HarnessError("bad address \(source)")
            }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw HarnessError("bind to \(source) failed")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw HarnessError("connect to \(port) failed")
        }
        return fd
    }

    static func exchange(
        port: Int, method: String = "GET", path: String, headers: [String], body: String = "", from source: String? = nil
    ) throws -> RawHTTP {
        let fd = try connect(port: port, from: source)
        defer { close(fd) }
        var text = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        for line in headers { text += line + "\r\n" }
        if !body.isEmpty { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + body
        FileIO.writeAll(fd, Array(text.utf8))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            received += chunk[..<n]
        }
        let end: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        guard let split = (0..<max(0, received.count - 3)).first(where: { Array(received[$0..<$0 + 4]) == end }) else {
            throw HarnessError("no HTTP answer: \(String(decoding: received, as: UTF8.self))")
        }
        let head = String(decoding: received[..<split], as: UTF8.self)
        let answer = String(decoding: received, as: UTF8.self)
        // "\r\n" is one Character in Swift.
        let lines = head.split(separator: "\r\n").map(String.init)
        guard let first = lines.first, first.hasPrefix("HTTP/"), let status = Int(first.dropFirst(9).prefix(3)) else {
            throw HarnessError("no status line: \(answer)")
        }
        let parsed = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingASCIISpaces())
        }
        return RawHTTP(status: status, headers: parsed, body: String(decoding: received[(split + 4)...], as: UTF8.self))
    }
}
