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

    /// What a code is for: a phrase of the mail's.
    public enum CodePurpose: Sendable { case confirmAddress, confirmNewAddress, newPassword }

    /// A code mail, in the account's language (English for an address without one).
    public static func code(_ code: String, to: String, purpose: CodePurpose, language: MailLanguage = .en) -> MailMessage {
        let words = language.words
        let phrase = switch purpose {
        case .confirmAddress: words.purposeConfirmAddress
        case .confirmNewAddress: words.purposeConfirmNewAddress
        case .newPassword: words.purposeNewPassword
        }
        return MailMessage(
            to: to, subject: words.codeSubject, text: MailWords.fill(words.codeText, ["purpose": phrase, "code": code]))
    }

    /// RFC 5322 with CRLF line ends; the caller has checked the addresses are plain.
    func rendered(from: String, now: UnixTime, messageId: String) -> [UInt8] {
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let head = [
            "Date: \(Self.date(now))", "From: <\(from)>", "To: <\(to)>", "Subject: \(Self.encodedWord(subject))",
            "Message-ID: <\(messageId)@\(domain)>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit",
        ]
        let lines = head + [""] + text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return Array(lines.joined(separator: "\r\n").utf8) + Array("\r\n".utf8)
    }

    /// A header's text as it may travel: itself when plain ASCII, else RFC 2047 encoded words
    /// (`=?UTF-8?B?…?=`), each at most 75 characters and never splitting a character.
    static func encodedWord(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 || $0 < 0x20 }) else { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            // 45 bytes make 60 base64 characters: with "=?UTF-8?B?" and "?=", 72.
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?" + base64(chunk) + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + base64(chunk) + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// Standard base64 with padding (RFC 4648 section 4), as encoded words take it.
    static func base64(_ bytes: [UInt8]) -> String {
        var text = String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
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
