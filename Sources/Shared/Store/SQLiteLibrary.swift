import CSQLite

/// The SQLite linked into this program, and what protects the store from the WAL-reset bug
/// (SQLite 3.7.0 to 3.51.2: a checkpoint that races a commit resetting the WAL can mark frames as
/// copied that never were; docs/sqlite.md). frontdoor's only protection is a fixed library: its
/// processes checkpoint without the writer lock (`Database.emptyWAL`'s PASSIVE step, and a
/// TRUNCATE that finds the lock busy falls back to PASSIVE), which only a fixed SQLite makes safe.
public enum SQLiteLibrary {
    /// What the running program linked, from the library itself rather than its header.
    public static var version: String { String(cString: sqlite3_libversion()) }
    public static var versionNumber: Int { Int(sqlite3_libversion_number()) }
    public static var sourceId: String { String(cString: sqlite3_sourceid()) }

    /// 3.51.3 and later, and the backports 3.44.6 (3.44.x) and 3.50.7 (3.50.x).
    public static func hasWALResetFix(_ number: Int) -> Bool {
        number >= 3_051_003 || (3_050_007..<3_051_000).contains(number) || (3_044_006..<3_045_000).contains(number)
    }

    /// `frontdoor-check`'s line: the linked version and the protection in force, or none.
    public static func finding(version: String, number: Int, sourceId: String) -> (ok: Bool, text: String) {
        let linked = "SQLite \(version) linked (source \(sourceId))"
        if hasWALResetFix(number) {
            return (true, "\(linked): protection against the WAL-reset bug: fixed SQLite \(version)")
        }
        return (
            false,
            "\(linked): has the WAL-reset bug (fixed in 3.51.3, 3.50.7 and 3.44.6) and nothing stands in for "
                + "the fix, as checkpoints run without the writer lock: build with make deps (docs/sqlite.md)"
        )
    }

    public static var finding: (ok: Bool, text: String) {
        finding(version: version, number: versionNumber, sourceId: sourceId)
    }
}
