/// Text a person gives about themselves (a name, what their phone is called): shown back to them
/// and to the app, so it holds nothing that breaks a line, hides text or reorders it on screen.
public enum DisplayText {
    /// The member `name` of `body`, trimmed; nil when absent or blank. `invalid_request` when it is
    /// not a string, longer than `maxBytes` of UTF-8, or holds a character `isAllowed` refuses.
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
