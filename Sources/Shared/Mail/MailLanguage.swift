/// The language of an account's mails (issue 45): the one the person used when the account was
/// made (the kit sends the page's, `"language"` in a sign-up's body), kept on the account
/// (`accounts.language`) and changed by `account` `update`. An unknown language is English.
public enum MailLanguage: String, CaseIterable, Sendable {
    case en, fr, es, de, pt, ar

    var words: MailWords {
        switch self {
        case .en: .en
        case .fr: .fr
        case .es: .es
        case .de: .de
        case .pt: .pt
        case .ar: .ar
        }
    }

    /// The body's `"language"`: a language tag (BCP 47's shape: `fr`, `pt-BR`), whose language
    /// is kept when there are mails in it, and nil (English) when not. A member that is not such
    /// a tag is `invalid_request`.
    static func fromBody(_ body: JSONValue) throws(FrontdoorError) -> MailLanguage? {
        guard let tag = try body.optionalString("language", maxBytes: 35) else { return nil }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        let wellFormed = !parts.isEmpty && parts.allSatisfy { part in
            (1...8).contains(part.utf8.count) && part.utf8.allSatisfy { $0 < 0x80 && (isLetter($0) || (0x30...0x39).contains($0)) }
        } && parts[0].utf8.count >= 2 && parts[0].utf8.count <= 3 && parts[0].utf8.allSatisfy(isLetter)
        guard wellFormed else {
            throw .invalidRequest("language must be a language tag such as \"fr\" or \"pt-BR\".")
        }
        return MailLanguage(rawValue: parts[0].lowercased())
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// The account's, as stored; English when none or unknown.
    static func of(_ accountId: String, db: Database) throws(FrontdoorError) -> MailLanguage {
        let stored = try db.query("SELECT language FROM accounts WHERE id = ?", [.text(accountId)]).first?.text(0)
        return stored.flatMap(MailLanguage.init(rawValue:)) ?? .en
    }
}
