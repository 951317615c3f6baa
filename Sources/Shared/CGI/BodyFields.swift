extension JSONValue {
    /// A required string member of the request body, refused with a message naming it.
    /// U+0000 is refused (400): PostgreSQL's text cannot hold it, so it would reach the store as a
    /// 500 there and be stored on SQLite. Only a value that is never stored or searched as text
    /// (a password, which is hashed), or one a stricter check refuses it from before it is used
    /// (an address to register, `EmailValidation`), passes `mayHoldNUL`.
    public func requiredString(_ name: String, maxBytes: Int = 16 * 1024, mayHoldNUL: Bool = false)
        throws(FrontdoorError) -> String
    {
        guard let value = self[name], !value.isNull else { throw .invalidRequest("\(name) is required.") }
        guard let text = value.stringValue else { throw .invalidRequest("\(name) must be a string.") }
        guard !text.isEmpty else { throw .invalidRequest("\(name) must not be empty.") }
        guard text.utf8.count <= maxBytes else { throw .invalidRequest("\(name) is too long.") }
        guard mayHoldNUL || !text.utf8.contains(0) else { throw .invalidRequest("\(name) must not hold U+0000.") }
        return text
    }

    public func optionalString(_ name: String, maxBytes: Int = 16 * 1024, mayHoldNUL: Bool = false)
        throws(FrontdoorError) -> String?
    {
        guard let value = self[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidRequest("\(name) must be a string.") }
        guard text.utf8.count <= maxBytes else { throw .invalidRequest("\(name) is too long.") }
        guard mayHoldNUL || !text.utf8.contains(0) else { throw .invalidRequest("\(name) must not hold U+0000.") }
        return text
    }

    public func optionalBool(_ name: String) throws(FrontdoorError) -> Bool? {
        guard let value = self[name], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw .invalidRequest("\(name) must be true or false.") }
        return flag
    }
}
