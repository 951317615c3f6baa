/// One plain-text mail: the code and nothing else the person typed (no name, nothing secret).
public struct MailMessage: Sendable {
    public var to: String
    public var subject: String
    public var text: String

    public init(to: String, subject: String, text: String) {
        self.to = to
        self.subject = subject
        self.text = text
    }

    /// A code mail. `purpose` is a short phrase of ours ("to sign in", "to choose a new password").
    public static func code(_ code: String, to: String, purpose: String) -> MailMessage {
        MailMessage(
            to: to, subject: "Your code",
            text: """
                Your code \(purpose) is \(code)

                It expires in 10 minutes. If you did not ask for it, you can ignore this email.
                """)
    }

    /// RFC 5322 with CRLF line ends; the caller has checked the addresses are plain.
    func rendered(from: String, now: UnixTime, messageId: String) -> [UInt8] {
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let head = [
            "Date: \(Self.date(now))", "From: <\(from)>", "To: <\(to)>", "Subject: \(subject)",
            "Message-ID: <\(messageId)@\(domain)>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit",
        ]
        let lines = head + [""] + text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return Array(lines.joined(separator: "\r\n").utf8) + Array("\r\n".utf8)
    }

    /// `Mon, 30 Nov 2026 09:04:42 +0000`.
    static func date(_ t: UnixTime) -> String {
        let stamp = Clock.rfc3339(t)  // 2026-11-30T09:04:42Z
        let parts = stamp.split(whereSeparator: { "-TZ".contains($0) })
        guard parts.count == 4, let month = Int(parts[1]) else { return stamp }
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekday), \(parts[2]) \(months[(month - 1) % 12]) \(parts[0]) \(parts[3]) +0000"
    }

    /// An address fit for an SMTP envelope and a header: no controls, spaces, or angle brackets.
    static func isPlain(_ address: String) -> Bool {
        !address.isEmpty && address.contains("@")
            && address.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && $0 != "<" && $0 != ">" }
    }
}
