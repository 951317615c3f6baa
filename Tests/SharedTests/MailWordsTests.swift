import Testing
@testable import Shared

/// The mails in six languages (issue 45): every language says every sentence, with exactly the
/// placeholders English has; templates fill in one pass; a subject that is not ASCII travels as
/// RFC 2047 encoded words.
@Suite struct MailWordsTests {
    /// Each member's `{name}`s.
    static func placeholders(_ text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            names.insert(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return names
    }

    static func members(_ words: MailWords) -> [(String, String)] {
        Mirror(reflecting: words).children.compactMap { child in
            guard let label = child.label, let text = child.value as? String else { return nil }
            return (label, text)
        }
    }

    @Test(arguments: MailLanguage.allCases)
    func everyLanguageSaysEverySentenceWithEnglishsPlaceholders(_ language: MailLanguage) {
        let english = Dictionary(uniqueKeysWithValues: Self.members(MailWords.en))
        let theirs = Self.members(language.words)
        #expect(theirs.count == english.count)
        for (label, text) in theirs {
            #expect(!text.isEmpty, "\(language).\(label)")
            #expect(Self.placeholders(text) == Self.placeholders(english[label] ?? ""), "\(language).\(label): \(text)")
        }
        #expect(language.words.months.count == 12 && Set(language.words.months).count == 12)
        // A date in every language names its year and time.
        let when = language.words.format(1_796_000_000)
        #expect(when.contains("2026") && when.contains(":") && !when.contains("{"), "\(language): \(when)")
    }

    @Test func aTemplateFillsInOnePass() {
        #expect(MailWords.fill("{a} and {b}", ["a": "{b}", "b": "B"]) == "{b} and B")
        #expect(MailWords.fill("{unknown} {a", ["a": "A"]) == "{unknown} {a")
        let notice = MailWords.en.notice("{what} on {when}", when: 0, extra: ["what": "named {when}"])
        #expect(notice == "named {when} on 1 January 1970 at 00:00 UTC", "\(notice)")
    }

    @Test func aSubjectThatIsNotASCIITravelsAsEncodedWords() {
        #expect(MailMessage.encodedWord("Your code") == "Your code")
        let arabic = MailWords.ar.passwordChangedSubject
        let encoded = MailMessage.encodedWord(arabic)
        let words = encoded.split(separator: "\r\n ").map(String.init)
        #expect(words.allSatisfy { $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") && $0.utf8.count <= 75 }, "\(encoded)")
        #expect(encoded.utf8.allSatisfy { $0 < 0x80 })
        let decoded = words.compactMap { word -> [UInt8]? in
            let inner = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            return Base64URL.decode(String(inner.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }.filter { $0 != "=" }))
        }.flatMap { $0 }
        #expect(String(decoding: decoded, as: UTF8.self) == arabic)
        // A long one is split between characters, never inside one.
        let long = String(repeating: "é", count: 100)
        let parts = MailMessage.encodedWord(long).split(separator: "\r\n ")
        #expect(parts.count > 1 && parts.allSatisfy { $0.utf8.count <= 75 })
    }
}
