import Testing
@testable import Shared

@Suite struct JSONParserTests {
    @Test func parsesNestedDocument() throws {
        let value = try JSONParser.parse(#"{"a": [1, -2.5e1, true, null], "b": "x\u00e9\ud83d\ude00\n"}"#)
        #expect(value["a"] == .array([.number(1), .number(-25), .bool(true), .null]))
        #expect(value["b"]?.stringValue == "xé😀\n")
    }

    @Test func refusesDuplicateMembers() {
        #expect(throws: JSONParseError.duplicateMember("a")) { try JSONParser.parse(#"{"a":1,"a":2}"#) }
        #expect(throws: JSONParseError.duplicateMember("k")) { try JSONParser.parse(#"[{"x":{"k":1,"k":1}}]"#) }
    }

    /// Small objects are searched linearly and large ones through a set: duplicates on both sides
    /// of the switch are refused, and distinct names are all kept.
    @Test func refusesDuplicatesInLargeObjects() throws {
        let names = (0..<40).map { "m\($0)" }
        func object(_ names: [String]) -> String { "{" + names.map { "\"\($0)\":0" }.joined(separator: ",") + "}" }
        #expect(try JSONParser.parse(object(names)).objectValue?.count == 40)
        for (early, late) in [(3, 10), (3, 30), (20, 35), (15, 16)] {
            var twice = names
            twice[late] = names[early]
            #expect(throws: JSONParseError.duplicateMember(names[early])) { try JSONParser.parse(object(twice)) }
        }
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "tru", "\"\\x\"", "\"\u{01}\"", "\"\\ud800\"",
        "NaN", "1e999", "{} {}", "'a'", "[1 2]", "{\"a\" 1}",
    ])
    func refusesMalformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParseError.tooDeep) { try JSONParser.parse(deep) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.invalidUTF8) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func roundTripsThroughWriter() throws {
        let text = #"{"s":"a\"b\\c\n\u0001","n":[1,2.5,-3],"o":{},"t":true,"z":null}"#
        #expect(try JSONParser.parse(text).serialized == text)
    }
}

@Suite struct Base64URLTests {
    @Test func roundTrips() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode(Array("hello?>".utf8)) == "aGVsbG8_Pg")
    }

    @Test(arguments: ["aGVsbG8=", "aGVs bG8", "aGVsbG8+Pg", "a", "aGVsbG9"])
    func refusesNonCanonical(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

@Suite struct ClockTests {
    @Test func formatsRFC3339() {
        #expect(Clock.rfc3339(0) == "1970-01-01T00:00:00Z")
        #expect(Clock.rfc3339(1_796_035_529) == "2026-11-30T10:45:29Z")
        #expect(Clock.rfc3339(951_782_400) == "2000-02-29T00:00:00Z")
    }
}
