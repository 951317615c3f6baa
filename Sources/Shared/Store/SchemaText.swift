/// The `CREATE` texts SQLite keeps in `sqlite_schema` are stored as the migrations wrote them,
/// comments and alignment included, and every process tokenizes all of them before its first
/// statement (9 instructions a byte, docs/performance.md). `compact` rewrites them without.
enum SchemaText {
    /// Comments removed; each run of white space one space, none after `(` and `,` or before `)`
    /// and `,`; quoted strings and names untouched. The tokens, and so the schema, stay the same.
    static func compacted(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var pendingSpace = false
        var i = 0
        func emit(_ byte: UInt8) {
            if pendingSpace, let last = out.last, !"(,".utf8.contains(last), !"),".utf8.contains(byte) {
                out.append(UInt8(ascii: " "))
            }
            pendingSpace = false
            out.append(byte)
        }
        while i < bytes.count {
            let byte = bytes[i]
            let next = i + 1 < bytes.count ? bytes[i + 1] : 0
            switch byte {
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
                pendingSpace = !out.isEmpty
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                i += 2
                while i < bytes.count, !(bytes[i] == UInt8(ascii: "*") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/")) {
                    i += 1
                }
                i += 2
                pendingSpace = !out.isEmpty
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                pendingSpace = !out.isEmpty
                i += 1
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
                // A quoted string or name, copied whole (a doubled quote stays inside it).
                let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
                emit(byte)
                i += 1
                while i < bytes.count {
                    out.append(bytes[i])
                    i += 1
                    if bytes[i - 1] == close {
                        guard close != UInt8(ascii: "]"), i < bytes.count, bytes[i] == close else { break }
                        out.append(bytes[i])
                        i += 1
                    }
                }
            default:
                emit(byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `CHECK`s the schema no longer carries, by table: Swift guarantees what they checked.
    static let droppedChecks: [(table: String, check: String)] = [("event_delivery", " CHECK (id = 1)")]

    /// Rewrites every stored text that `compacted` (and `droppedChecks`) change, inside the
    /// caller's transaction. The structure stays exactly as it was, so this is the edit SQLite's
    /// documentation allows through `writable_schema` ("ALTER TABLE", making other kinds of
    /// table schema changes); the migration's own DDL changes the schema cookie, so every other
    /// connection reloads the schema.
    static func compact(_ db: SQLiteDatabase) throws(FrontdoorError) {
        let rows = try db.query("SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL")
        var changes: [(type: String, name: String, sql: String)] = []
        for row in rows {
            guard let type = row.text(0), let name = row.text(1), let sql = row.text(2) else { continue }
            var text = compacted(sql)
            for dropped in droppedChecks where type == "table" && dropped.table == name {
                text = text.replacing(dropped.check, with: "")
            }
            if text != sql { changes.append((type, name, text)) }
        }
        guard !changes.isEmpty else { return }
        try db.run("PRAGMA writable_schema = ON")
        do throws(FrontdoorError) {
            for change in changes {
                try db.run(
                    "UPDATE sqlite_schema SET sql = ? WHERE type = ? AND name = ?",
                    [.text(change.sql), .text(change.type), .text(change.name)])
            }
        } catch {
            _ = try? db.run("PRAGMA writable_schema = OFF")
            throw error
        }
        try db.run("PRAGMA writable_schema = OFF")
        // This connection still holds the schema parsed from the old texts: a later script of the
        // same transaction that alters a table (ADD COLUMN splices its text at the parsed offsets)
        // would write a broken text. RESET makes the next statement parse the new texts.
        try db.run("PRAGMA writable_schema = RESET")
    }
}
