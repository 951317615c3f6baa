extension JSONValue {
    /// Compact JSON text. Non-finite numbers cannot occur (the parser and our builders refuse them).
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n):
            if n.rounded(.towardZero) == n, abs(n) < 1e15 {
                out += String(Int64(n))
            } else {
                out += "\(n)"
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (name, value)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(name, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // Most strings (ids, tokens, dates) need no escape and are copied whole: appending
        // scalar by scalar cost a sign-in's answer ~50 K instructions.
        if !s.utf8.contains(where: needsEscape) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{00}"..."\u{1F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Whether a UTF-8 byte may belong to a scalar `writeString` escapes: `"`, `\`, controls, and
    /// the lead byte of U+2028 and U+2029 (0xE2, so other scalars starting with it take the slow path too).
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte == 0xE2
    }
}
