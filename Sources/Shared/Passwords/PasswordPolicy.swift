/// Rule 19 (NIST SP 800-63B-4, 3.1.1.2): a password being set is checked for what attackers try
/// first, never for its composition, and the person is told why it was refused. Every endpoint
/// that sets a password calls `check` before it spends a code or a ticket, counts a try, or runs
/// Argon2id; a stored password is never checked again. docs/security.md says what each rule is and why.
public enum PasswordPolicy {
    /// The `reason` of a 422 `invalid_password`.
    public enum Reason: String, Sendable, CaseIterable {
        case tooShort = "too_short"
        case tooLong = "too_long"
        case common
        case repetitive
        case containsContext = "contains_context"
    }

    /// Whom the password is for.
    public struct Context: Sendable {
        /// The account's address (or the address being registered); nil when it has none.
        public var email: String?

        public init(email: String?) {
            self.email = email
        }

        /// The words of the address a password must not mostly be, folded: the whole address,
        /// its local part, its domain's first label; each of at least 3 code points.
        func words() -> [[Unicode.Scalar]] {
            guard let email else { return [] }
            let folded = PasswordKey.fold(email)
            var words = [folded]
            if let at = folded.lastIndex(of: "@") {
                words.append(Array(folded[..<at]))
                let domain = folded[(at + 1)...]
                words.append(Array(domain.prefix { $0 != "." }))
            }
            return words.filter { $0.count >= Config.Passwords.shortestContextWord }
        }
    }

    /// Everything rule 19 asks, the range service last (when `passwords.rangeUrl` is set): throws
    /// 422 `invalid_password` with its `reason` and `minLength`, or 500 `internal` when the list
    /// of common passwords cannot be read (no password is set without it being checked; the
    /// stderr line names `passwords.listFile`). The range service never refuses for being away.
    public static func check(_ password: String, context: Context, config: Config) throws(FrontdoorError) {
        try checkOnBox(password, context: context, config: config)
        try checkRange(password, config: config)
    }

    /// Rule 19 on this box alone: what a refusal costs nobody anything to say.
    public static func checkOnBox(_ password: String, context: Context, config: Config) throws(FrontdoorError) {
        let rules = config.passwords
        if let reason = lengthVerdict(password, rules: rules) { throw refusal(reason, minLength: rules.minLength) }
        let list = try openList(rules)
        if let reason = verdict(password, context: context, rules: rules, list: list) {
            throw refusal(reason, minLength: rules.minLength)
        }
    }

    /// The range service (when `passwords.rangeUrl` is set): asked only once the request has been
    /// counted against its limits, so a request the limits refuse holds no outbound call (the
    /// fourth review's T5-9).
    public static func checkRange(_ password: String, config: Config) throws(FrontdoorError) {
        let rules = config.passwords
        guard let url = rules.rangeUrl else { return }
        switch PwnedRange.ask(about: password, url: url, timeoutSeconds: rules.rangeTimeoutSeconds) {
        case .seen: throw refusal(.common, minLength: rules.minLength)
        case .notSeen: return
        case .unavailable(let why):
            // Never the person's problem: they get no error, the operator a line.
            SysLog.warning("frontdoor passwords: the range service was not asked or did not answer (\(why)); the password was checked on this box only")
        }
    }

    /// The list `check` reads, or the 500 that a missing or damaged one is.
    static func openList(_ rules: Config.Passwords) throws(FrontdoorError) -> PasswordList {
        guard let path = rules.listPath else {
            throw .internal("config: passwords.listFile: not set, and this program is not installed beside share/frontdoor/")
        }
        do {
            return try PasswordList(path: path)
        } catch {
            throw .internal("config: passwords.listFile: \(error)")
        }
    }

    /// Too short or too long: code points after NFC.
    static func lengthVerdict(_ password: String, rules: Config.Passwords) -> Reason? {
        let length = password.utf8.allSatisfy({ $0 < 0x80 })
            ? password.utf8.count : EmailAddress.nfc(password).unicodeScalars.count
        if length < rules.minLength { return .tooShort }
        if length > Config.Passwords.maxLength { return .tooLong }
        return nil
    }

    /// The checks made on the box, in order: the length; the whole password on the list; runs and
    /// context words together covering more than half of its code points (`contains_context` when
    /// the words alone cover more than half, or at least as much as the runs; else `repetitive`);
    /// its letters and digits left once they are taken out, on the list (`common`: "elephant"
    /// in "elephant-1234567", "password" in "p.a.s.s.w.o.r.d"). nil: it passes them.
    public static func verdict(
        _ password: String, context: Context, rules: Config.Passwords, list: PasswordList
    ) -> Reason? {
        if let reason = lengthVerdict(password, rules: rules) { return reason }
        let folded = PasswordKey.fold(password)
        if list.contains(folded) { return .common }
        let n = folded.count
        var runs = [Bool](repeating: false, count: n)
        PasswordRuns.mark(folded, into: &runs)
        var words = [Bool](repeating: false, count: n)
        PasswordRuns.mark(words: context.words() + rules.contextWords, in: folded, into: &words)
        let inRuns = runs.lazy.filter { $0 }.count
        let inWords = words.lazy.filter { $0 }.count
        let covered = (0..<n).filter { runs[$0] || words[$0] }.count
        if 2 * covered > n {
            return inWords > 0 && (2 * inWords > n || inWords >= inRuns) ? .containsContext : .repetitive
        }
        let left = (0..<n).filter { !runs[$0] && !words[$0] && isLetterOrDigit(folded[$0]) }.map { folded[$0] }
        if !left.isEmpty && left.count < n && list.contains(left) { return .common }
        return nil
    }

    /// Letters (with their marks) and digits: what is left of a password is read without the
    /// spaces and punctuation that held its runs apart.
    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return (0x30...0x39).contains(scalar.value) || (0x61...0x7A).contains(scalar.value) || (0x41...0x5A).contains(scalar.value) }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    /// The 422 for `reason`, with the sentence the person reads.
    public static func refusal(_ reason: Reason, minLength: Int) -> FrontdoorError {
        let advice = " A few unrelated words make a strong password that is easy to remember."
        let message: String
        switch reason {
        case .tooShort: message = "The password must be at least \(minLength) characters long." + advice
        case .tooLong: message = "The password must be at most \(Config.Passwords.maxLength) characters long."
        case .common:
            message = "This password is one that many people use, or that has appeared in a data breach, so it is among the first that attackers try. Please choose another." + advice
        case .repetitive:
            message = "This password is mostly repeated or sequential characters (such as aaaa, 1234 or qwerty). Please choose another." + advice
        case .containsContext:
            message = "This password is mostly your email address or the app's name. Please choose another." + advice
        }
        return FrontdoorError(
            .invalidPassword, message, detail: "password refused: \(reason.rawValue)",
            extra: [("reason", .string(reason.rawValue)), ("minLength", .number(Double(minLength)))])
    }
}
