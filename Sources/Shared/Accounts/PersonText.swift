/// Short text a person (or their phone) gives us to keep and show back: a name, a device's name.
/// Spaces inside are kept, white space at either end is trimmed, and what could break a line,
/// hide text or reorder it on screen is refused (`isAllowed`): it would only ever be a mistake or
/// a trick in a list the person reads.
public enum PersonText {
    /// The member `name` of `body`: nil when absent, null or blank; `invalid_request` when it is
    /// not a string, longer than `maxBytes` of UTF-8, or holds a control character.
    public static func optional(_ body: JSONValue, _ name: String, maxBytes: Int) throws(FrontdoorError) -> String? {
        guard let text = try body.optionalString(name, maxBytes: maxBytes)?.trimmingWhitespace(), !text.isEmpty else {
            return nil
        }
        try check(text, name: name)
        return text
    }

    /// `invalid_request` naming the member when `text` holds a character `isAllowed` refuses.
    public static func check(_ text: String, name: String) throws(FrontdoorError) {
        guard text.unicodeScalars.allSatisfy(isAllowed) else {
            throw .invalidRequest("\(name) must not contain control characters.")
        }
    }

    /// `deviceName` of a sign-in body (DESIGN.md): at most 64 bytes, kept on that session only.
    public static func deviceName(_ body: JSONValue) throws(FrontdoorError) -> String? {
        try optional(body, "deviceName", maxBytes: 64)
    }

    /// Refused: C0 and C1 controls and DEL, every white space but the plain space (tabs, line and
    /// paragraph separators, no-break spaces), and format characters (bidi overrides and isolates
    /// such as U+202E, the byte order mark, invisible operators) except the zero-width joiner and
    /// non-joiner, which Persian names and emoji sequences need.
    public static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x80 { return v >= 0x20 && v != 0x7F }
        if v <= 0x9F { return false }
        if v == 0x200C || v == 0x200D { return true }
        let properties = scalar.properties
        return !properties.isWhitespace && properties.generalCategory != .format
            && properties.generalCategory != .control && v != 0x2028 && v != 0x2029
    }
}
