/// Why a document was refused; the position is a byte offset, for tests and stderr only.
public enum JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case syntax(at: Int)
    /// The name is for tests; `description`, which is what reaches a log, leaves it out.
    case duplicateMember(String)
    case tooDeep
    case invalidUTF8

    /// The kind of error, never the input: member names are the sender's choice (any length, bidi
    /// controls, an address).
    public var description: String {
        switch self {
        case .syntax(let at): "syntax error at byte \(at)"
        case .duplicateMember: "duplicate member name"
        case .tooDeep: "nested too deeply"
        case .invalidUTF8: "invalid UTF-8"
        }
    }
}

/// A strict RFC 8259 parser: no comments, no trailing commas, no lone surrogates, no duplicate
/// member names (RFC 7519 section 4 lets a JWT parser refuse them, and we do), bounded depth.
/// It is small on purpose: every request pays the first use of whatever parses its JSON.
public struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int
    /// Top-level members whose values are only checked for syntax (`parse(_:skimming:)`).
    private let skimmed: [String]
    /// Members up to which an object's names are compared one by one.
    private static let linearSearchLimit = 16

    public static func parse(_ bytes: [UInt8], maxDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        try parse(bytes, maxDepth: maxDepth, skimming: [])
    }

    /// The document, except that the values of the top-level members named in `skimming` are
    /// checked for syntax and depth only (no duplicate names, no UTF-8 inside their strings) and
    /// come back as `null`: for a reader that only needs their names (the session check's config,
    /// `Config.Scope.sessionCheck`), so their strings are neither copied nor validated.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 32, skimming: [String]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth, skimmed: skimming)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw .syntax(at: parser.index) }
        return value
    }

    public static func parse(_ text: String, maxDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    private init(bytes: [UInt8], maxDepth: Int, skimmed: [String]) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.skimmed = skimmed
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func expect(_ literal: StaticString) throws(JSONParseError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw .syntax(at: start) }
        let matches = literal.withUTF8Buffer { buffer in
            buffer.indices.allSatisfy { bytes[start + $0] == buffer[$0] }
        }
        guard matches else { throw .syntax(at: start) }
        index += count
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = peek() else { throw .syntax(at: index) }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw .syntax(at: index)
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw .tooDeep }
        index += 1
        var members: [(String, JSONValue)] = []
        // Duplicates are found by a linear search while the object is small, as every object
        // frontdoor reads is: a process's first Set<String> costs ~100 K instructions of run-time
        // type set-up. A large object gets a set, so a hostile body stays linear.
        var names: Set<String>?
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw .syntax(at: index) }
            let name = try parseString()
            if members.count < Self.linearSearchLimit {
                for (seen, _) in members where seen == name { throw .duplicateMember(name) }
            } else {
                var set = names.take() ?? Set(members.map { $0.0 })
                guard set.insert(name).inserted else { throw .duplicateMember(name) }
                names = set
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw .syntax(at: index) }
            index += 1
            skipWhitespace()
            if depth == 1 && skimmed.contains(name) {
                try skipValue(depth: depth)
                members.append((name, .null))
            } else {
                members.append((name, try parseValue(depth: depth)))
            }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw .syntax(at: index)
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw .tooDeep }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw .syntax(at: index)
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        try scanNumber()
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw .syntax(at: start) }
        return value
    }

    /// Past a number's bytes, checking its form.
    private mutating func scanNumber() throws(JSONParseError) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw .syntax(at: index) }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let d = peek(), isDigit(d) { index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let d = peek(), isDigit(d) else { throw .syntax(at: index) }
            while let d = peek(), isDigit(d) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let d = peek(), isDigit(d) else { throw .syntax(at: index) }
            while let d = peek(), isDigit(d) { index += 1 }
        }
    }

    // MARK: - Skimming (`parse(_:skimming:)`)

    private mutating func skipValue(depth: Int) throws(JSONParseError) {
        guard let byte = peek() else { throw .syntax(at: index) }
        switch byte {
        case UInt8(ascii: "{"): try skipContainer(close: UInt8(ascii: "}"), depth: depth + 1)
        case UInt8(ascii: "["): try skipContainer(close: UInt8(ascii: "]"), depth: depth + 1)
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
        default: throw .syntax(at: index)
        }
    }

    /// An object (`close` is `}`: each member a string, a colon and a value) or an array.
    private mutating func skipContainer(close: UInt8, depth: Int) throws(JSONParseError) {
        guard depth <= maxDepth else { throw .tooDeep }
        index += 1
        skipWhitespace()
        if peek() == close {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            if close == UInt8(ascii: "}") {
                guard peek() == UInt8(ascii: "\"") else { throw .syntax(at: index) }
                try skipString()
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { throw .syntax(at: index) }
                index += 1
                skipWhitespace()
            }
            try skipValue(depth: depth)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case close: index += 1; return
            default: throw .syntax(at: index)
            }
        }
    }

    /// Past a string: its escapes' form checked, no control characters, nothing decoded.
    private mutating func skipString() throws(JSONParseError) {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                guard let escape = peek() else { throw .syntax(at: index) }
                if escape == UInt8(ascii: "u") {
                    index += 1
                    _ = try parseHex4()
                } else if "\"\\/bfnrt".utf8.contains(escape) {
                    index += 1
                } else {
                    throw .syntax(at: index)
                }
            case 0..<0x20: throw .syntax(at: index - 1)
            default: continue
            }
        }
        throw .syntax(at: index)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // The common case, a string without escapes, is one validated copy of its bytes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard let text = String(validating: bytes[start..<index], as: UTF8.self) else { throw .invalidUTF8 }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw .syntax(at: index) }
            index += 1
        }
        guard index < bytes.count else { throw .syntax(at: index) }
        return try parseEscapedString(from: start)
    }

    /// A string with escapes: decoded into UTF-8 bytes, validated once at the end.
    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard let text = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
                index += 1
                return text
            }
            if byte < 0x20 { throw .syntax(at: index) }
            index += 1
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                continue
            }
            guard let escape = peek() else { throw .syntax(at: index) }
            index += 1
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var value = try parseHex4()
                if (0xD800...0xDBFF).contains(value) {
                    guard peek() == UInt8(ascii: "\\") else { throw .syntax(at: index) }
                    index += 1
                    guard peek() == UInt8(ascii: "u") else { throw .syntax(at: index) }
                    index += 1
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw .syntax(at: index) }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value), let encoded = UTF8.encode(scalar) else {
                    throw .syntax(at: index)
                }
                out.append(contentsOf: encoded)
            default:
                throw .syntax(at: index - 1)
            }
        }
        throw .syntax(at: index)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw .syntax(at: index) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw .syntax(at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
