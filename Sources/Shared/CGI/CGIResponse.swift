#if canImport(Glibc)
import Glibc
#endif

/// A CGI answer: a `Status:` line first, JSON always, never cached.
public struct CGIResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: JSONValue
    /// No body and no `Content-Type` (RFC 8935's 202 acknowledgement): `body` is not written.
    public var bodyless = false

    public init(status: Int, body: JSONValue, headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// An answer with nothing after its headers.
    public static func empty(status: Int) -> CGIResponse {
        var response = CGIResponse(status: status, body: .object([]))
        response.bodyless = true
        return response
    }

    /// The contract's error body: `{"error", "message"}` plus the error's extra members.
    public init(error: FrontdoorError) {
        var members: [(String, JSONValue)] = [("error", .string(error.code.rawValue)), ("message", .string(error.message))]
        members += error.extra
        var headers: [(String, String)] = []
        if let retry = error.retryAfterSeconds { headers.append(("Retry-After", String(retry))) }
        if error.code == .methodNotAllowed { headers.append(("Allow", "POST")) }
        self.init(status: error.status, body: .object(members), headers: headers)
    }

    public var serialized: String {
        var out = "Status: \(status) \(Self.reason(status))\r\n"
        out += (bodyless ? "" : "Content-Type: application/json\r\n") + "Cache-Control: no-store\r\n"
        for (name, value) in headers { out += "\(name): \(value)\r\n" }
        out += "\r\n"
        guard !bodyless else { return out }
        out += body.serialized
        out += "\n"
        return out
    }

    /// Writes the whole answer to `fd`, retrying short writes.
    public func write(to fd: Int32 = STDOUT_FILENO) {
        FileIO.writeAll(fd, Array(serialized.utf8))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

public enum FileIO {
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }

    /// A diagnostic line on stderr, which fcgiwrap hands to nginx's error log.
    public static func log(_ line: String) {
        writeAll(STDERR_FILENO, Array((line + "\n").utf8))
    }

    /// A whole file's bytes, or nil with errno left as the reason.
    public static func readFile(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return out }
            out += chunk[0..<n]
            if out.count > limit { return nil }
        }
    }
}
