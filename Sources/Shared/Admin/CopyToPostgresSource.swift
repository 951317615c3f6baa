/// What `copy-to-postgres` reads of the SQLite file: SQLite's SQL alone, kept apart from the
/// PostgreSQL side (StoreDialectTests prepares every other statement on PostgreSQL).
enum CopySource {
    static func schemaVersion(_ file: SnapshotFile) throws(FrontdoorError) -> Int {
        Int(try file.rows("PRAGMA user_version").first?.int(0) ?? -1)
    }

    /// The name the store's session file is attached under, when the source is the store's own file.
    static let sessionFile = "session_file"

    static func tables(_ file: SnapshotFile) throws(FrontdoorError) -> Set<String> {
        var tables = Set(try file.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .compactMap { $0.text(0) })
        if try file.rows("SELECT 1 FROM pragma_database_list WHERE name = ?", [.text(sessionFile)]).count == 1 {
            tables.insert("sessions")
        }
        return tables
    }

    static func holdsRows(_ file: SnapshotFile, _ table: String) throws(FrontdoorError) -> Bool {
        try !file.rows("SELECT 1 FROM \(CopyToPostgres.quoted(table)) LIMIT 1").isEmpty
    }

    static func columns(_ file: SnapshotFile, _ table: String) throws(FrontdoorError) -> Set<String> {
        Set(try file.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0.text(0) })
    }

    /// Every row of `table`, the columns `list` names (quoted, comma-separated), in that order.
    static func rows(_ file: SnapshotFile, _ table: String, _ list: String) throws(FrontdoorError) -> [Row] {
        try file.rows("SELECT \(list) FROM \(CopyToPostgres.quoted(table))")
    }
}
