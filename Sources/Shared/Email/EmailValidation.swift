/// The server's check of a typed address, the same the form makes as you type.
///
/// The rule (a practical subset of RFC 5321/6531, documented in the README):
/// - white space at either end is trimmed; control characters anywhere are refused outright;
/// - exactly one `@`; the local part is 1–64 bytes of letters, digits, `!#$%&'*+/=?^_`{|}~-`,
///   dots (not first, last or doubled) or non-ASCII characters; no quoted forms;
/// - the domain is lower-cased, 4–253 bytes, at least two dot-separated labels of 1–63 bytes
///   (letters, digits, non-ASCII, inner hyphens), and a top-level label of two or more letters;
///   no IP literals; a label that is (or claims to be, `xn--`) internationalised meets UTS #46
///   (`IDNA`), within DNS's lengths as an A-label;
/// - the whole address is at most 254 bytes.
/// A valid address at a domain that looks like a slip (`gmial.com`, `.con`) is refused with a
/// suggestion unless the caller accepts it as typed.
public enum EmailValidation {
    public enum Failure: Error, Equatable, Sendable {
        case malformed
        case likelyTypo(suggestion: String)
    }

    /// The address to store: trimmed, in Unicode NFC, domain lower-cased, local part as typed.
    public static func normalise(_ typed: String, acceptAsTyped: Bool = false) -> Result<String, Failure> {
        let trimmed = typed.trimmingWhitespace()
        let parts = trimmed.unicodeScalars.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .failure(.malformed) }
        // Each character judged as typed (NFC itself turns U+212A KELVIN SIGN into "K") by what
        // the key makes of it: the local part's fold, the domain's UTS #46 mapping.
        guard parts[0].allSatisfy(keysAsItself), parts[1].allSatisfy({ $0.isASCII || IDNA.mapping($0) != nil }) else {
            return .failure(.malformed)
        }
        let local = EmailAddress.nfc(String(String.UnicodeScalarView(parts[0])))
        let domain = EmailAddress.nfc(String(String.UnicodeScalarView(parts[1])).lowercased())
        let address = local + "@" + domain
        guard address.unicodeScalars.allSatisfy({ !isControlOrSpace($0) }) else { return .failure(.malformed) }
        // The "@" must stand alone, as mail software sees it: a prepended mark (U+0D4E) before it
        // makes one character of the two. (In ASCII without controls, characters are bytes.)
        guard address.utf8.allSatisfy({ $0 < 0x80 })
            || address.split(separator: "@", omittingEmptySubsequences: false).count == 2
        else { return .failure(.malformed) }
        guard isValidLocal(local), isValidDomain(domain), address.utf8.count <= 254 else {
            return .failure(.malformed)
        }
        if !acceptAsTyped, let better = TypoDomains.suggestion(for: domain) {
            return .failure(.likelyTypo(suggestion: local + "@" + better))
        }
        return .success(address)
    }

    /// `normalise`, answering the contract's `invalid_email` (with `suggestion` for a slip).
    public static func checked(_ typed: String, acceptAsTyped: Bool) throws(FrontdoorError) -> String {
        switch normalise(typed, acceptAsTyped: acceptAsTyped) {
        case .success(let address):
            return address
        case .failure(.malformed):
            throw FrontdoorError(.invalidEmail, "That does not look like an email address.")
        case .failure(.likelyTypo(let suggestion)):
            throw FrontdoorError(
                .invalidEmail, "Did you mean \(suggestion)? If not, send it again as typed.",
                extra: [("suggestion", .string(suggestion))])
        }
    }

    /// Whether a character of the local part stands for itself in the match key, judged by the
    /// function that makes the key (`EmailAddress.fold`). Refused: a non-ASCII character whose key
    /// holds ASCII, which would take an ASCII address's key and its owner's codes (U+212A KELVIN
    /// SIGN folds to "k", U+017F LONG S to "s", "ß" to "ss", U+0131 DOTLESS I to "i", U+0130 to
    /// "i" and a combining dot, U+0149 to "ʼn", U+1E9A to "aʾ"); one whose key keeps a
    /// compatibility form (fullwidth "Ａ", "ﬁ", circled or mathematical letters), which NFKC would
    /// turn into another address; and an unassigned code point, whose case a later Unicode may
    /// give it, changing its key under a stored account. Plain case pairs ("É"/"é") pass.
    static func keysAsItself(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return true }
        guard scalar.properties.generalCategory != .unassigned else { return false }
        let key = EmailAddress.fold(String(scalar)).unicodeScalars
        return !key.contains { $0.isASCII || $0.properties.changesWhenNFKCCaseFolded }
    }

    static func isControlOrSpace(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x21 || (0x7F...0x9F).contains(v) || scalar.properties.isWhitespace
            || scalar.properties.generalCategory == .format || v == 0x2028 || v == 0x2029
    }

    static func isValidLocal(_ local: String) -> Bool {
        let bytes = Array(local.utf8)
        guard (1...64).contains(bytes.count), bytes.first != dot, bytes.last != dot else { return false }
        var previous: UInt8 = 0
        for c in bytes {
            if c == dot && previous == dot { return false }
            guard c >= 0x80 || isAlnum(c) || c == dot || localSpecials.contains(c) else { return false }
            previous = c
        }
        return true
    }

    static func isValidDomain(_ domain: String) -> Bool {
        let bytes = Array(domain.utf8)
        guard (4...253).contains(bytes.count) else { return false }
        let labels = bytes.split(separator: dot, omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            // A non-ASCII label's length is its A-label's, which `IDNA.isValid` checks.
            guard (1...63).contains(label.count) || label.contains(where: { $0 >= 0x80 }),
                  label.first != hyphen, label.last != hyphen,
                  label.allSatisfy({ $0 >= 0x80 || isAlnum($0) || $0 == hyphen })
            else { return false }
        }
        guard let top = labels.last, top.count >= 2 else { return false }
        // Letters, or an internationalised top-level label (`xn--…` or non-ASCII).
        guard top.allSatisfy({ $0 >= 0x80 || isAlpha($0) }) || top.starts(with: Array("xn--".utf8)) else { return false }
        // UTS #46's criteria where a label is or claims to be internationalised; ASCII as before.
        return !labels.contains { $0.contains { $0 >= 0x80 } || $0.starts(with: Array("xn--".utf8)) }
            || IDNA.isValid(domain)
    }

    private static let dot = UInt8(ascii: ".")
    private static let hyphen = UInt8(ascii: "-")
    private static let localSpecials = Set("!#$%&'*+/=?^_`{|}~-".utf8)
    private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    private static func isAlnum(_ c: UInt8) -> Bool { isAlpha(c) || (c >= 0x30 && c <= 0x39) }
}
