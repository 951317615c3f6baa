/// IDNA2008's verdict on one code point (RFC 5892 section 3), computed from the standard library's
/// Unicode properties, so no table ships with the programs. `IDNATests` holds it against
/// the idna package's tables for every code point.
enum IDNAValidity: Equatable {
    case pvalid
    /// Valid only where RFC 5892 appendix A's rule for it holds (`IDNA.contextHolds`).
    case contextO
    case contextJ
    case disallowed
    case unassigned

    /// RFC 5892 section 3's rules, in their order.
    static func of(_ scalar: Unicode.Scalar) -> IDNAValidity {
        let v = scalar.value
        if let exception = exception(v) { return exception }
        let properties = scalar.properties
        if properties.generalCategory == .unassigned && !properties.isNoncharacterCodePoint { return .unassigned }
        if scalar.isASCII {
            let lower = v >= 0x61 && v <= 0x7A, digit = v >= 0x30 && v <= 0x39
            return lower || digit || v == 0x2D ? .pvalid : .disallowed
        }
        if v == 0x200C || v == 0x200D { return .contextJ }
        if properties.changesWhenNFKCCaseFolded { return .disallowed }
        if properties.isDefaultIgnorableCodePoint || properties.isWhitespace || properties.isNoncharacterCodePoint {
            return .disallowed
        }
        if ignorableBlocks.contains(where: { $0.contains(v) }) { return .disallowed }
        if oldHangulJamo.contains(where: { $0.contains(v) }) { return .disallowed }
        switch properties.generalCategory {
        case .lowercaseLetter, .uppercaseLetter, .otherLetter, .decimalNumber, .modifierLetter, .nonspacingMark,
            .spacingMark:
            return .pvalid
        default:
            return .disallowed
        }
    }

    /// Section 2.6, Exceptions (F).
    private static func exception(_ v: UInt32) -> IDNAValidity? {
        switch v {
        case 0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007: .pvalid
        case 0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB, 0x0660...0x0669, 0x06F0...0x06F9: .contextO
        case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031...0x3035, 0x303B: .disallowed
        default: nil
        }
    }

    /// Section 2.4, IgnorableBlocks (D): Combining Diacritical Marks for Symbols, Musical Symbols,
    /// Ancient Greek Musical Notation.
    private static let ignorableBlocks: [ClosedRange<UInt32>] = [0x20D0...0x20FF, 0x1D100...0x1D1FF, 0x1D200...0x1D24F]

    /// Section 2.9, OldHangulJamo (I): Hangul_Syllable_Type L, V and T, which the standard library
    /// does not expose (Unicode's HangulSyllableType.txt).
    private static let oldHangulJamo: [ClosedRange<UInt32>] = [
        0x1100...0x11FF, 0xA960...0xA97C, 0xD7B0...0xD7C6, 0xD7CB...0xD7FB,
    ]
}
