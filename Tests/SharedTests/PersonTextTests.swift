@testable import Shared
import Testing

/// Issue 19, Info: names and device names that look blank, hold what Unicode has not assigned,
/// or pile marks on a letter are refused; the joiners and selectors that scripts and emoji need
/// are kept.
@Suite struct PersonTextTests {
    /// A scalar Swift's literals refuse (the noncharacters).
    static func scalar(_ v: UInt32) -> String { Unicode.Scalar(v).map { String($0) } ?? "" }

    static func marks(_ count: Int, _ mark: Unicode.Scalar = "\u{301}") -> String {
        String(String.UnicodeScalarView(repeatElement(mark, count: count)))
    }

    @Test(arguments: [
        "\u{3164}", "Ann\u{3164}", "\u{115F}", "\u{1160}x", "\u{FFA0}", "\u{2800}", "Ann\u{2800}Lee", "\u{2800}\u{2800}",
        "Ann" + scalar(0xFDD0), "Ann" + scalar(0xFFFF), "Ann" + scalar(0x10FFFF), "Ann\u{378}", "Ann\u{E0041}\u{E0042}", "Ann\u{34F}e", "\u{200D}",
        "\u{200C}\u{200D}", "\u{FE0F}", "Ann \u{FE0F}", "\u{2764}\u{FE0F}\u{FE0F}", "\u{17B4}", "Ann\u{2064}",
        "e" + marks(80), "e" + marks(5, "\u{20DD}"), "e\u{301}\u{302}\u{303}\u{304}\u{305}", "\u{1EC7}\u{301}\u{302}\u{303}",
    ])
    func blankLookingUnassignedOrPiledTextIsRefused(_ text: String) {
        #expect(!PersonText.isAcceptable(text))
        #expect(throws: FrontdoorError.self) { try PersonText.check(text, name: "name") }
    }

    @Test(arguments: [
        "Ada's iPhone", "\u{0645}\u{06CC}\u{200C}\u{0634}\u{0648}\u{062F}", "\u{1F469}\u{200D}\u{1F4BB}",
        "Ada \u{2764}\u{FE0F}", "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}", "1\u{FE0F}\u{20E3}", "\u{845B}\u{E0100}\u{57CE}",
        "Nguy\u{1EC5}n Th\u{1ECB} \u{C1}nh", "Nguye\u{302}\u{303}n", "\u{E17}\u{E34}\u{E1E}\u{E22}\u{E4C}",
        "\u{E17}\u{E31}\u{E49}\u{E07}", "\u{92A}\u{94D}\u{930}\u{93F}\u{92F}\u{902}\u{915}\u{93E}",
        "\u{1021}\u{1031}\u{102C}\u{1004}\u{103A}\u{1006}\u{1014}\u{103A}\u{1038}", "\u{F56}\u{F66}\u{F9F}\u{F53}",
        "\u{5E9}\u{5C1}\u{5B8}\u{5DC}\u{5D5}\u{5B9}\u{5DD}", "\u{AE40}\u{BBFC}\u{C900}", "e" + marks(4),
        "\u{1820}\u{180B}", "\u{E000}",
    ])
    func namesOfEveryScriptAndEmojiAreKept(_ text: String) {
        #expect(PersonText.isAcceptable(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    /// Every scalar alone: what is refused on its own is exactly what `isAllowed` refuses, what
    /// draws nothing, and what only varies or marks another character.
    @Test func everyScalarAloneIsJudgedByTheRules() {
        for v in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let properties = scalar.properties
            let shows = scalar != " " && !properties.isDefaultIgnorableCodePoint
            let expected = PersonText.isAllowed(scalar) && shows && !PersonText.isVariationSelector(scalar)
            if PersonText.isAcceptable(String(scalar)) != expected {
                Issue.record("U+\(String(v, radix: 16))")
            }
            if PersonText.isAllowed(scalar) {
                #expect(properties.generalCategory != .unassigned && properties.generalCategory != .format
                    || v == 0x200C || v == 0x200D, "U+\(String(v, radix: 16))")
                #expect(!properties.isDefaultIgnorableCodePoint || v == 0x200C || v == 0x200D
                    || PersonText.isVariationSelector(scalar), "U+\(String(v, radix: 16))")
                #expect(!properties.isNoncharacterCodePoint && v != 0x2800, "U+\(String(v, radix: 16))")
            }
        }
    }
}
