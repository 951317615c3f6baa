extension Config {
    /// `events`: the app's receiver of account events (rule 12) and how delivery to it is retried.
    /// A class: `Config` is copied into every request's context, and an optional reference costs a
    /// retain where an optional struct of strings cost the process run-time metadata set-up.
    public final class EventReceiver: Sendable {
        /// `https://`, or `http://` to loopback; kept exactly as written (a trailing slash is part of a path).
        public let url: String
        public let secretFile: String
        /// The HMAC key: the secret file's content with one trailing newline removed.
        public let secret: [UInt8]
        /// The bound on one delivery attempt, connecting included.
        public let timeoutSeconds: Double
        /// The wait before the first retry of an event; it doubles with each failure after that.
        public let retryAfterSeconds: Int64
        /// The longest wait between two attempts.
        public let retryMaxSeconds: Int64
        /// An event not taken within this long after it was written is dropped (with a syslog line).
        public let retainSeconds: Int64

        public static let minimumSecretBytes = 32

        init(
            url: String, secretFile: String, secret: [UInt8], timeoutSeconds: Double, retryAfterSeconds: Int64,
            retryMaxSeconds: Int64, retainSeconds: Int64
        ) {
            self.url = url
            self.secretFile = secretFile
            self.secret = secret
            self.timeoutSeconds = timeoutSeconds
            self.retryAfterSeconds = retryAfterSeconds
            self.retryMaxSeconds = retryMaxSeconds
            self.retainSeconds = retainSeconds
        }
    }
}

extension Config.EventReceiver {
    /// Reads the `events` section; every error names its key.
    static func read(_ r: inout ConfigReader, processLifetimeSeconds: Int64) throws(ConfigError) -> Config.EventReceiver {
        guard let url = try r.string("url") else { throw ConfigError(key: r.key("url"), reason: "is required") }
        guard url.hasPrefix("https://") || url.hasPrefix("http://"), OutboundURL.classify(url) != nil else {
            throw ConfigError(key: r.key("url"), reason: "must be https:// (or http:// to a loopback address)")
        }
        guard let secretFile = try r.string("secretFile") else {
            throw ConfigError(key: r.key("secretFile"), reason: "is required with events.url")
        }
        let secret = try readSecret(secretFile, key: r.key("secretFile"))
        let timeout = try r.seconds("timeoutSeconds", default: 5, range: 0.5...60)
        let retryAfter = try r.int("retryAfterSeconds", default: 60, range: 1...86_400)
        let retryMax = try r.int("retryMaxSeconds", default: 3600, range: 1...(7 * 86_400))
        let retain = try r.int("retainSeconds", default: 7 * 86_400, range: 60...(90 * 86_400))
        try r.rejectUnknown()
        guard retryMax >= retryAfter else {
            throw ConfigError(key: r.key("retryMaxSeconds"), reason: "must be at least events.retryAfterSeconds")
        }
        guard retain >= retryMax else {
            throw ConfigError(key: r.key("retainSeconds"), reason: "must be at least events.retryMaxSeconds")
        }
        guard timeout + 5 <= Double(processLifetimeSeconds) else {
            throw ConfigError(key: "processLifetimeSeconds", reason: "must exceed events.timeoutSeconds by at least 5")
        }
        return Config.EventReceiver(
            url: url, secretFile: secretFile, secret: secret, timeoutSeconds: timeout, retryAfterSeconds: retryAfter,
            retryMaxSeconds: retryMax, retainSeconds: retain)
    }

    /// The key as the app's receiver will hold it: the file as written, less the newline an editor
    /// adds. Text, so it can be pasted into the app's configuration as it is.
    public static func readSecret(_ path: String, key: String) throws(ConfigError) -> [UInt8] {
        guard var bytes = FileIO.readFile(path, limit: 4096) else {
            throw ConfigError(key: key, reason: "cannot be read (or is over 4 KiB)")
        }
        if bytes.last == 0x0A { bytes.removeLast() }
        guard bytes.count >= minimumSecretBytes else {
            throw ConfigError(key: key, reason: "must hold at least \(minimumSecretBytes) bytes of text")
        }
        // Bytes as they are (the HMAC keys on bytes); only what no one-line text holds is refused.
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw ConfigError(key: key, reason: "must be text on one line (no control characters)")
        }
        return bytes
    }
}
