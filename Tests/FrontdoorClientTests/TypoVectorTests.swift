import Foundation
import Testing
@testable import FrontdoorClient
import enum Shared.EmailValidation

/// The client's typo check: the same table as the server and the web kit (kits/web/typos.json),
/// the same vectors (Tests/Vectors/typos), and a format check never stricter than the server's.
@Suite struct TypoVectorTests {
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static func json(_ path: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: root + "/" + path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theTableIsTheSource() throws {
        let source = try Self.json("kits/web/typos.json")
        #expect(source["topLevelSlips"] as? [String: String] == TypoTable.topLevelSlips)
        #expect(source["providers"] as? [String] == TypoTable.providers)
        #expect(Set(source["realNeighbours"] as? [String] ?? []) == TypoTable.realNeighbours)
        #expect(source["editedProviderMinLength"] as? Int == TypoTable.editedProviderMinLength)
    }

    @Test func theClientPassesEveryVector() throws {
        let cases = try #require(try Self.json("Tests/Vectors/typos/vectors.json")["cases"] as? [[String: Any]])
        #expect(cases.count >= 40)
        for vector in cases {
            let typed = try #require(vector["typed"] as? String)
            #expect(AddressCheck.suggestion(for: typed) == vector["suggestion"] as? String, "\(typed): \(vector["why"] ?? "")")
        }
    }

    /// Seeded random addresses (a local part, `@`, two or three labels from slips, real domains,
    /// non-ASCII letters), a third of them spoiled by one more piece anywhere (an `@`, a dot, white
    /// space, a control character): whatever the server takes, the client takes too, and suggests
    /// what the server suggests.
    @Test func neverStricterThanTheServerAndTheSameSuggestion() {
        let seed: UInt64 = 0x7490_0034
        print("TypoVectorTests seed 0x\(String(seed, radix: 16))")
        var random = SeededGenerator(seed: seed)
        let locals = ["ada", "Lee", "a.b", "x+y", "é", "Ä", "1"]
        let labels = [
            "gmial", "gmail", "gmai", "hotmal", "hotmail", "yaho", "yahoo", "outlok", "icloud", "co", "uk", "com", "con",
            "cmo", "nte", "ogr", "org", "ORG", "gmäil", "gmaıl", "xn--bcher-kva", "example", "live", "liv", "aol", "me", "de",
        ]
        let spoilers = ["@", ".", " ", "\u{00A0}", "\u{0001}", "-", "..", "é"]
        var accepted = 0
        for _ in 0..<3000 {
            var typed = (0..<Int.random(in: 1...2, using: &random)).map { _ in locals.randomElement(using: &random)! }.joined()
            typed += "@" + (0..<Int.random(in: 2...3, using: &random)).map { _ in labels.randomElement(using: &random)! }
                .joined(separator: ".")
            if Int.random(in: 0..<3, using: &random) == 0 {
                var scalars = Array(typed.unicodeScalars)
                scalars.insert(contentsOf: spoilers.randomElement(using: &random)!.unicodeScalars, at: Int.random(in: 0...scalars.count, using: &random))
                typed = String(String.UnicodeScalarView(scalars))
            }
            guard case .success = EmailValidation.normalise(typed, acceptAsTyped: true) else { continue }
            accepted += 1
            #expect(AddressCheck.looksLikeAddress(typed), "\(typed.debugDescription)")
            let server: String?
            switch EmailValidation.normalise(typed) {
            case .failure(.likelyTypo(let suggestion)): server = suggestion
            default: server = nil
            }
            #expect(AddressCheck.suggestion(for: typed) == server, "\(typed.debugDescription)")
        }
        #expect(accepted > 1000, "the generator made too few valid addresses to mean anything: \(accepted)")
    }

    @Test func whatTheFormRefuses() {
        for typed in ["", "  ", "ada", "ada@", "@gmail.com", "ada@@gmail.com", "ada@gmail", "ada@gmail.", "ada@.com", "ada@gmail.c",
                      "ada lee@gmail.com", "ada@gm\u{0001}ail.com"] {
            #expect(!AddressCheck.looksLikeAddress(typed), "\(typed.debugDescription)")
            #expect(AddressCheck.suggestion(for: typed) == nil)
        }
        #expect(AddressCheck.looksLikeAddress("  ada@gmail.com\n"))
    }
}
