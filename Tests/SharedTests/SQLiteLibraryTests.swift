import CSQLite
import Testing
@testable import Shared

/// The SQLite frontdoor links: `make deps`' build of a version without the WAL-reset bug, with the
/// compile options of deps/sqlite3.options (docs/sqlite.md).
@Suite struct SQLiteLibraryTests {
    @Test func onlyTheFixedVersionsAndTheBackportsCount() {
        for fixed in [3_051_003, 3_053_004, 4_000_000, 3_050_007, 3_050_009, 3_044_006, 3_044_010] {
            #expect(SQLiteLibrary.hasWALResetFix(fixed), "\(fixed)")
        }
        for affected in [3_040_001, 3_046_001, 3_051_002, 3_051_000, 3_050_006, 3_045_000, 3_044_005, 3_007_000] {
            #expect(!SQLiteLibrary.hasWALResetFix(affected), "\(affected)")
        }
    }

    @Test func debian12sLibraryFailsTheCheck() {
        let old = SQLiteLibrary.finding(
            version: "3.40.1", number: 3_040_001, sourceId: "2022-12-28 14:03:47 df5c253c0b3dd24916e4ec7cf77d3db5294cc9fd45ae7b9c5e82ad8197f3alt1")
        #expect(!old.ok)
        #expect(old.text.hasPrefix("SQLite 3.40.1 linked (source 2022-12-28 14:03:47 df5c253c"))
        #expect(old.text.contains("has the WAL-reset bug"))
        let fixed = SQLiteLibrary.finding(version: "3.51.3", number: 3_051_003, sourceId: "2026-03-13 10:38:09 737ae4a3")
        #expect(fixed.ok)
        #expect(fixed.text.hasSuffix("protection against the WAL-reset bug: fixed SQLite 3.51.3"))
    }

    @Test func theLinkedLibraryIsTheFixedBuildItsHeaderNames() {
        #expect(SQLiteLibrary.hasWALResetFix(SQLiteLibrary.versionNumber), "linked: \(SQLiteLibrary.version)")
        #expect(SQLiteLibrary.versionNumber == Int(SQLITE_VERSION_NUMBER))
        #expect(SQLiteLibrary.sourceId == SQLITE_SOURCE_ID)
        #expect(SQLiteLibrary.finding.ok)
    }

    /// Every option deps/sqlite3.options asks for is in the library this program runs.
    @Test func theLinkedLibraryHasTheOptionsAskedFor() throws {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let file = parts.joined(separator: "/") + "/deps/sqlite3.options"
        let text = String(decoding: try #require(FileIO.readFile(file)), as: UTF8.self)
        let asked = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("-DSQLITE_") }
        #expect(asked.count >= 20)
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            let listed = Set(try db.query("PRAGMA compile_options").compactMap { $0.text(0) })
            for flag in asked {
                let setting = String(flag.dropFirst("-DSQLITE_".count))
                let name = setting.split(separator: "=").first.map(String.init) ?? setting
                // compile_options shows NAME=VALUE, and NAME alone for options set to 1.
                let found = listed.contains(setting) || (setting == name + "=1" && listed.contains(name))
                #expect(found, "\(flag) is not among \(listed.sorted())")
            }
            #expect(!listed.contains("ENABLE_FTS3_TOKENIZER"))
        }
    }
}
