@_spi(_Unicode) import Swift

/// Short text a person (or their phone) gives us to keep and show back: a name, a device's name.
/// Spaces inside are kept, white space at either end is trimmed, and what could break a line,
/// hide text, reorder it on screen, look blank or spill over the lines around it is refused
/// (`isAcceptable`): it would only ever be a mistake or a trick in a list the person reads.
public enum PersonText {
    /// The member `name` of `body`: nil when absent, null or blank; `invalid_request` when it is
    /// not a string, longer than `maxBytes` of UTF-8, or not `isAcceptable`.
    public static func optional(_ body: JSONValue, _ name: String, maxBytes: Int) throws(FrontdoorError) -> String? {
        guard let text = try body.optionalString(name, maxBytes: maxBytes)?.trimmingWhitespace(), !text.isEmpty else {
            return nil
        }
        try check(text, name: name)
        return text
    }

    /// `invalid_request` naming the member when `text` is not `isAcceptable`.
    public static func check(_ text: String, name: String) throws(FrontdoorError) {
        guard isAcceptable(text) else {
            throw .invalidRequest("\(name) must not contain control, invisible or unassigned characters.")
        }
    }

    /// `deviceName` of a sign-in body (DESIGN.md): at most 64 bytes, kept on that session only.
    public static func deviceName(_ body: JSONValue) throws(FrontdoorError) -> String? {
        try optional(body, "deviceName", maxBytes: 64)
    }

    /// Every character `isAllowed`; a variation selector only right after the character it varies
    /// (an emoji's U+FE0F, an ideograph's variant), never alone or doubled; at least one character
    /// that shows (so the joiners alone are refused); and at most `maxMarksInARow` nonspacing marks
    /// on any one character, counted in NFD so a precomposed "ệ" counts its two.
    public static func isAcceptable(_ text: String) -> Bool {
        // Printable ASCII, as most names are: only a text of spaces alone would be refused.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.contains { $0 != 0x20 } }
        var previous: Unicode.Scalar?
        var shows = false
        for scalar in text.unicodeScalars {
            guard isAllowed(scalar) else { return false }
            if isVariationSelector(scalar) {
                guard let base = previous, base != " ", !base.properties.isDefaultIgnorableCodePoint else { return false }
            }
            shows = shows || (scalar != " " && !scalar.properties.isDefaultIgnorableCodePoint)
            previous = scalar
        }
        guard shows else { return false }
        var marks = 0
        for scalar in text._nfd {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark:
                marks += 1
                if marks > maxMarksInARow { return false }
            default:
                marks = 0
            }
        }
        return true
    }

    /// UTS #39 section 5.4's cap ("forbid sequences of more than 4 nonspacing marks"): text in any
    /// script stays within it (Vietnamese, the most marked Latin, puts 2 on a letter; a Thai
    /// consonant carries a vowel and a tone mark), and a pile of marks that spills over the lines
    /// above and below does not.
    public static let maxMarksInARow = 4

    /// Refused: C0 and C1 controls and DEL, every white space but the plain space (tabs, line and
    /// paragraph separators, no-break spaces), format characters (bidi overrides and isolates
    /// such as U+202E, the byte order mark, invisible operators), every other default-ignorable
    /// code point (it draws nothing: the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the
    /// combining grapheme joiner, tag characters), U+2800 BRAILLE PATTERN BLANK, noncharacters and
    /// unassigned code points. Kept: the zero-width joiner and non-joiner, which Persian names and
    /// emoji sequences need, and the variation selectors, which emoji and ideographs need.
    public static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x80 { return v >= 0x20 && v != 0x7F }
        if v <= 0x9F { return false }
        if v == 0x200C || v == 0x200D || isVariationSelector(scalar) { return true }
        if v == 0x2800 { return false }
        let properties = scalar.properties
        return !properties.isWhitespace && properties.generalCategory != .format
            && properties.generalCategory != .control && v != 0x2028 && v != 0x2029
            && !properties.isDefaultIgnorableCodePoint && properties.generalCategory != .unassigned
    }

    /// U+FE00–FE0F, U+E0100–E01EF, and Mongolian's free variation selectors U+180B–180D, U+180F.
    static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return 0xFE00...0xFE0F ~= v || 0xE0100...0xE01EF ~= v || 0x180B...0x180D ~= v || v == 0x180F
    }
}
