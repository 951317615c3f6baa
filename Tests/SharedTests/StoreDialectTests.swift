import DevSupport
import Testing
@testable import Shared

/// The SQL written once for both engines: what `SQLDialect` rewrites for PostgreSQL, and proof
/// that every statement of `Sources/Shared` is one PostgreSQL takes on its schema.
@Suite struct StoreDialectTests {
    @Test func placeholdersBecomeNumberedOutsideQuotesAndComments() {
        let (text, count) = SQLDialect.postgres(
            "SELECT '?', \"a?\", ? -- what?\nFROM t WHERE x = ? AND y = 'it''s ?' AND z = ?")
        #expect(text == "SELECT '?', \"a?\", $1 -- what?\nFROM t WHERE x = $2 AND y = 'it''s ?' AND z = $3")
        #expect(count == 3)
        #expect(SQLDialect.postgres("SELECT 1") == ("SELECT 1", 0))
    }

    @Test func scalarMaxAndMinBecomeGreatestAndLeastAndAggregatesStay() {
        #expect(SQLDialect.postgres("UPDATE t SET a = max(a, ?)").text == "UPDATE t SET a = greatest(a, $1)")
        #expect(
            SQLDialect.postgres("SET b = MAX(coalesce(b, 0), ?), c = min (x, f(y, z))").text
                == "SET b = greatest(coalesce(b, 0), $1), c = least (x, f(y, z))")
        #expect(SQLDialect.postgres("SELECT max(seq), min(f(a, b)) FROM t").text == "SELECT max(seq), min(f(a, b)) FROM t")
        #expect(SQLDialect.postgres("SELECT maximum(a, b), a.max(1, 2), 'max(a, b)'").text == "SELECT maximum(a, b), a.max(1, 2), 'max(a, b)'")
    }

    /// Every statement literal in the shared module (but the SQLite side's own files) is prepared
    /// by PostgreSQL on a store of the current schema: names, syntax and types all hold there. Its
    /// parameters' types are left for the server to infer, as `.text` and `.null` are bound.
    @Test func everySharedStatementPreparesOnPostgres() throws {
        let store = try TestStore(.postgres)
        _ = try store.open()
        let url = try #require(store.url)
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        let statements = try Self.sharedStatements()
        #expect(statements.count > 150, "found \(statements.count)")
        print("StoreDialectTests: \(statements.count) statements prepared on PostgreSQL")
        var refused: [String] = []
        for (file, sql) in statements {
            let text = SQLDialect.postgres(sql).text
            do {
                try connection.query("PREPARE probe AS " + text)
                try connection.query("DEALLOCATE probe")
            } catch {
                refused.append("\(file): \(error.reason): \(sql)")
            }
        }
        #expect(refused.isEmpty, "\(refused.joined(separator: "\n"))")
    }

    /// Files whose SQL is SQLite's alone: its engine, its migrations and their Swift steps, the
    /// snapshot file, backups and restores (refused on PostgreSQL), what copy-to-postgres reads of its SQLite file,
    /// the account views of the session file.
    static let sqliteOnly = [
        "Store/SQLiteDatabase.swift", "Store/SessionFile.swift", "Store/Migrations.swift", "Store/SchemaText.swift", "Store/SnapshotFile.swift",
        "Store/Statement.swift", "Accounts/AddressRekey.swift", "Admin/Backup.swift", "Admin/Restore.swift",
        "Store/PostgresMigrations.swift", "Store/Database.swift", "Postgres/", "Admin/CopyToPostgresSource.swift",
        "Accounts/AccountView.swift",
    ]

    static func sharedStatements() throws -> [(String, String)] {
        let root = PostgresServers.root + "/Sources/Shared"
        var out: [(String, String)] = []
        for file in try Self.swiftFiles(root) where !sqliteOnly.contains(where: { file.hasSuffix("/" + $0) || file.contains("/" + $0) }) {
            guard let bytes = FileIO.readFile(file, limit: 1 << 20) else { continue }
            for literal in Self.stringLiterals(String(decoding: bytes, as: UTF8.self)) {
                let trimmed = literal.drop { $0 == " " || $0 == "\n" }
                let first = trimmed.prefix { $0.isLetter }.uppercased()
                guard ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains(first), !literal.contains("\\(") else {
                    continue
                }
                // Statements split over literals joined with + (a head and its tail) are skipped.
                guard trimmed.contains(" "), trimmed.contains(" FROM ") || trimmed.contains(" INTO ") || first == "UPDATE"
                    || trimmed.hasPrefix("SELECT ")
                else { continue }
                out.append((String(file.dropFirst(root.count + 1)), literal))
            }
        }
        return out
    }

    static func swiftFiles(_ dir: String) throws -> [String] {
        let result = try ChildProcess.run(
            "/usr/bin/find", arguments: [dir, "-name", "*.swift", "-type", "f"], environment: [:], workDir: "/tmp")
        return result.stdoutText.split(separator: "\n").map(String.init).sorted()
    }

    /// The string literals of a Swift file, `"…"` and `"""…"""`, escapes resolved (`\"`, `\\`,
    /// `\n`); interpolations are left as written, so callers can skip them.
    static func stringLiterals(_ source: String) -> [String] {
        let s = Array(source.utf8)
        var out: [String] = []
        var i = 0
        func resolve(_ raw: ArraySlice<UInt8>) -> String {
            var bytes: [UInt8] = []
            var j = raw.startIndex
            while j < raw.endIndex {
                if raw[j] == UInt8(ascii: "\\"), j + 1 < raw.endIndex, raw[j + 1] != UInt8(ascii: "(") {
                    let next = raw[j + 1]
                    bytes.append(next == UInt8(ascii: "n") ? 0x0A : next)
                    j += 2
                } else {
                    bytes.append(raw[j])
                    j += 1
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        while i < s.count {
            if s[i] == UInt8(ascii: "/"), i + 1 < s.count, s[i + 1] == UInt8(ascii: "/") {
                while i < s.count && s[i] != 0x0A { i += 1 }
                continue
            }
            guard s[i] == UInt8(ascii: "\"") else {
                i += 1
                continue
            }
            if i + 2 < s.count, s[i + 1] == UInt8(ascii: "\""), s[i + 2] == UInt8(ascii: "\"") {
                var j = i + 3
                while j + 2 < s.count, !(s[j] == UInt8(ascii: "\"") && s[j + 1] == UInt8(ascii: "\"") && s[j + 2] == UInt8(ascii: "\"")) {
                    j += 1
                }
                out.append(resolve(s[(i + 3)..<min(j, s.count)]))
                i = j + 3
                continue
            }
            var j = i + 1
            while j < s.count, s[j] != UInt8(ascii: "\""), s[j] != 0x0A {
                if s[j] == UInt8(ascii: "\\") { j += 1 }
                j += 1
            }
            out.append(resolve(s[(i + 1)..<min(j, s.count)]))
            i = j + 1
        }
        return out
    }
}
