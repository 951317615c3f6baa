/// The few places where one statement text cannot serve both engines, bridged by rewriting it for
/// PostgreSQL just before it is sent; SQLite gets the text as written. Everything else the
/// statements use is common to both (`ON CONFLICT … DO NOTHING / DO UPDATE`, `RETURNING`, row
/// values, `coalesce`, `CASE`, `LIMIT` in a subquery).
///
/// - `?` placeholders become `$1`, `$2`, … in order (outside quoted strings, names and comments).
/// - `max(a, b)` and `min(a, b)`, SQLite's scalar forms, become `greatest` and `least`; the
///   one-argument aggregates stay.
///
/// What is not bridged is kept out of shared SQL: `INSERT OR IGNORE` / `UPDATE OR IGNORE` (write
/// `ON CONFLICT DO NOTHING`), `rowid`, `sqlite_schema`, PRAGMAs and SQLite's string and blob
/// functions live only on the SQLite side of `Database` and in its migrations. A comparison's
/// truth used as a number (`head = NOT EXISTS (…)`, `AND ?` on an integer) is written as
/// `CASE WHEN … THEN 1 ELSE 0 END` or `? = 1`, which both take; a truth read as a column comes
/// back from PostgreSQL as 1 or 0, as SQLite gives it.
enum SQLDialect {
    /// The statement as PostgreSQL takes it, and how many placeholders it has.
    static func postgres(_ sql: String) -> (text: String, parameters: Int) {
        let bytes = Array(sql.utf8)
        // Nothing to rewrite in some statements: give the text back without building a new one.
        guard bytes.contains(UInt8(ascii: "?")) || containsScalarMinMax(bytes) else { return (sql, 0) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var parameter = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let end = quotedEnd(bytes, from: i)
                out.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                var end = i
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                out.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "?"):
                parameter += 1
                out.append(UInt8(ascii: "$"))
                out.append(contentsOf: Array(String(parameter).utf8))
                i += 1
            default:
                if let replacement = scalarMinMax(bytes, at: i) {
                    out.append(contentsOf: Array(replacement.utf8))
                    i += 3
                } else {
                    out.append(byte)
                    i += 1
                }
            }
        }
        return (String(decoding: out, as: UTF8.self), parameter)
    }

    /// The index just past the quoted string or name that starts at `start` (a doubled quote
    /// stays inside it); the end of the text when it never closes.
    private static func quotedEnd(_ bytes: [UInt8], from start: Int) -> Int {
        let quote = bytes[start]
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == quote {
                if i + 1 < bytes.count && bytes[i + 1] == quote {
                    i += 2
                    continue
                }
                return i + 1
            }
            i += 1
        }
        return bytes.count
    }

    private static func containsScalarMinMax(_ bytes: [UInt8]) -> Bool {
        var i = 0
        while i + 3 < bytes.count {
            if scalarMinMax(bytes, at: i) != nil { return true }
            i += 1
        }
        return false
    }

    /// `greatest` or `least` when `max(` or `min(` (any case, not part of a longer name) starts at
    /// `i` and its parentheses hold a comma at their own depth; nil otherwise.
    private static func scalarMinMax(_ bytes: [UInt8], at i: Int) -> String? {
        // Byte by byte, without building anything: this runs at every byte of every statement.
        guard i + 3 < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "m") else { return nil }
        let second = bytes[i + 1] | 0x20
        let third = bytes[i + 2] | 0x20
        let replacement: String
        if second == UInt8(ascii: "a") && third == UInt8(ascii: "x") {
            replacement = "greatest"
        } else if second == UInt8(ascii: "i") && third == UInt8(ascii: "n") {
            replacement = "least"
        } else {
            return nil
        }
        if i > 0 && isNameByte(bytes[i - 1]) { return nil }
        var open = i + 3
        while open < bytes.count && (bytes[open] == 0x20 || bytes[open] == 0x0A || bytes[open] == 0x09) { open += 1 }
        guard open < bytes.count, bytes[open] == UInt8(ascii: "(") else { return nil }
        var depth = 0
        var j = open
        while j < bytes.count {
            switch bytes[j] {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                j = quotedEnd(bytes, from: j)
                continue
            case UInt8(ascii: "("):
                depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return nil }
            case UInt8(ascii: ",") where depth == 1:
                return replacement
            default:
                break
            }
            j += 1
        }
        return nil
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) || c == UInt8(ascii: "_")
            || c == UInt8(ascii: ".") || c >= 0x80
    }
}
