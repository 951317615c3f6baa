import CCurl

/// Sends mail. The library never talks SMTP directly; tests reach the real one through a
/// loopback SMTP server.
public protocol MailSender {
    /// Hands `message` to the mail server; `upstream_unavailable` when it is not accepted.
    func send(_ message: MailMessage, now: UnixTime) throws(FrontdoorError)
}

/// SMTP through libcurl (`mail.smtpUrl`): `smtps://` is TLS from the start, `smtp://` to a host
/// that is not loopback must upgrade with STARTTLS or the message is not sent (rule 8), and
/// `smtp://` to loopback goes in the clear. TLS peers are verified with libcurl's defaults.
public final class SMTPMailer: MailSender {
    let mail: Config.Mail

    public init(_ mail: Config.Mail) {
        self.mail = mail
    }

    public func send(_ message: MailMessage, now: UnixTime) throws(FrontdoorError) {
        let host = OutboundURL.host(of: mail.smtpUrl) ?? "smtp"
        guard let kind = OutboundURL.classify(mail.smtpUrl), mail.smtpUrl.hasPrefix("smtp") else {
            throw .internal("mail.smtpUrl refused (TLS or loopback only): \(host)")
        }
        guard MailMessage.isPlain(message.to), MailMessage.isPlain(mail.from) else {
            throw .internal("mail: an address is not plain enough for SMTP")
        }
        guard curlGlobalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw .internal("libcurl could not be initialised")
        }
        defer { curl_easy_cleanup(handle) }
        guard let recipients = curl_slist_append(nil, "<\(message.to)>") else { throw .internal("curl_slist_append failed") }
        defer { curl_slist_free_all(recipients) }
        let upload = MailUpload(message.rendered(from: mail.from, now: now, messageId: Hex.encode(try SecureRandom.bytes(16))))
        let context = Unmanaged.passRetained(upload)
        defer { context.release() }

        let options = CurlOptions(handle: handle)
        try options.set(CURLOPT_URL, mail.smtpUrl)
        try options.set(CURLOPT_PROTOCOLS_STR, "smtp,smtps")
        // No signals: the process's own alarm (rule 9) must stay the only SIGALRM.
        try options.set(CURLOPT_NOSIGNAL, 1)
        // A name lookup past the connect time-out is abandoned, not waited for: libcurl would
        // otherwise join its resolver thread, held by glibc's own time-outs (5 s a try, two tries).
        try options.set(CURLOPT_QUICK_EXIT, 1)
        let seconds = mail.timeoutSeconds
        try options.set(CURLOPT_CONNECTTIMEOUT_MS, Int((min(seconds, 5) * 1000).rounded(.up)))
        try options.set(CURLOPT_TIMEOUT_MS, Int((seconds * 1000).rounded(.up)))
        if kind == .tls { try options.set(CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)) }
        if let username = mail.username { try options.set(CURLOPT_USERNAME, username) }
        if let password = mail.password { try options.set(CURLOPT_PASSWORD, password) }
        try options.set(CURLOPT_MAIL_FROM, "<\(mail.from)>")
        try options.set(CURLOPT_MAIL_RCPT, pointer: recipients)
        try options.set(CURLOPT_UPLOAD, 1)
        try options.set(CURLOPT_INFILESIZE_LARGE, offset: upload.bytes.count)
        try options.set(CURLOPT_READFUNCTION, readCallback: MailUpload.read)
        try options.set(CURLOPT_READDATA, pointer: context.toOpaque())
        // libcurl's default writes to stdout, which in a CGI process is the answer.
        try options.set(CURLOPT_WRITEFUNCTION, callback: MailUpload.discard)

        let result = curl_easy_perform(handle)
        guard result == CURLE_OK else {
            var reply = 0
            _ = frontdoor_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &reply)
            throw .upstream("smtp \(host): \(String(cString: curl_easy_strerror(result))) (last reply \(reply))")
        }
    }
}

/// The message libcurl reads through CURLOPT_READFUNCTION.
final class MailUpload {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    static let read: curl_read_callback = { buffer, size, count, context in
        guard let buffer, let context else { return 0 }
        let upload = Unmanaged<MailUpload>.fromOpaque(context).takeUnretainedValue()
        let n = min(size * count, upload.bytes.count - upload.offset)
        guard n > 0 else { return 0 }
        let copied = upload.bytes.withUnsafeBytes { source -> Bool in
            guard let base = source.baseAddress else { return false }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + upload.offset, byteCount: n)
            return true
        }
        guard copied else { return 0 }
        upload.offset += n
        return n
    }

    static let discard: curl_write_callback = { _, size, count, _ in size * count }
}

extension RequestContext {
    /// The configured mailer, or `internal` when the config has no `mail` section.
    public func mailer() throws(FrontdoorError) -> MailSender {
        guard let mail = config.mail else { throw .internal("config: mail: not configured, yet a code must be sent") }
        return SMTPMailer(mail)
    }
}
