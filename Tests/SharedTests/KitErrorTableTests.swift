import DevSupport
import FoundationEssentials
import Testing
@testable import Shared

/// Rule 21: every error code the server can give is one plain sentence in the web kit's table,
/// in each of its languages (kits/web/lang/*.json), and the password reasons too. A code added
/// to FrontdoorError (or to DESIGN.md's list) fails here until the table has it.
@Suite struct KitErrorTableTests {
    static let languages = ["en", "fr", "es", "de", "pt", "ar"]

    static func table(_ language: String) throws -> JSONValue {
        try TypoSource.load("kits/web/lang/\(language).json")
    }

    @Test(arguments: languages) func everyServerCodeHasItsSentence(_ language: String) throws {
        let errors = try #require(try Self.table(language)["errors"]?.objectValue)
        let sentences = Dictionary(errors.map { ($0.0, $0.1.stringValue ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(KitErrorCodes.all.count >= 29)
        for code in KitErrorCodes.all {
            let sentence = sentences[code] ?? ""
            #expect(!sentence.isEmpty, "\(language): no sentence for \(code)")
            // A sentence a person reads: it starts with a capital and ends with a full stop.
            // (Arabic's letters have no case.)
            let capital = sentence.first.map { $0.isUppercase || !$0.isCased } ?? false
            #expect(capital && sentence.last == ".", "\(language): \(code): \(sentence)")
        }
        // The kit's own (no answer, a blocked window, …) and the fallback are there too.
        for code in ["network", "unexpected_answer", "popup_blocked", "passkey_failed", "not_configured", "unknown"] {
            #expect(!(sentences[code] ?? "").isEmpty, "\(language): no sentence for the kit's \(code)")
        }
    }

    @Test(arguments: languages) func everyPasswordReasonHasItsSentence(_ language: String) throws {
        let reasons = try #require(try Self.table(language)["reasons"]?.objectValue)
        for reason in ["too_short", "too_long", "common", "repetitive", "contains_context"] {
            #expect(reasons.contains { $0.0 == reason && !($0.1.stringValue ?? "").isEmpty }, "\(language): \(reason)")
        }
        #expect(reasons.first { $0.0 == "too_short" }?.1.stringValue?.contains("{minLength}") == true)
    }

    @Test func theLanguagesHaveTheSameWords() throws {
        let english = try Self.table("en")
        for language in Self.languages where language != "en" {
            let other = try Self.table(language)
            for part in ["ui", "reasons", "errors"] {
                let a = Set((english[part]?.objectValue ?? []).map(\.0))
                let b = Set((other[part]?.objectValue ?? []).map(\.0))
                #expect(a == b, "\(language).\(part): \(a.symmetricDifference(b).sorted())")
            }
        }
    }

    /// The words the page asks for: `data-i18n="key"` in signin.html, `t("key"` in signin.js.
    /// (A key the script picks at run time is only in the languages' parity check above.)
    @Test func everyWordThePageUsesIsInEachLanguage() throws {
        func keys(_ path: String, after marker: String) throws -> Set<String> {
            let data = try #require(FileManager.default.contents(atPath: TypoSource.root + "/" + path))
            let text = String(decoding: data, as: UTF8.self)
            return Set(text.split(separator: marker, omittingEmptySubsequences: false).dropFirst().compactMap { rest in
                rest.split(separator: "\"", maxSplits: 1).first.map(String.init)
            })
        }
        var used = try keys("kits/web/signin.html", after: "data-i18n=\"")
        for marker in [" t(\"", "(t(\"", "{t(\""] { used.formUnion(try keys("kits/web/signin.js", after: marker)) }
        #expect(used.count >= 40)
        for language in Self.languages {
            let ui = Set((try Self.table(language)["ui"]?.objectValue ?? []).map(\.0))
            #expect(used.subtracting(ui).isEmpty, "\(language): \(used.subtracting(ui).sorted())")
        }
    }

    @Test func everyCodeOfTheServerIsInTheListTheKitIsHeldTo() {
        for code in FrontdoorError.Code.allCases { #expect(KitErrorCodes.all.contains(code.rawValue)) }
    }
}
