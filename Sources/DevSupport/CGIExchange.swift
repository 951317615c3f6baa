import Shared

/// A CGI program's answer, parsed: the `Status:` line, headers, and the JSON body.
public struct CGIAnswer: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: JSONValue
    public let rawBody: String
    public let stderr: String
    public let exitStatus: Int32

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var errorCode: String? { body["error"]?.stringValue }

    /// Parses `Status: NNN ...\r\nName: value\r\n\r\nbody`; nil when the output is not a CGI answer.
    public static func parse(_ result: ChildProcess.Result) -> CGIAnswer? {
        let text = result.stdoutText
        guard let split = text.range(of: "\r\n\r\n") ?? text.range(of: "\n\n") else { return nil }
        let head = text[..<split.lowerBound]
        let bodyText = String(text[split.upperBound...])
        var status: Int?
        var headers: [(String, String)] = []
        for line in head.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingASCIISpaces()
            if name.lowercased() == "status" {
                status = Int(value.prefix(3))
            } else {
                headers.append((name, value))
            }
        }
        // An answer with no body (RFC 8935's 202) has no Content-Type either: its body is null here.
        let bodyless = bodyText.isEmpty && !headers.contains { $0.0.lowercased() == "content-type" }
        guard let status, let body = bodyless ? JSONValue.null : try? JSONParser.parse(bodyText) else { return nil }
        for name in ["sessionToken", "ticket", "email"] { TestLogs.register(body[name]?.stringValue) }
        return CGIAnswer(
            status: status, headers: headers, body: body, rawBody: bodyText, stderr: result.stderrText,
            exitStatus: result.exitStatus)
    }
}

extension String {
    func range(of needle: String) -> Range<String.Index>? {
        guard !needle.isEmpty else { return nil }
        var start = startIndex
        while start < endIndex {
            if self[start...].hasPrefix(needle) {
                return start..<index(start, offsetBy: needle.count)
            }
            start = index(after: start)
        }
        return nil
    }
}
