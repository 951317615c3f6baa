#if canImport(Glibc)
import Glibc
#endif

/// A CGI answer: a `Status:` line first, JSON always, never cached.
///
/// An error answer keeps its parts (code, message, extra members, headers) and writes them as
/// text: building it as a `JSONValue` object and an array of header pairs cost a refused request
/// ~60 K of its ~170 K instructions, the first use of those generic types' metadata.
public struct CGIResponse: Sendable {
    public var status: Int
    /// No body and no `Content-Type` (RFC 8935's 202 acknowledgement): `body` is not written.
    public var bodyless = false
    /// The contract's code, when this answers with an error.
    public let errorCode: FrontdoorError.Code?
    private let json: JSONValue
    private let errorMessage: String
    private let errorExtra: [(String, JSONValue)]
    private let retryAfterSeconds: Int?
    /// Headers beyond the fixed ones, as their lines (no array of pairs: see above).
    private var headerLines = ""

    public init(status: Int, body: JSONValue) {
        self.status = status
        json = body
        errorCode = nil
        errorMessage = ""
        errorExtra = []
        retryAfterSeconds = nil
    }

    /// Adds the header `name: value`; neither may hold a line break.
    public mutating func addHeader(_ name: String, _ value: String) {
        headerLines += name + ": " + value + "\r\n"
    }

    /// An answer with nothing after its headers.
    public static func empty(status: Int) -> CGIResponse {
        var response = CGIResponse(status: status, body: .object([]))
        response.bodyless = true
        return response
    }

    /// The contract's error body: `{"error", "message"}` plus the error's extra members.
    public init(error: FrontdoorError) {
        status = error.status
        json = .null
        errorCode = error.code
        errorMessage = error.message
        errorExtra = error.extra
        retryAfterSeconds = error.retryAfterSeconds
    }

    /// The JSON the answer carries (an error's built from its parts).
    public var body: JSONValue {
        guard let errorCode else { return json }
        return .object([("error", .string(errorCode.rawValue)), ("message", .string(errorMessage))] + errorExtra)
    }

    /// The code the log line names: the contract's, or RFC 8935's `err` of a provider's answer.
    public var loggedCode: String {
        if let errorCode { return errorCode.rawValue }
        guard status >= 400 else { return "-" }
        return json["error"]?.stringValue ?? json["err"]?.stringValue ?? "-"
    }

    public var serialized: String {
        let body = bodyless || errorCode != nil ? "" : json.serialized
        // One allocation, sized up front, and pieces that need none of their own (literals, small
        // numbers): see `write(to:)`.
        var out = String()
        out.reserveCapacity(
            192 + headerLines.utf8.count + body.utf8.count + (errorCode?.rawValue.utf8.count ?? 0)
                + 6 * errorMessage.utf8.count + 64 * errorExtra.count)
        out += "Status: "
        out += String(status)
        out += " "
        out += Self.reason(status)
        out += "\r\n"
        if !bodyless { out += "Content-Type: application/json\r\n" }
        out += "Cache-Control: no-store\r\n"
        if let retryAfterSeconds {
            out += "Retry-After: "
            out += String(retryAfterSeconds)
            out += "\r\n"
        }
        if errorCode == .methodNotAllowed { out += "Allow: POST\r\n" }
        out += headerLines
        out += "\r\n"
        guard !bodyless else { return out }
        if let errorCode {
            out += "{\"error\":"
            JSONValue.writeString(errorCode.rawValue, to: &out)
            out += ",\"message\":"
            JSONValue.writeString(errorMessage, to: &out)
            for (name, value) in errorExtra {
                out += ","
                JSONValue.writeString(name, to: &out)
                out += ":"
                out += value.serialized
            }
            out += "}"
        } else {
            out += body
        }
        out += "\n"
        return out
    }

    /// Writes the whole answer to `fd`, retrying short writes, and returns its text, which the
    /// caller keeps until the process exits. The first string storage a process frees costs the
    /// runtime ~38 K instructions of one-off generic metadata (`Optional<_StringBreadcrumbs>`,
    /// when the storage is torn down), which was half of a refused request: a refusal frees none.
    @discardableResult
    public func write(to fd: Int32 = STDOUT_FILENO) -> String {
        let text = serialized
        FileIO.writeAll(fd, text)
        return text
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
        bytes.withUnsafeBufferPointer { writeAll(fd, $0) }
    }

    /// A string's UTF-8, written from its own storage (no `[UInt8]` copy: a refusal's only array).
    public static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { writeAll(fd, $0) }
    }

    public static func writeAll(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, base + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }

    /// A diagnostic line on stderr, which fcgiwrap hands to nginx's error log: the line and its
    /// line break in one write (no joined copy to free: see `CGIResponse.write(to:)`).
    public static func log(_ line: String) {
        var line = line
        var newline = UInt8(ascii: "\n")
        line.withUTF8 { text in
            withUnsafeMutablePointer(to: &newline) { end in
                var parts = (
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: text.baseAddress), iov_len: text.count),
                    iovec(iov_base: UnsafeMutableRawPointer(end), iov_len: 1))
                let written = withUnsafeMutablePointer(to: &parts) {
                    $0.withMemoryRebound(to: iovec.self, capacity: 2) { writev(STDERR_FILENO, $0, 2) }
                }
                // What a short or failed write (a full pipe, a signal) left goes by the plain loop.
                let done = max(written, 0)
                if done < text.count { writeAll(STDERR_FILENO, UnsafeBufferPointer(rebasing: text[done...])) }
                if done <= text.count { writeAll(STDERR_FILENO, UnsafeBufferPointer(start: end, count: 1)) }
            }
        }
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
