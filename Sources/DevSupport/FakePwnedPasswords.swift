import Shared

/// Have I Been Pwned's Pwned Passwords range service, played on 127.0.0.1 the way the real one
/// answers (https://haveibeenpwned.com/API/v3#SearchingPwnedPasswordsByRange): `GET /range/ABCDE`
/// with 5 hex digits in either case answers 200 `text/plain`, one `SUFFIX:COUNT` line for every
/// hash it holds under that prefix (35 upper-case hex digits, CRLF between lines, none after the
/// last), sorted; with `Add-Padding: true`, made-up suffixes of count 0 fill it to between 800
/// and 1,000 lines (https://www.troyhunt.com/enhancing-pwned-passwords-privacy-with-padding/);
/// any other prefix is a 400. Every prefix answers 200, an empty range included when unpadded.
///
/// It can misbehave as a real service can: be down (connections refused), hang past any time-out,
/// answer 500, answer 200 with a body that is no range, or list its passwords with count 0, as it
/// lists padding (which must not count as seen).
public final class FakePwnedPasswords: @unchecked Sendable {
    public static let path = "/range"

    public enum Mode: Sendable, Equatable {
        case answer
        /// Listens no more: connections are refused.
        case down
        /// Reads the request and answers nothing for a minute (or until stopped).
        case hang
        /// Answers this status with an error body.
        case status(Int)
        /// 200 with a body that is not `SUFFIX:COUNT` lines.
        case garbage
        /// Its passwords' suffixes are answered with count 0, as padding entries are.
        case asPadding
    }

    struct State {
        var mode: Mode = .answer
    }

    /// SHA-1 (upper-case hex) to the times seen.
    public let seen: [String: Int]
    public private(set) var port: Int
    private let state = Locked(State())
    private let server: Locked<LoopbackHTTPServer?>

    /// `breached`: passwords and how often the service has seen each (as typed; their SHA-1 is
    /// of their UTF-8 in NFC, as frontdoor hashes them). `serve: false` when another server routes
    /// `/range/` here (`frontdoor-dev serve`, under `/pwned`).
    public init(breached: [String: Int], port: Int = 0, serve: Bool = true) throws {
        var seen: [String: Int] = [:]
        for (password, count) in breached { seen[try SHA1.hexDigest(PasswordHasher.normalised(password))] = count }
        self.seen = seen
        server = Locked(nil)
        self.port = port
        if serve {
            let started = try listen(port: port)
            self.port = started.port
            server.withLock { $0 = started }
        }
    }

    deinit { stop() }

    /// What `passwords.rangeUrl` names: the prefix goes after a slash.
    public var url: String { "http://127.0.0.1:\(port)" + Self.path }
    public var mode: Mode { state.current.mode }
    /// Every request so far, in arrival order.
    public var requests: [LoopbackHTTPServer.Request] { server.current?.requests ?? [] }

    /// Switches behaviour; `.down` closes the listener, any other mode opens it again on the same port.
    public func setMode(_ mode: Mode) throws {
        state.withLock { $0.mode = mode }
        if mode == .down {
            let running = server.withLock { current -> LoopbackHTTPServer? in
                defer { current = nil }
                return current
            }
            running?.stop()
        } else if server.current == nil, port != 0 {
            let started = try listen(port: port)
            server.withLock { $0 = started }
        }
    }

    public func stop() { server.current?.stop() }

    private func listen(port: Int) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(port: port) { [weak self] request in
            self?.respond(to: request, under: "") ?? .respond(.json(#"{"error":"not found"}"#, status: 404))
        }
    }

    /// The answer to `<under>/range/PREFIX`, or nil for any other path.
    public func respond(to request: LoopbackHTTPServer.Request, under base: String) -> LoopbackHTTPServer.Behaviour? {
        let target = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard target.hasPrefix(base + Self.path + "/") else { return nil }
        let prefix = String(target.dropFirst(base.count + Self.path.count + 1)).uppercased()
        switch state.current.mode {
        case .down: return .close
        case .hang: return .hang(seconds: 60)
        case .status(let status): return .respond(.json(#"{"error":"failing on purpose"}"#, status: status))
        case .garbage:
            return .respond(text("<html><body>Service Unavailable</body></html>"))
        case .answer, .asPadding:
            break
        }
        guard request.method == "GET", prefix.utf8.count == 5, prefix.utf8.allSatisfy(Self.isUpperHex) else {
            return .respond(LoopbackHTTPServer.Response(
                status: 400, headers: [("Content-Type", "text/plain")],
                body: Array("The hash prefix was not in a valid format".utf8)))
        }
        let zero = state.current.mode == .asPadding
        var lines = seen.filter { $0.key.hasPrefix(prefix) }.map { (String($0.key.dropFirst(5)), zero ? 0 : $0.value) }
        if request.header("Add-Padding") == "true" {
            // Made up from the prefix, so the same request pads alike every time.
            let wanted = 800 + Int(SHA256.hash(Array(prefix.utf8))[0]) % 201
            var n = 0
            while lines.count < wanted {
                let made = Hex.encode(SHA256.hash(Array("padding \(prefix) \(n)".utf8)).prefix(18)).uppercased()
                lines.append((String(made.prefix(35)), 0))
                n += 1
            }
        }
        lines.sort { $0.0 < $1.0 }
        return .respond(text(lines.map { "\($0.0):\($0.1)" }.joined(separator: "\r\n")))
    }

    private func text(_ body: String) -> LoopbackHTTPServer.Response {
        LoopbackHTTPServer.Response(status: 200, headers: [("Content-Type", "text/plain")], body: Array(body.utf8))
    }

    private static func isUpperHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) }
}
