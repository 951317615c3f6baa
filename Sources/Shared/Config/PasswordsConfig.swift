extension Config {
    /// `passwords`: what a password being set must pass (rule 19, docs/security.md). A stored
    /// password is never judged again. A class, as `EventReceiver` is: `Config` is copied into
    /// every request's context, and a reference costs that copy one retain.
    public final class Passwords: Sendable {
        /// In Unicode code points after NFC. 15 because the password is the only factor
        /// (NIST SP 800-63B-4, 3.1.1.2); 8 is the least that section allows at all.
        public let minLength: Int
        public static let minLengthRange: ClosedRange<Int64> = 8...64
        /// The most a password may have: only a bound on the work, far past any passphrase.
        public static let maxLength = 256
        /// Words a password must not mostly be, folded (`PasswordKey`): the app's name, the
        /// service's. The account's address and its parts are added per request.
        public let contextWords: [[Unicode.Scalar]]
        /// A Pwned Passwords range service (`https://api.pwnedpasswords.com/range`, kept without a
        /// last slash: the prefix goes after one); nil: none is asked.
        public let rangeUrl: String?
        /// The bound on the whole range request, connecting included.
        public let rangeTimeoutSeconds: Double
        /// The list of common passwords; nil: `PasswordList.installedPath()`.
        public let listFile: String?
        /// Context words shorter than this are left out: they would mark letters of any password.
        public static let shortestContextWord = 3

        public init(
            minLength: Int = 15, contextWords: [[Unicode.Scalar]] = [], rangeUrl: String? = nil,
            rangeTimeoutSeconds: Double = 2, listFile: String? = nil
        ) {
            self.minLength = minLength
            self.contextWords = contextWords
            self.rangeUrl = rangeUrl
            self.rangeTimeoutSeconds = rangeTimeoutSeconds
            self.listFile = listFile
        }

        /// Where the list is: `listFile`, or beside the installed binaries.
        public var listPath: String? { listFile ?? PasswordList.installedPath() }
    }
}

extension Config.Passwords {
    static func read(_ r: inout ConfigReader, processLifetimeSeconds: Int64) throws(ConfigError) -> Config.Passwords {
        let minLength = Int(try r.int("minLength", default: 15, range: minLengthRange))
        var contextWords: [[Unicode.Scalar]] = []
        if let words = r.value("contextWords") {
            guard let array = words.arrayValue else {
                throw ConfigError(key: r.key("contextWords"), reason: "must be a list of strings")
            }
            for (i, word) in array.enumerated() {
                let folded = word.stringValue.map(PasswordKey.fold) ?? []
                guard folded.count >= shortestContextWord, folded.count <= maxLength else {
                    throw ConfigError(
                        key: "\(r.key("contextWords"))[\(i)]",
                        reason: "must be a string of \(shortestContextWord) to \(maxLength) characters")
                }
                contextWords.append(folded)
            }
        }
        let rangeUrl = r.has("rangeUrl") ? try r.url("rangeUrl") : nil
        let timeout = try r.seconds("rangeTimeoutSeconds", default: 2, range: 0.1...10)
        let listFile = try r.string("listFile")
        try r.rejectUnknown()
        guard timeout + 5 <= Double(processLifetimeSeconds) else {
            throw ConfigError(key: "processLifetimeSeconds", reason: "must exceed passwords.rangeTimeoutSeconds by at least 5")
        }
        return Config.Passwords(
            minLength: minLength, contextWords: contextWords, rangeUrl: rangeUrl, rangeTimeoutSeconds: timeout,
            listFile: listFile)
    }
}
