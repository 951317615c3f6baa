import FoundationEssentials
@testable import Shared
import Testing

/// Punycode against RFC 3492's own samples, and the domain rules of the address key against an
/// outside oracle: the idna package's UTS #46 and IDNA2008 tables, written once to
/// `Tests/Vectors/idna/` by `scripts/idna-vectors` (its header names the version).
@Suite struct IDNATests {
    /// RFC 3492 section 7.1, (A) to (S): the code points, and the encoding with its mixed-case
    /// annotation (the upper-case letters among the deltas) as the RFC prints it.
    static let rfc3492: [(String, [UInt32], String)] = [
        ("A", [0x0644, 0x064A, 0x0647, 0x0645, 0x0627, 0x0628, 0x062A, 0x0643, 0x0644, 0x0645, 0x0648, 0x0634, 0x0639,
               0x0631, 0x0628, 0x064A, 0x061F], "egbpdaj6bu4bxfgehfvwxn"),
        ("B", [0x4ED6, 0x4EEC, 0x4E3A, 0x4EC0, 0x4E48, 0x4E0D, 0x8BF4, 0x4E2D, 0x6587], "ihqwcrb4cv8a8dqg056pqjye"),
        ("C", [0x4ED6, 0x5011, 0x7232, 0x4EC0, 0x9EBD, 0x4E0D, 0x8AAA, 0x4E2D, 0x6587], "ihqwctvzc91f659drss3x8bo0yb"),
        ("D", [0x0050, 0x0072, 0x006F, 0x010D, 0x0070, 0x0072, 0x006F, 0x0073, 0x0074, 0x011B, 0x006E, 0x0065, 0x006D,
               0x006C, 0x0075, 0x0076, 0x00ED, 0x010D, 0x0065, 0x0073, 0x006B, 0x0079], "Proprostnemluvesky-uyb24dma41a"),
        ("E", [0x05DC, 0x05DE, 0x05D4, 0x05D4, 0x05DD, 0x05E4, 0x05E9, 0x05D5, 0x05D8, 0x05DC, 0x05D0, 0x05DE, 0x05D3,
               0x05D1, 0x05E8, 0x05D9, 0x05DD, 0x05E2, 0x05D1, 0x05E8, 0x05D9, 0x05EA], "4dbcagdahymbxekheh6e0a7fei0b"),
        ("F", [0x092F, 0x0939, 0x0932, 0x094B, 0x0917, 0x0939, 0x093F, 0x0928, 0x094D, 0x0926, 0x0940, 0x0915, 0x094D,
               0x092F, 0x094B, 0x0902, 0x0928, 0x0939, 0x0940, 0x0902, 0x092C, 0x094B, 0x0932, 0x0938, 0x0915, 0x0924,
               0x0947, 0x0939, 0x0948, 0x0902], "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd"),
        ("G", [0x306A, 0x305C, 0x307F, 0x3093, 0x306A, 0x65E5, 0x672C, 0x8A9E, 0x3092, 0x8A71, 0x3057, 0x3066, 0x304F,
               0x308C, 0x306A, 0x3044, 0x306E, 0x304B], "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa"),
        ("H", [0xC138, 0xACC4, 0xC758, 0xBAA8, 0xB4E0, 0xC0AC, 0xB78C, 0xB4E4, 0xC774, 0xD55C, 0xAD6D, 0xC5B4, 0xB97C,
               0xC774, 0xD574, 0xD55C, 0xB2E4, 0xBA74, 0xC5BC, 0xB9C8, 0xB098, 0xC88B, 0xC744, 0xAE4C],
         "989aomsvi5e83db1d2a355cv1e0vak1dwrv93d5xbh15a0dt30a5jpsd879ccm6fea98c"),
        ("I", [0x043F, 0x043E, 0x0447, 0x0435, 0x043C, 0x0443, 0x0436, 0x0435, 0x043E, 0x043D, 0x0438, 0x043D, 0x0435,
               0x0433, 0x043E, 0x0432, 0x043E, 0x0440, 0x044F, 0x0442, 0x043F, 0x043E, 0x0440, 0x0443, 0x0441, 0x0441,
               0x043A, 0x0438], "b1abfaaepdrnnbgefbaDotcwatmq2g4l"),
        ("J", [0x0050, 0x006F, 0x0072, 0x0071, 0x0075, 0x00E9, 0x006E, 0x006F, 0x0070, 0x0075, 0x0065, 0x0064, 0x0065,
               0x006E, 0x0073, 0x0069, 0x006D, 0x0070, 0x006C, 0x0065, 0x006D, 0x0065, 0x006E, 0x0074, 0x0065, 0x0068,
               0x0061, 0x0062, 0x006C, 0x0061, 0x0072, 0x0065, 0x006E, 0x0045, 0x0073, 0x0070, 0x0061, 0x00F1, 0x006F,
               0x006C], "PorqunopuedensimplementehablarenEspaol-fmd56a"),
        ("K", [0x0054, 0x1EA1, 0x0069, 0x0073, 0x0061, 0x006F, 0x0068, 0x1ECD, 0x006B, 0x0068, 0x00F4, 0x006E, 0x0067,
               0x0074, 0x0068, 0x1EC3, 0x0063, 0x0068, 0x1EC9, 0x006E, 0x00F3, 0x0069, 0x0074, 0x0069, 0x1EBF, 0x006E,
               0x0067, 0x0056, 0x0069, 0x1EC7, 0x0074], "TisaohkhngthchnitingVit-kjcr8268qyxafd2f1b9g"),
        ("L", [0x0033, 0x5E74, 0x0042, 0x7D44, 0x91D1, 0x516B, 0x5148, 0x751F], "3B-ww4c5e180e575a65lsy2b"),
        ("M", [0x5B89, 0x5BA4, 0x5948, 0x7F8E, 0x6075, 0x002D, 0x0077, 0x0069, 0x0074, 0x0068, 0x002D, 0x0053, 0x0055,
               0x0050, 0x0045, 0x0052, 0x002D, 0x004D, 0x004F, 0x004E, 0x004B, 0x0045, 0x0059, 0x0053],
         "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"),
        ("N", [0x0048, 0x0065, 0x006C, 0x006C, 0x006F, 0x002D, 0x0041, 0x006E, 0x006F, 0x0074, 0x0068, 0x0065, 0x0072,
               0x002D, 0x0057, 0x0061, 0x0079, 0x002D, 0x305D, 0x308C, 0x305E, 0x308C, 0x306E, 0x5834, 0x6240],
         "Hello-Another-Way--fc4qua05auwb3674vfr0b"),
        ("O", [0x3072, 0x3068, 0x3064, 0x5C4B, 0x6839, 0x306E, 0x4E0B, 0x0032], "2-u9tlzr9756bt3uc0v"),
        ("P", [0x004D, 0x0061, 0x006A, 0x0069, 0x3067, 0x004B, 0x006F, 0x0069, 0x3059, 0x308B, 0x0035, 0x79D2, 0x524D],
         "MajiKoi5-783gue6qz075azm5e"),
        ("Q", [0x30D1, 0x30D5, 0x30A3, 0x30FC, 0x0064, 0x0065, 0x30EB, 0x30F3, 0x30D0], "de-jg4avhby1noc0d"),
        ("R", [0x305D, 0x306E, 0x30B9, 0x30D4, 0x30FC, 0x30C9, 0x3067], "d9juau41awczczp"),
        ("S", [0x002D, 0x003E, 0x0020, 0x0024, 0x0031, 0x002E, 0x0030, 0x0030, 0x0020, 0x003C, 0x002D], "-> $1.00 <--"),
    ]

    @Test func punycodeEncodesAndDecodesRFC3492sSamples() throws {
        for (name, values, printed) in Self.rfc3492 {
            let scalars = values.compactMap(Unicode.Scalar.init)
            // The basic code points keep their case; the deltas are written in lower case.
            let split = printed.lastIndex(of: "-").map { printed.index(after: $0) } ?? printed.startIndex
            let expected = String(printed[..<split]) + printed[split...].lowercased()
            #expect(Punycode.encode(scalars) == expected, "(\(name))")
            #expect(Punycode.decode(printed) == scalars, "(\(name))")
        }
    }

    @Test func punycodeRefusesWhatIsNotPunycode() {
        for bad in ["abc-!", "ü", "a-b-", "99999999999999", "-abc", "zzzzzzzzzzzzz1"] {
            let decoded = Punycode.decode(bad)
            // Whatever decodes must encode back to itself; the rest is refused.
            if let decoded { #expect(Punycode.encode(decoded) == bad, "\(bad)") }
        }
        #expect(Punycode.decode("ü") == nil)
        #expect(Punycode.decode("abc-!") == nil)
        #expect(Punycode.decode("99999999999999") == nil)  // overflow
        #expect(Punycode.encode([]) == "")
    }

    static let directory: String = {
        // #filePath is <root>/Tests/SharedTests/IDNATests.swift.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/Vectors/idna/"
    }()

    static func lines(_ name: String) throws -> [String] {
        let data = try #require(FileManager.default.contents(atPath: directory + name), "cannot read \(name)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    static func scalar(_ hex: Substring) throws -> Unicode.Scalar {
        try #require(UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init), "\(hex)")
    }

    /// The oracle's verdict on each code point: kept as itself, or mapped (to characters that hold
    /// no ASCII and that IDNA2008 allows). Absent: refused, or mapped to something holding ASCII.
    static func oracle() throws -> [UInt32: [Unicode.Scalar]] {
        var verdicts: [UInt32: [Unicode.Scalar]] = [:]
        for line in try lines("scalars.txt") {
            let fields = line.split(separator: " ")
            if fields.first == "=" {
                let bounds = fields[1].split(separator: ".", omittingEmptySubsequences: true)
                for v in try scalar(bounds[0]).value...scalar(bounds[1]).value {
                    verdicts[v] = [try #require(Unicode.Scalar(v))]
                }
            } else {
                verdicts[try scalar(fields[1]).value] = try fields[2...].map(scalar)
            }
        }
        return verdicts
    }

    /// Every code point: a character the domain rules accept is one UTS #46 maps exactly as the key
    /// does; and one they refuse is one UTS #46 refuses, maps to something holding ASCII, or maps
    /// otherwise than by lower-casing (a compatibility form, refused as in the local part), or
    /// one of Cherokee's capitals, which UTS #46 keeps and the key would lower-case.
    @Test func everyCodePointIsMappedAsTheOracleMapsIt() throws {
        let oracle = try Self.oracle()
        #expect(oracle.count > 140_000)
        var compatibility = 0, cherokee = 0
        for v in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let ours = IDNA.mapping(scalar)
            let theirs = oracle[v]
            if let ours {
                #expect(ours == theirs, "U+\(String(v, radix: 16)): ours \(ours), the oracle's \(theirs.map { "\($0)" } ?? "refused")")
                // The key lower-cases whole strings: it must agree with the mapping of each character.
                #expect(Array(String(scalar).lowercased().unicodeScalars) == ours, "U+\(String(v, radix: 16))")
            } else if let theirs {
                let lower = Array(scalar.properties.lowercaseMapping.unicodeScalars)
                if theirs == [scalar] {
                    // Kept by UTS #46, lower-cased by the key: only Cherokee's capitals.
                    #expect(0x13A0...0x13F5 ~= v, "U+\(String(v, radix: 16)) refused, the oracle keeps it")
                    cherokee += 1
                } else {
                    #expect(theirs != lower, "U+\(String(v, radix: 16)) refused, the oracle maps it to \(theirs)")
                    compatibility += 1
                }
            }
        }
        // Fullwidth, circled, mathematical and other compatibility letters.
        #expect(compatibility > 1000)
        #expect(cherokee == 86)
    }

    /// Where the rules and the oracle part on a whole domain, and why: the Bidi Rule (RFC 5893).
    static let bidiOnly: Set<String> = ["٣٣.com", "aשלום.il", "aم.com"]

    @Test func domainsAreKeyedAndJudgedAsTheOracleDoes() throws {
        var checked = 0
        for line in try Self.lines("domains.txt") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let domain = fields[0]
            let normalised = EmailValidation.normalise("x@" + domain, acceptAsTyped: true)
            if fields[1] == "error" || Self.bidiOnly.contains(domain) {
                if Self.bidiOnly.contains(domain) {
                    #expect(fields[2] == "IDNABidiError", "\(domain)")
                    #expect((try? normalised.get()) != nil, "\(domain) is refused only for the Bidi Rule")
                } else {
                    #expect(normalised == .failure(.malformed), "\(domain): the oracle refuses it (\(fields[2]))")
                }
            } else {
                let aLabel = fields[1]
                // The oracle maps what the rules refuse: compatibility forms, ignorables, or to ASCII (rule 3).
                let mapsAway = domain.unicodeScalars.contains { IDNA.mapping($0) == nil }
                if mapsAway {
                    #expect(normalised == .failure(.malformed), "\(domain)")
                } else {
                    let address = try #require(try? normalised.get(), "\(domain) refused, the oracle keys it \(aLabel)")
                    #expect(EmailAddress.matchKey(address) == "x@" + aLabel, "\(domain)")
                    #expect(EmailAddress.matchKey("X@" + domain) == "x@" + aLabel, "\(domain) as typed")
                }
            }
            checked += 1
        }
        #expect(checked > 250)
    }

    @Test func aLookAlikeDomainKeysAsItsOwnALabel() {
        #expect(EmailAddress.matchKey("victim.x@gma\u{131}l.com") == "victim.x@xn--gmal-nza.com")
        #expect(EmailAddress.matchKey("victim.x@xn--gmal-nza.com") == "victim.x@xn--gmal-nza.com")
        #expect(EmailAddress.matchKey("J\u{FC}rgen@B\u{FC}cher.example") == "j\u{FC}rgen@xn--bcher-kva.example")
        #expect(EmailAddress.matchKey("x@stra\u{DF}e.de") == "x@xn--strae-oqa.de")
        #expect(EmailAddress.matchKey("STRASSE@stra\u{DF}e.de") == "strasse@xn--strae-oqa.de")
    }
}
