import DevSupport
import Testing
@testable import Shared

/// Issue 35: the session check's config parse builds only what the check reads; the sections it
/// leaves unread are skimmed, their syntax still checked (`JSONParser.parse(_:skimming:)`).
@Suite struct JSONSkimTests {
    static let document = #"""
        {"kept": {"a": [1, "two\u00e9", {"b": null}]}, "skimmed": {"clientIds": ["x\"y\\z\u0041", -1.5e3, true, false, null],
         "nested": [[[{}]]], "text": "caf\u00e9 \ud83d\ude00"}, "last": "é"}
        """#

    @Test func skimmedMembersComeBackNullAndTheRestWhole() throws {
        let whole = try JSONParser.parse(Array(Self.document.utf8))
        let skimmed = try JSONParser.parse(Array(Self.document.utf8), skimming: ["skimmed"])
        #expect(skimmed["skimmed"] == .null)
        #expect(whole["skimmed"] != .null)
        #expect(skimmed["kept"] == whole["kept"] && skimmed["last"] == whole["last"])
        guard case .object(let members) = skimmed else { throw JSONParseError.syntax(at: -1) }
        #expect(members.map(\.0) == ["kept", "skimmed", "last"])
        // Only top-level members are skimmed: a nested member of the same name is parsed.
        let nested = try JSONParser.parse(Array(#"{"a": {"skimmed": [1]}}"#.utf8), skimming: ["skimmed"])
        #expect(nested["a"]?["skimmed"] == .array([.number(1)]))
    }

    /// Whatever the whole parse refuses for its syntax or depth, the skim refuses too.
    @Test(arguments: [
        #"{"s": {"a": 1,}}"#, #"{"s": [1 2]}"#, #"{"s": "unterminated}"#, #"{"s": "bad \q escape"}"#,
        #"{"s": "bad \u12G4 escape"}"#, "{\"s\": \"control \u{01} character\"}", #"{"s": {"a" 1}}"#, #"{"s": {1: 2}}"#,
        #"{"s": 01}"#, #"{"s": -}"#, #"{"s": 1.}"#, #"{"s": 1e}"#, #"{"s": tru}"#, #"{"s": nul}"#, #"{"s": [}"#,
        #"{"s": {}} trailing"#, #"{"s": }"#,
    ])
    func skimmedSyntaxErrorsAreStillErrors(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8), skimming: ["s"]) }
    }

    /// Seeded mutations of the document (a byte changed, dropped or doubled): whenever the whole
    /// parse accepts one, the skim accepts it with the same unskimmed members; whenever the skim
    /// refuses one, so does the whole parse.
    @Test func theSkimAgreesWithTheWholeParseOnMutatedDocuments() throws {
        var random = SplitMix(label: "theSkimAgreesWithTheWholeParseOnMutatedDocuments")
        let original = Array(Self.document.utf8)
        let alphabet = Array(#"{}[]":,\"u0123456789abcdefnrt-+.eE "#.utf8)
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random) ?? 0x20
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
            }
            let whole = try? JSONParser.parse(bytes)
            let skimmed = try? JSONParser.parse(bytes, skimming: ["skimmed"])
            if let whole {
                accepted += 1
                #expect(skimmed != nil, "\(String(decoding: bytes, as: UTF8.self))")
                guard case .object(let all)? = Optional(whole), case .object(let some)? = skimmed else { continue }
                #expect(all.map(\.0) == some.map(\.0))
                for ((name, value), (_, other)) in zip(all, some) where name != "skimmed" { #expect(value == other) }
            }
            if skimmed == nil { #expect(whole == nil) }
        }
        #expect(accepted > 100, "the mutations should leave some documents valid")
    }

    @Test func skimmedDepthIsBounded() {
        let deep = #"{"s": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        #expect(throws: JSONParseError.tooDeep) { try JSONParser.parse(Array(deep.utf8), skimming: ["s"]) }
    }

    /// The check's config: its unread sections are skimmed, what it reads is whole, and a file
    /// broken anywhere is still refused.
    @Test func theChecksConfigSkimsItsUnreadSections() throws {
        let text = #"{"databasePath": "/var/lib/frontdoor/frontdoor.sqlite3", "sessions": {"renewAfterSeconds": 120},"#
            + #" "google": {"clientIds": ["a.apps.googleusercontent.com"]}, "mail": {"smtpUrl": "smtp://127.0.0.1:25", "from": "frontdoor@example.org"}}"#
        let check = try Config.parse(Array(text.utf8), scope: .sessionCheck)
        let everything = try Config.parse(Array(text.utf8))
        #expect(check.sessions == everything.sessions && check.databasePath == everything.databasePath)
        #expect((check.google == nil) && (everything.google != nil))
        let broken = text.replacingAll(#""clientIds": ["#, with: #""clientIds": [,"#)
        #expect(throws: ConfigError.self) { try Config.parse(Array(broken.utf8), scope: .sessionCheck) }
        #expect(Config.sectionsSkimmedByTheCheck.allSatisfy(Config.sectionsBeyondTheCheck.contains))
        #expect(!Config.sectionsSkimmedByTheCheck.contains("deletion"))
    }
}
