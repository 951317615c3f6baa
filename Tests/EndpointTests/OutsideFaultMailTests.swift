import DevSupport
import Shared
import Testing

/// Issue 8, outside faults of the mail server: `verify-email send_code` is the one request that
/// mails before it answers (a reset's mail goes after the answer). Whatever the server does, the
/// request ends within `mail.timeoutSeconds` and a little with 503 `upstream_unavailable`, no
/// code is stored, the mail limits are given back, and the same ticket works once mail is well.
extension OutsideFaultTests {
    enum MailFault: String, CaseIterable, Sendable {
        case hang, refuse, closedPort, busyAtMail, unknownRecipient, rejectedData, garbage, endlessReply

        var mode: SMTPSink.Mode {
            switch self {
            case .hang: .hang
            case .refuse: .refuse
            case .closedPort: .accept
            case .busyAtMail: .rejectAt("MAIL", reply: "451 4.3.2 try again later")
            case .unknownRecipient: .rejectAt("RCPT", reply: "550 5.1.1 no such mailbox")
            case .rejectedData: .rejectAt(".", reply: "554 5.7.1 message refused")
            case .garbage: .garbage
            case .endlessReply: .endlessReply
            }
        }
    }

    static let mailTimeout = 1.0

    @Test(arguments: MailFault.allCases)
    func mailFaultEndsIn503WithinItsBound(_ fault: MailFault) throws {
        // One mail an hour in all: a send the fault ate must be given back, or the retry is refused.
        let limits: (String, JSONValue) = ("limits", .object([("mailPerHour", 1)]))
        let h = try Harness(config: [limits])
        let mail = { (url: String) -> (String, JSONValue) in
            ("mail", .object([("smtpUrl", .string(url)), ("from", "t@localhost"),
                              ("timeoutSeconds", .number(Self.mailTimeout))]))
        }
        let email = "fault-\(fault.rawValue.lowercased())@gmail.com"
        try h.writeConfig([limits, mail(h.smtp.url)])
        let made = try h.register(email, "typed by someone else")
        #expect(made.status == 201, "\(made.rawBody)")
        let proof = try h.signInGoogle(try h.google.token(sub: "g-\(fault)", email: email))
        let ticket = try #require(proof.body["ticket"]?.stringValue, "\(proof.rawBody)")
        let send = { try h.verify([("action", "send_code"), ("ticket", .string(ticket))]) }

        h.smtp.setMode(fault.mode)
        let url = fault == .closedPort ? "smtp://127.0.0.1:\(try Stack.freePort())" : h.smtp.url
        try h.writeConfig([limits, mail(url)])
        let hits = try limitHits(h)
        let started = Clock.monotonicMillis()
        let answer = try send()
        let seconds = (Clock.monotonicMillis() - started) / 1000
        let label = "mail \(fault)"
        #expect(answer.status == 503, "\(label): \(answer.status) \(answer.rawBody) \(answer.stderr)")
        #expect(answer.errorCode == "upstream_unavailable", "\(label)")
        #expect(answer.exitStatus == 0, "\(label)")
        #expect(seconds < 10 * (Self.mailTimeout + 1), "\(label): \(seconds) s")
        #expect(!answer.stderr.contains(email), "\(label): the address in stderr")
        #expect(try h.count(.emailCode) == 0, "\(label): a code stored")
        #expect(try limitHits(h) == hits, "\(label): limits not given back")
        #expect(h.smtp.messages.isEmpty, "\(label)")

        h.smtp.setMode(.accept)
        try h.writeConfig([limits, mail(h.smtp.url)])
        let retry = try send()
        #expect(retry.status == 200, "\(label), retry: \(retry.rawBody) \(retry.stderr)")
        let code = try #require(h.smtp.lastCode(to: email), "\(label): no mail after the retry")
        let joined = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(joined.status == 200, "\(label), confirm: \(joined.rawBody)")
    }

    /// Every hit counted against every limit so far.
    func limitHits(_ h: Harness) throws -> Int64 {
        try h.database().query("SELECT coalesce(sum(number), 0) FROM ephemeral WHERE kind = 2").first?.int(0) ?? -1
    }
}
