import DevSupport
import Shared
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The server on its own, spoken to with raw sockets, so its HTTP is checked without libcurl.
@Suite struct LoopbackHTTPServerTests {
    @Test func servesSeveralRequestsOnOneConnection() throws {
        let server = try LoopbackHTTPServer { request in
            .respond(.json(#"{"path":"\#(request.path)"}"#, headers: [("X-Id", "\(request.connectionID)")]))
        }
        defer { server.stop() }
        let socket = try RawSocket(port: server.port)
        let answer = socket.exchange(
            "POST /a?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "2\r\nde\r\n1;ext=1\r\nf\r\n0\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.contains(#"{"path":"/a?x=1"}"#) && answer.contains(#"{"path":"/b"}"#))
        #expect(answer.contains("Connection: close\r\n"))
        #expect(server.requests.map(\.bodyText) == ["abc", "def"])
        #expect(server.requests.map(\.connectionID) == [1, 1])
        #expect(server.requests.first?.header("HOST") == "h")
        #expect(server.connectionCount == 1)
        server.resetLog()
        #expect(server.requests.isEmpty && server.connectionCount == 0)
    }

    @Test func hangDoesNotBlockOtherConnectionsNorStop() throws {
        let server = try LoopbackHTTPServer { request in
            request.path == "/hang" ? .hang(seconds: 3600) : .respond(.init(body: Array("ok".utf8)))
        }
        let hanging = try RawSocket(port: server.port)
        hanging.send("GET /hang HTTP/1.1\r\nHost: h\r\n\r\n")
        let other = try RawSocket(port: server.port)
        #expect(other.exchange("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").hasSuffix("\r\n\r\nok"))
        let started = Shared.Clock.monotonicMillis()
        server.stop()
        // Not held for the hour the hanging answer would take.
        #expect(Shared.Clock.monotonicMillis() - started < 10_000)
        #expect(hanging.readAll().isEmpty)
        #expect(throws: (any Error).self) { _ = try RawSocket(port: server.port) }
    }

    @Test func misbehavioursDoWhatTheySay() throws {
        let server = try LoopbackHTTPServer { _ in .close }
        defer { server.stop() }
        #expect(try RawSocket(port: server.port).exchange("GET / HTTP/1.1\r\n\r\n").isEmpty)
        server.setHandler { _ in .garbage }
        let garbage = try RawSocket(port: server.port).exchange("GET / HTTP/1.1\r\n\r\n")
        #expect(!garbage.isEmpty && !garbage.hasPrefix("HTTP/"))
        #expect(server.connectionCount == 2)
    }

    @Test func droppingTheServerStopsIt() throws {
        var server: LoopbackHTTPServer? = try LoopbackHTTPServer { _ in .hang(seconds: 30) }
        let port = server!.port
        let hanging = try RawSocket(port: port)
        hanging.send("GET / HTTP/1.1\r\n\r\n")
        server = nil
        #expect(hanging.readAll().isEmpty)
        #expect(throws: (any Error).self) { _ = try RawSocket(port: port) }
    }

    @Test func fixedPortAndReuse() throws {
        let first = try LoopbackHTTPServer { _ in .respond(.init()) }
        let port = first.port
        first.stop()
        let second = try LoopbackHTTPServer(port: port) { _ in .respond(.init(status: 204)) }
        defer { second.stop() }
        #expect(second.port == port)
        #expect(second.baseURL == "http://127.0.0.1:\(port)")
        #expect(try RawSocket(port: port).exchange("GET / HTTP/1.0\r\n\r\n").hasPrefix("HTTP/1.1 204 No Content\r\n"))
    }
}

/// A blocking TCP client with a receive timeout, just enough to talk HTTP by hand.
final class RawSocket {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close here: a class whose initializer throws once its properties are set still runs
        // deinit, which closes `fd`; closing it twice could close another test's new descriptor.
        guard connected == 0 else { throw RawSocketError() }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the peer closes (or 5 s of silence).
    func readAll() -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received += chunk[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    func exchange(_ text: String) -> String {
        send(text)
        return readAll()
    }
}

struct RawSocketError: Error {}
