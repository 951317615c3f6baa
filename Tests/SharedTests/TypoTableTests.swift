import FoundationEssentials
import Testing
@testable import Shared

/// The typo table's one source (kits/web/typos.json) and its vectors (Tests/Vectors/typos), which
/// the web kit and the Swift client pass too.
enum TypoSource {
    static let root: String = {
        // #filePath is <root>/Tests/SharedTests/TypoTableTests.swift.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static func load(_ path: String) throws -> JSONValue {
        let data = try #require(FileManager.default.contents(atPath: root + "/" + path), "cannot read \(path)")
        return try JSONParser.parse([UInt8](data), maxDepth: 8)
    }
}

@Suite struct TypoTableTests {
    @Test func theCompiledTableIsTheSource() throws {
        let source = try TypoSource.load("kits/web/typos.json")
        let slips = try #require(source["topLevelSlips"]?.objectValue)
        #expect(Dictionary(uniqueKeysWithValues: slips.map { ($0.0, $0.1.stringValue ?? "") }) == TypoTable.topLevelSlips)
        #expect(source["providers"]?.arrayValue?.compactMap(\.stringValue) == TypoTable.providers)
        #expect(Set(source["realNeighbours"]?.arrayValue?.compactMap(\.stringValue) ?? []) == TypoTable.realNeighbours)
        #expect(source["editedProviderMinLength"]?.int64Value == Int64(TypoTable.editedProviderMinLength))
    }

    @Test func theServerPassesEveryVector() throws {
        let cases = try #require(TypoSource.load("Tests/Vectors/typos/vectors.json")["cases"]?.arrayValue)
        #expect(cases.count >= 40)
        for vector in cases {
            let typed = try #require(vector["typed"]?.stringValue)
            let expected = vector["suggestion"]?.stringValue
            let suggestion: String?
            switch EmailValidation.normalise(typed) {
            case .failure(.likelyTypo(let better)): suggestion = better
            case .success, .failure(.malformed): suggestion = nil
            }
            #expect(suggestion == expected, "\(typed): \(vector["why"]?.stringValue ?? "")")
        }
    }
}
