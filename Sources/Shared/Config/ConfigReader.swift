/// Reads one JSON object of the configuration, remembering where it is so every error names its
/// key, and refusing members nobody asked for (a misspelt key must not be silently ignored).
struct ConfigReader {
    let path: String
    let members: [(String, JSONValue)]
    /// The names asked for; an array, as sections have a dozen keys at most and a Set<String>
    /// costs a process ~100 K instructions of run-time type set-up on first use.
    private(set) var seen: [String] = []

    init(_ value: JSONValue, path: String) throws(ConfigError) {
        guard let members = value.objectValue else { throw ConfigError(key: path.isEmpty ? "(top level)" : path, reason: "must be an object") }
        self.path = path
        self.members = members
    }

    func key(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    mutating func value(_ name: String) -> JSONValue? {
        seen.append(name)
        // JSONValue is ExpressibleByNilLiteral: a bare `nil` here would be `.null`, not absent.
        for (key, value) in members where key == name { return value.isNull ? Optional<JSONValue>.none : value }
        return nil
    }

    /// Whether `name` is given; counts as asked for.
    mutating func has(_ name: String) -> Bool {
        // Not `!= nil`: JSONValue is ExpressibleByNilLiteral, so that would compare with `.null`.
        guard case .some = value(name) else { return false }
        return true
    }

    mutating func string(_ name: String) throws(ConfigError) -> String? {
        guard let v = value(name) else { return nil }
        guard let s = v.stringValue, !s.isEmpty else { throw ConfigError(key: key(name), reason: "must be a non-empty string") }
        return s
    }

    mutating func requiredString(_ name: String) throws(ConfigError) -> String {
        guard let s = try string(name) else { throw ConfigError(key: key(name), reason: "is required") }
        return s
    }

    mutating func int(_ name: String, default fallback: Int64, range: ClosedRange<Int64>) throws(ConfigError) -> Int64 {
        guard let v = value(name) else { return fallback }
        guard let n = v.int64Value, range.contains(n) else {
            throw ConfigError(key: key(name), reason: "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    mutating func seconds(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard let v = value(name) else { return fallback }
        guard let n = v.numberValue, range.contains(n) else {
            throw ConfigError(key: key(name), reason: "must be a number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    mutating func bool(_ name: String, default fallback: Bool) throws(ConfigError) -> Bool {
        guard let v = value(name) else { return fallback }
        guard let b = v.boolValue else { throw ConfigError(key: key(name), reason: "must be true or false") }
        return b
    }

    mutating func stringList(_ name: String) throws(ConfigError) -> [String] {
        guard let v = value(name) else { throw ConfigError(key: key(name), reason: "is required") }
        guard let array = v.arrayValue, !array.isEmpty else {
            throw ConfigError(key: key(name), reason: "must be a non-empty list of strings")
        }
        var out: [String] = []
        for (i, element) in array.enumerated() {
            guard let s = element.stringValue, !s.isEmpty else {
                throw ConfigError(key: "\(key(name))[\(i)]", reason: "must be a non-empty string")
            }
            out.append(s)
        }
        return out
    }

    /// An outbound URL: TLS, or plain only to loopback (rule 8 of DESIGN.md).
    /// A list of non-empty strings that may be empty (`[]`).
    mutating func optionalStringList(_ name: String) throws(ConfigError) -> [String] {
        guard let v = value(name) else { return [] }
        guard let array = v.arrayValue else { throw ConfigError(key: key(name), reason: "must be a list of strings") }
        var out: [String] = []
        for (i, element) in array.enumerated() {
            guard let s = element.stringValue, !s.isEmpty else {
                throw ConfigError(key: "\(key(name))[\(i)]", reason: "must be a non-empty string")
            }
            out.append(s)
        }
        return out
    }

    mutating func url(_ name: String, default fallback: String? = nil) throws(ConfigError) -> String {
        guard let url = try string(name) ?? fallback else { throw ConfigError(key: key(name), reason: "is required") }
        guard OutboundURL.classify(url) != nil else {
            throw ConfigError(key: key(name), reason: "must be https:// (or http:// to a loopback address)")
        }
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// Counts `name` as known without reading it (a section another program reads).
    mutating func skip(_ name: String) {
        seen.append(name)
    }

    mutating func section(_ name: String) throws(ConfigError) -> ConfigReader? {
        guard let v = value(name) else { return nil }
        return try ConfigReader(v, path: key(name))
    }

    /// A secret given inline as `name` or in a file as `nameFile`, never both. A file's key and
    /// path are added to `files`, so the self-check can look at its permissions.
    mutating func secret(_ name: String, files: inout [(key: String, path: String)]) throws(ConfigError) -> String? {
        let inline = try string(name)
        let file = try string(name + "File")
        switch (inline, file) {
        case (nil, nil): return nil
        case (.some, .some): throw ConfigError(key: key(name), reason: "give either \(name) or \(name)File, not both")
        case (.some(let s), nil): return s
        case (nil, .some(let path)):
            files.append((key(name + "File"), path))
            guard let bytes = FileIO.readFile(path, limit: 64 * 1024) else {
                throw ConfigError(key: key(name + "File"), reason: "cannot be read")
            }
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
            guard !text.isEmpty else { throw ConfigError(key: key(name + "File"), reason: "is empty") }
            return text
        }
    }

    func rejectUnknown() throws(ConfigError) {
        for (name, _) in members where !seen.contains(name) {
            throw ConfigError(key: key(name), reason: "is not a known setting")
        }
    }
}

extension StringProtocol {
    /// Without Unicode white space (and newlines) at either end.
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
