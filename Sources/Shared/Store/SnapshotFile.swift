import CSQLite

/// A snapshot file opened on its own, as a plain SQLite file: nothing is created, no WAL is
/// switched on, no migration runs (`Database` would do all three). For a backup being checked
/// and a snapshot being staged for a restore.
final class SnapshotFile {
    let path: String
    private var handle: OpaquePointer?

    /// Opens an existing file; SQLite reads nothing yet, so a file that is not a database fails at
    /// the first statement.
    init(path: String) throws(FrontdoorError) {
        self.path = path
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError.make(db, "open", rc)
            sqlite3_close(db)
            throw error
        }
        handle = db
    }

    deinit { close() }

    /// Every row of one statement, with `params` bound.
    func rows(_ sql: String, _ params: [SQLValue] = []) throws(FrontdoorError) -> [Row] {
        let db = try openHandle()
        let statement = try Statement.prepare(db, sql)
        defer { statement.finalize() }
        try statement.bind(db, params)
        return try statement.rows(db)
    }

    /// A script of statements, in order.
    func execute(_ script: String) throws(FrontdoorError) {
        try Statement.executeScript(try openHandle(), script)
    }

    /// SQLite's own check of every page and index: true when it says `ok`.
    func isIntact() throws(FrontdoorError) -> Bool {
        try rows("PRAGMA integrity_check").map { $0.text(0) ?? "" } == ["ok"]
    }

    /// Each statement above was finalized, so the close succeeds and leaves no journal behind.
    func close() {
        guard let db = handle else { return }
        handle = nil
        if sqlite3_close(db) != SQLITE_OK { sqlite3_close_v2(db) }
    }

    private func openHandle() throws(FrontdoorError) -> OpaquePointer {
        guard let handle else { throw SQLiteError.make("use", SQLITE_MISUSE, "the snapshot is closed") }
        return handle
    }
}
