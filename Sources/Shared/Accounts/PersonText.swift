/// Short text a person (or their phone) gives us to keep and show back: a name, a device's name.
/// Spaces inside are kept, white space at either end is trimmed, and control characters (C0, DEL,
/// C1, Unicode format characters, line and paragraph separators, tabs and other white space) are
/// refused: they would only ever be mistakes or tricks in a list the person reads.
public enum PersonText {
    /// The member `name` of `body`: nil when absent, null or blank; `invalid_request` when it is
    /// not a string, longer than `maxBytes` of UTF-8, or holds a control character.
    public static func optional(_ body: JSONValue, _ name: String, maxBytes: Int) throws(FrontdoorError) -> String? {
        guard let text = try body.optionalString(name, maxBytes: maxBytes)?.trimmingWhitespace(), !text.isEmpty else {
            return nil
        }
        guard text.unicodeScalars.allSatisfy({ $0 == " " || !EmailValidation.isControlOrSpace($0) }) else {
            throw .invalidRequest("\(name) must not contain control characters.")
        }
        return text
    }

    /// `deviceName` of a sign-in body (DESIGN.md): at most 64 bytes, kept on that session only.
    public static func deviceName(_ body: JSONValue) throws(FrontdoorError) -> String? {
        try optional(body, "deviceName", maxBytes: 64)
    }
}
