extension JSONValue {
    /// A required string member of the request body, refused with a message naming it.
    public func requiredString(_ name: String, maxBytes: Int = 16 * 1024) throws(FrontdoorError) -> String {
        guard let value = self[name], !value.isNull else { throw .invalidRequest("\(name) is required.") }
        guard let text = value.stringValue else { throw .invalidRequest("\(name) must be a string.") }
        guard !text.isEmpty else { throw .invalidRequest("\(name) must not be empty.") }
        guard text.utf8.count <= maxBytes else { throw .invalidRequest("\(name) is too long.") }
        return text
    }

    public func optionalString(_ name: String, maxBytes: Int = 16 * 1024) throws(FrontdoorError) -> String? {
        guard let value = self[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidRequest("\(name) must be a string.") }
        guard text.utf8.count <= maxBytes else { throw .invalidRequest("\(name) is too long.") }
        return text
    }

    public func optionalBool(_ name: String) throws(FrontdoorError) -> Bool? {
        guard let value = self[name], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw .invalidRequest("\(name) must be true or false.") }
        return flag
    }
}
