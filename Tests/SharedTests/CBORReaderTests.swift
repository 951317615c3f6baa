import Shared
import Testing

@Suite struct CBORReaderTests {
    typealias F = PasskeyFixtures
    static let loose = CBORLimits(maxDepth: 4, maxItems: 64, maxBytes: 4096, canonicalMapOrder: false)
    static let canonical = CBORLimits(maxDepth: 4, maxItems: 64, maxBytes: 4096, canonicalMapOrder: true)

    func decode(_ hex: String, _ limits: CBORLimits = loose) throws(CBORError) -> CBORValue {
        try CBORReader.decode(F.hex(hex), limits: limits)
    }

    @Test func readsEveryKindWebAuthnUses() throws {
        #expect(try decode("00") == .integer(0))
        #expect(try decode("17") == .integer(23))
        #expect(try decode("1818") == .integer(24))
        #expect(try decode("190100") == .integer(256))
        #expect(try decode("1a00010000") == .integer(65536))
        #expect(try decode("1b0000000100000000") == .integer(1 << 32))
        #expect(try decode("1b7fffffffffffffff") == .integer(Int64.max))
        #expect(try decode("20") == .integer(-1))
        #expect(try decode("26") == .integer(-7))
        #expect(try decode("390100") == .integer(-257))
        #expect(try decode("3b7fffffffffffffff") == .integer(Int64.min))
        #expect(try decode("43010001") == .bytes([1, 0, 1]))
        #expect(try decode("40") == .bytes([]))
        #expect(try decode("646e6f6e65") == .text("none"))
        #expect(try decode("62c3a9") == .text("é"))
        #expect(try decode("f4") == .bool(false))
        #expect(try decode("f5") == .bool(true))
        #expect(try decode("820102") == .array([.integer(1), .integer(2)]))
        #expect(try decode("a0") == .map([]))
        let map = try decode("a2016161636b6579f5")
        #expect(map[integer: 1] == .text("a"))
        #expect(map[text: "key"] == .bool(true))
        #expect(map[text: "other"] == nil)
    }

    /// The writer writes back exactly what the reader accepted (the fuzz target's oracle too).
    @Test func writerRoundTrips() throws {
        for hex in ["1b7fffffffffffffff", "3b7fffffffffffffff", "1903e8", "5901000000", "a3010203260440",
                    "83a0a10180f5", "6474657374", "a2636b6579016161f4"] {
            var bytes = F.hex(hex)
            if hex.hasPrefix("59") { bytes = [0x59, 0x01, 0x00] + [UInt8](repeating: 7, count: 256) }
            let value = try CBORReader.decode(bytes, limits: Self.loose)
            #expect(CBORWriter.encode(value) == bytes, "\(hex)")
        }
        let key = CBORWriter.canonicalMap([(.integer(-2), .integer(0)), (.integer(3), .integer(-7)), (.integer(1), .integer(2)),
                                           (.integer(-1), .integer(1)), (.integer(24), .integer(0))])
        // CTAP2's order: major type first (so 24 before -1), then length, then bytes.
        #expect(CBORWriter.encode(key) == F.hex("a50102032618180020012100"))
    }

    @Test func refusesIntegersLengthsAndCountsNotInShortestForm() {
        for hex in ["1801", "1817", "1900ff", "1a0000ffff", "1b00000000ffffffff", "3817", "5801aa", "780161",
                    "980100", "b8010000"] {
            #expect(throws: CBORError.nonShortestEncoding, "\(hex)") { try decode(hex) }
        }
    }

    @Test func refusesTagsFloatsAndSimpleValues() {
        #expect(throws: CBORError.tag) { try decode("c6a0") }
        #expect(throws: CBORError.tag) { try decode("d818a0") }
        // SwiftCBOR#92: a run of tag bytes exhausted its stack.
        #expect(throws: CBORError.tag) { try decode(String(repeating: "ca", count: 200) + "00") }
        #expect(throws: CBORError.tag) { try decode("81c100") }
        for hex in ["f93c00", "fa3f800000", "fb3ff0000000000000"] {
            #expect(throws: CBORError.float, "\(hex)") { try decode(hex) }
        }
        for hex in ["f6", "f7", "f820", "e0", "f3"] {
            #expect(throws: CBORError.simpleValue, "\(hex)") { try decode(hex) }
        }
        for hex in ["1c", "3d", "5e", "fc", "fe"] {
            #expect(throws: CBORError.reservedAdditionalInfo, "\(hex)") { try decode(hex) }
        }
    }

    @Test func refusesIndefiniteLengths() {
        for hex in ["5f4101ff", "7f6161ff", "9f01ff", "bf0101ff", "ff", "81ff"] {
            #expect(throws: CBORError.indefiniteLength, "\(hex)") { try decode(hex) }
        }
    }

    @Test func refusesIntegersBeyondInt64() {
        #expect(throws: CBORError.integerOutOfRange) { try decode("1b8000000000000000") }
        #expect(throws: CBORError.integerOutOfRange) { try decode("1bffffffffffffffff") }
        // A 64-bit negative alg.
        #expect(throws: CBORError.integerOutOfRange) { try decode("a1033bffffffffffffffff") }
    }

    /// Lengths and counts are checked against what remains before anything is read or allocated
    /// (SwiftCBOR#118: `0x9B` and a huge count crashed on allocation).
    @Test func refusesDeclaredLengthsThatDoNotFit() {
        for hex in ["5bffffffffffffffff", "5b7fffffffffffffff", "7b7fffffffffffffff", "5affffffff", "590100" + "00",
                    "4201", "62c3"] {
            #expect(throws: CBORError.truncated, "\(hex)") { try decode(hex) }
        }
        for hex in ["9bffffffffffffffff", "bb7fffffffffffffff", "9affffffff", "ba00010000", "9841" + "00"] {
            #expect(throws: CBORError.tooManyItems, "\(hex)") { try decode(hex) }
        }
        // A count that fits the item budget but not the bytes left.
        #expect(throws: CBORError.truncated) { try decode("9818") }
        #expect(throws: CBORError.truncated) { try decode("a8" + "0101") }
        #expect(throws: CBORError.truncated) { try decode("") }
        #expect(throws: CBORError.truncated) { try decode("19") }
        #expect(throws: CBORError.truncated) { try decode("1b00000001") }
    }

    @Test func boundsDepthItemsAndSize() throws {
        // Depth 4 is the limit: four nested arrays pass, five do not.
        #expect(try decode("81818181" + "00") == .array([.array([.array([.array([.integer(0)])])])]))
        #expect(throws: CBORError.tooDeep) { try decode("8181818181" + "00") }
        #expect(throws: CBORError.tooDeep) { try decode(String(repeating: "81", count: 100) + "00") }
        #expect(throws: CBORError.tooDeep) { try decode("a101" + "a101a101a101a0") }
        // 64 items: an array of 63 zeros is 64 with itself.
        #expect(try decode("983f" + String(repeating: "00", count: 63)) == .array(Array(repeating: .integer(0), count: 63)))
        #expect(throws: CBORError.tooManyItems) { try decode("9840" + String(repeating: "00", count: 64)) }
        #expect(throws: CBORError.tooManyItems) { try decode("9820" + String(repeating: "8100", count: 32)) }
        let big = [UInt8](repeating: 0, count: 4097)
        #expect(throws: CBORError.tooLarge) { try CBORReader.decode(big, limits: Self.loose) }
    }

    @Test func refusesDuplicateAndOddMapKeys() throws {
        #expect(throws: CBORError.duplicateMapKey) { try decode("a201000100") }
        #expect(throws: CBORError.duplicateMapKey) { try decode("a263666d74006366" + "6d7401") }
        // 1 and -2 are different keys, as are "a" and h'61'; a byte string cannot be a key at all.
        #expect(try decode("a2010021" + "00").mapEntries?.count == 2)
        #expect(throws: CBORError.mapKeyType) { try decode("a1416100") }
        #expect(throws: CBORError.mapKeyType) { try decode("a18000") }
        #expect(throws: CBORError.mapKeyType) { try decode("a1f500") }
        #expect(throws: CBORError.invalidUTF8) { try decode("62c328") }
        #expect(throws: CBORError.invalidUTF8) { try decode("63eda080") }
    }

    @Test func enforcesCanonicalKeyOrderOnlyWhenAsked() throws {
        // {3: 0, 1: 0} and {-1: 0, 1: 0} and {"bb": 0, "a": 0} are out of order.
        for hex in ["a203000100", "a220000100", "a2626262006161" + "00"] {
            #expect(throws: CBORError.mapKeyOrder, "\(hex)") { try decode(hex, Self.canonical) }
            #expect(try decode(hex).mapEntries?.count == 2)
        }
        #expect(try decode("a4010003002000" + "2100", Self.canonical).mapEntries?.count == 4)
    }

    @Test func refusesTrailingBytesButReadsAPrefix() throws {
        #expect(throws: CBORError.trailingBytes) { try decode("0000") }
        let (value, end) = try CBORReader.decodePrefix(F.hex("ff820102ff"), from: 1, limits: Self.loose)
        #expect(value == .array([.integer(1), .integer(2)]))
        #expect(end == 4)
        #expect(throws: CBORError.truncated) { try CBORReader.decodePrefix([0x01], from: 1, limits: Self.loose) }
        let tight = CBORLimits(maxDepth: 1, maxItems: 16, maxBytes: 3, canonicalMapOrder: false)
        #expect(throws: CBORError.tooLarge) { try CBORReader.decodePrefix(F.hex("4401020304"), from: 0, limits: tight) }
    }

    /// Hostile input is refused after a few bytes of work: a thousand rounds of each take
    /// microseconds apiece, so a second for all of them is a bound of hundreds of times over.
    @Test func hostileInputIsRefusedQuickly() {
        let hostile = [
            "5bffffffffffffffff", "9bffffffffffffffff", "bbffffffffffffffff", String(repeating: "81", count: 4000),
            String(repeating: "ca", count: 4000), String(repeating: "9f", count: 4000), "9a00ffffff",
        ].map { F.hex($0) }
        let start = ContinuousClock.now
        for _ in 0..<1000 {
            for input in hostile { _ = try? CBORReader.decode(input, limits: Self.loose) }
        }
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}
