/// A mail domain as UTS #46 processes it (nontransitional, UseSTD3ASCIIRules, CheckHyphens on
/// non-ASCII labels), for the address key (`asciiKey`) and the address rules (`mapping`,
/// `isValid`).
///
/// UTS #46's mapping table is not carried. A character of a typed domain is accepted only where
/// its lower case is valid (IDNA2008, `IDNAValidity`) and holds no ASCII: a character valid as it
/// stands, or an upper-case letter whose lower case is valid, which UTS #46 (mapping by NFKC case
/// folding) maps there too. What UTS #46 maps otherwise (compatibility forms), ignores or
/// disallows is refused, as is a character whose mapping holds ASCII: rule 3, so no look-alike
/// domain keys as an ASCII one. So is Cherokee, whose UTS #46 form is its capital letters while the
/// key lower-cases. The Bidi Rule (RFC 5893) is not checked: the standard library has no
/// Bidi_Class. `IDNATests` holds all of it against the idna package, for every code point.
enum IDNA {
    /// The domain's key: lower case, NFC, and each non-ASCII label as its A-label (`xn--` and its
    /// Punycode), which no ASCII domain but that same A-label spells. Total, for any text.
    static func asciiKey(_ domain: String) -> String {
        let lowered = EmailAddress.nfc(domain.lowercased())
        let labels = lowered.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false).map { label in
            guard !label.allSatisfy(\.isASCII) else { return String(String.UnicodeScalarView(label)) }
            // Encoding fails only on overflow, past any address's length; such a label keys as itself.
            return Punycode.encode(Array(label)).map { "xn--" + $0 } ?? String(String.UnicodeScalarView(label))
        }
        return labels.joined(separator: ".")
    }

    /// What UTS #46's mapping step makes of one typed character, when that is what the key makes
    /// of it (its lower case) and it holds no ASCII and is valid; nil otherwise. ASCII is itself
    /// here, and judged by the label rules.
    static func mapping(_ scalar: Unicode.Scalar) -> [Unicode.Scalar]? {
        guard !scalar.isASCII else { return [scalar] }
        let properties = scalar.properties
        guard properties.generalCategory != .unassigned else { return nil }
        let mapped = properties.changesWhenLowercased ? Array(properties.lowercaseMapping.unicodeScalars) : [scalar]
        let kept = mapped.allSatisfy { m in
            let validity = IDNAValidity.of(m)
            return !m.isASCII && (validity == .pvalid || validity == .contextO)
        }
        return kept ? mapped : nil
    }

    /// UTS #46 section 4.1's criteria for a domain already lower-cased and in NFC whose every
    /// character has a `mapping`: each non-ASCII label, and each ASCII label that claims to be an
    /// A-label (`xn--`), which must decode to a valid label that encodes back to it; the A-label
    /// form within DNS's lengths.
    static func isValid(_ domain: String) -> Bool {
        var asciiLength = 0
        let labels = domain.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            let scalars = Array(label)
            let aLabel: String
            if scalars.allSatisfy(\.isASCII) {
                let text = String(String.UnicodeScalarView(label)).lowercased()
                if text.hasPrefix("xn--") {
                    guard let decoded = Punycode.decode(String(text.dropFirst(4))), !decoded.allSatisfy(\.isASCII),
                          Punycode.encode(decoded).map({ "xn--" + $0 }) == text,
                          EmailAddress.nfc(String(String.UnicodeScalarView(decoded))).unicodeScalars.elementsEqual(decoded),
                          decoded.allSatisfy({ mapping($0) == [$0] }),
                          isValidULabel(decoded)
                    else { return false }
                }
                aLabel = text
            } else {
                guard isValidULabel(scalars), let encoded = Punycode.encode(scalars) else { return false }
                aLabel = "xn--" + encoded
            }
            guard (1...63).contains(aLabel.utf8.count) else { return false }
            asciiLength += aLabel.utf8.count + (index > 0 ? 1 : 0)
        }
        return asciiLength <= 253
    }

    /// A non-ASCII label's own criteria: no hyphens in its third and fourth places or at either
    /// end, no combining mark first, and RFC 5892 appendix A's context for its CONTEXTO characters.
    private static func isValidULabel(_ label: [Unicode.Scalar]) -> Bool {
        guard let first = label.first, let last = label.last, first != "-", last != "-" else { return false }
        if label.count >= 4 && label[2] == "-" && label[3] == "-" { return false }
        switch first.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return false
        default: break
        }
        // NFC may have composed what was typed: the composed characters are judged too.
        return label.indices.allSatisfy { i in
            switch IDNAValidity.of(label[i]) {
            case .pvalid: true
            case .contextO: contextHolds(label, at: i)
            default: false
            }
        }
    }

    /// RFC 5892 appendix A for a CONTEXTO character. Where a rule names a script, the blocks that
    /// hold that script's valid letters stand for it (the standard library has no Script property).
    private static func contextHolds(_ label: [Unicode.Scalar], at i: Int) -> Bool {
        switch label[i].value {
        case 0x00B7:  // A.3: between two "l"s (Catalan "l·l").
            return i > 0 && i + 1 < label.count && label[i - 1] == "l" && label[i + 1] == "l"
        case 0x0375:  // A.4: before a Greek letter.
            return i + 1 < label.count && isGreek(label[i + 1].value)
        case 0x05F3, 0x05F4:  // A.5, A.6: after a Hebrew letter.
            return i > 0 && (0x0591...0x05F4 ~= label[i - 1].value || 0xFB1D...0xFB4F ~= label[i - 1].value)
        case 0x30FB:  // A.7: in a label with Hiragana, Katakana or Han.
            return label.contains { $0.value != 0x30FB && isJapanese($0.value) }
        case 0x0660...0x0669:  // A.8: not with Extended Arabic-Indic digits.
            return !label.contains { 0x06F0...0x06F9 ~= $0.value }
        case 0x06F0...0x06F9:  // A.9: not with Arabic-Indic digits.
            return !label.contains { 0x0660...0x0669 ~= $0.value }
        default:
            return false
        }
    }

    /// Greek and Coptic less its Coptic letters, and Greek Extended.
    private static func isGreek(_ v: UInt32) -> Bool {
        (0x0370...0x03FF ~= v && !(0x03E2...0x03EF ~= v)) || 0x1F00...0x1FFF ~= v
    }

    /// Hiragana, Katakana and their extensions less the marks they share with other scripts
    /// (U+309B, U+309C, U+30A0, U+30FB, U+30FC), and the Han ideographs.
    private static func isJapanese(_ v: UInt32) -> Bool {
        v == 0x3005 || v == 0x3007 || 0x3041...0x3096 ~= v || 0x309D...0x309F ~= v || 0x30A1...0x30FA ~= v
            || 0x30FD...0x30FF ~= v || 0x31F0...0x31FF ~= v || 0x3400...0x4DBF ~= v || 0x4E00...0x9FFF ~= v
            || 0x1B000...0x1B16F ~= v || 0x20000...0x3FFFF ~= v
    }
}
