#if canImport(Glibc)
import Glibc
#endif

/// What a CGI program receives: the request's meta-variables and its body.
public struct CGIRequest: Sendable {
    public static let maxBodyBytes = 16 * 1024

    public let method: String
    public let contentType: String?
    public let contentLength: Int
    public let authorization: String?
    public let remoteAddress: String?
    public let body: [UInt8]
    /// Only the answer's headers are read by whoever asked (nginx's `auth_request`).
    public let headersOnly: Bool

    public init(
        method: String, contentType: String?, contentLength: Int, authorization: String?, remoteAddress: String?,
        body: [UInt8], headersOnly: Bool = false
    ) {
        self.headersOnly = headersOnly
        self.method = method
        self.contentType = contentType
        self.contentLength = contentLength
        self.authorization = authorization
        self.remoteAddress = remoteAddress
        self.body = body
    }

    /// Reads the environment and exactly `CONTENT_LENGTH` bytes of `input`. A body that is too
    /// large or announced wrongly is drained first: fcgiwrap writes the whole body before it reads
    /// the answer, and an answer given over an undrained body becomes a 502.
    public static func read(
        environment: CGIEnvironment, input: Int32 = STDIN_FILENO
    ) throws(FrontdoorError) -> CGIRequest {
        let method = environment.requestMethod ?? ""
        let (contentType, authorization, remoteAddress) = environment.requestStrings
        let lengthText = environment.contentLength ?? ""
        let length: Int
        if lengthText.isEmpty {
            length = 0
        } else if let n = Int(lengthText), n >= 0, lengthText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            length = n
        } else {
            throw .invalidRequest("CONTENT_LENGTH is not a number.")
        }
        if length > maxBodyBytes {
            drain(input, count: length)
            throw FrontdoorError(.payloadTooLarge, "The request body is larger than \(maxBodyBytes) bytes.")
        }
        let body = try readExactly(input, count: length)
        return CGIRequest(
            method: method,
            contentType: contentType,
            contentLength: length,
            authorization: authorization,
            remoteAddress: remoteAddress,
            body: body
        )
    }

    /// The request without its body, which is never read: for the session check, whose nginx
    /// locations send none (`fastcgi_pass_request_body off`). An `auth_request` subrequest may
    /// still announce the original request's `CONTENT_LENGTH`; it is not believed.
    public static func withoutBody(environment: CGIEnvironment) -> CGIRequest {
        let (contentType, authorization, remoteAddress) = environment.requestStrings
        return CGIRequest(
            method: environment.requestMethod ?? "", contentType: contentType, contentLength: 0,
            authorization: authorization, remoteAddress: remoteAddress, body: [],
            headersOnly: environment.answer == "headers")
    }

    private static func readExactly(_ fd: Int32, count: Int) throws(FrontdoorError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .internal("reading the body failed: errno \(errno)") }
            if n == 0 { throw .invalidRequest("The request body is shorter than its Content-Length.") }
            filled += n
        }
        return buffer
    }

    private static func drain(_ fd: Int32, count: Int) {
        var left = count
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while left > 0 {
            let n = scratch.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, min(left, $0.count)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            left -= n
        }
    }

    /// The bearer token of `Authorization: Bearer <token>`, or nil.
    public var bearerToken: String? {
        guard let authorization else { return nil }
        // ASCII, what clients send, is judged on its bytes: `split` and `lowercased` cost the
        // session check (every request to the app) ~35 K instructions of Unicode machinery.
        if let verdict = authorization.utf8.withContiguousStorageIfAvailable(Self.asciiBearer), let verdict {
            guard case .token(let token) = verdict else { return nil }
            return token
        }
        let parts = authorization.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { return nil }
        return String(parts[1])
    }

    private enum BearerReading { case token(String), none }

    /// The same reading for ASCII bytes (nil for any other byte): words split on spaces, empty
    /// ones dropped; exactly two, the first `bearer` in any case. (Plain integers, no array: the
    /// first array of a new element type costs ~100 K instructions of run-time type set-up.)
    private static func asciiBearer(_ bytes: UnsafeBufferPointer<UInt8>) -> BearerReading? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        func skip(_ i: inout Int, spaces: Bool) {
            while i < bytes.count && (bytes[i] == 0x20) == spaces { i += 1 }
        }
        var i = 0
        skip(&i, spaces: true)
        let schemeStart = i
        skip(&i, spaces: false)
        let schemeEnd = i
        skip(&i, spaces: true)
        let tokenStart = i
        skip(&i, spaces: false)
        let tokenEnd = i
        skip(&i, spaces: true)
        guard i == bytes.count, tokenEnd > tokenStart, schemeEnd - schemeStart == 6 else { return BearerReading.none }
        let scheme: StaticString = "bearer"
        let isBearer = scheme.withUTF8Buffer { wanted in
            (0..<6).allSatisfy { k in
                let byte = bytes[schemeStart + k]
                return (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) == wanted[k]
            }
        }
        guard isBearer else { return BearerReading.none }
        return .token(String(decoding: UnsafeBufferPointer(rebasing: bytes[tokenStart..<tokenEnd]), as: UTF8.self))
    }

    /// Whether the content type is JSON (`application/json`, parameters such as charset allowed).
    public var hasJSONContentType: Bool {
        guard let contentType else { return false }
        // An ASCII type, the only kind clients send, is judged on its bytes: `split` and
        // `lowercased` cost a request ~160 K instructions of Unicode machinery. Other text keeps
        // the Character rules below (`split` treats U+037E as ";", for one).
        if let verdict = contentType.utf8.withContiguousStorageIfAvailable(Self.asciiTypeIsJSON), let verdict {
            return verdict
        }
        let media = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingASCIISpaces() } ?? ""
        return media.lowercased() == "application/json"
    }

    /// The same judgement for ASCII bytes (nil for any other byte): leading `;`s skipped as
    /// `split` omits empty pieces, the media type up to the next `;`, spaces and tabs trimmed,
    /// compared without regard to case.
    private static func asciiTypeIsJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        let semicolon = UInt8(ascii: ";")
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        var start = 0
        while start < bytes.count && bytes[start] == semicolon { start += 1 }
        var end = start
        while end < bytes.count && bytes[end] != semicolon { end += 1 }
        while start < end && isSpaceOrTab(bytes[start]) { start += 1 }
        while end > start && isSpaceOrTab(bytes[end - 1]) { end -= 1 }
        let wanted: StaticString = "application/json"
        guard end - start == wanted.utf8CodeUnitCount else { return false }
        return wanted.withUTF8Buffer { json in
            json.indices.allSatisfy { i in
                let byte = bytes[start + i]
                let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
                return lower == json[i]
            }
        }
    }

    private static func isSpaceOrTab(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end.
    public func trimmingASCIISpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
