import CSQLite
import CSQLitePause
import Testing
@testable import Shared

/// The WAL-reset bug, made to happen every time (docs/sqlite.md): a checkpoint reads the WAL
/// index header while everything in the WAL has been copied; a commit then resets the WAL and
/// writes at its start; the checkpoint goes on with the header it read. SQLite up to 3.51.2
/// marks the old length as copied, so the frames written later below that length never reach the
/// database, and readers skip them meanwhile. The library `make deps` builds sees the WAL was
/// reset and copies nothing. The checkpoint is held at that moment by the pausing VFS (CSQLitePause).
@Suite struct WALResetRaceTests {
    @Test func aCheckpointRacingAWALResetLosesNoCommit() throws {
        try withStoreDirectory { dir in
            let path = dir.databasePath
            // A Database first: registering a VFS initialises SQLite, after which the process's
            // set-up (memory statistics off, StoreOpenTests) could no longer be made.
            let writer = try Database(path: path)
            try #require(frontdoor_pause_register() == SQLITE_OK)
            try writer.run("CREATE TABLE store.rows (id INTEGER PRIMARY KEY, data BLOB NOT NULL) STRICT")
            // The second checkpoint's connection, on the pausing VFS, has read the store once.
            var opened: OpaquePointer?
            let rc = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE, "frontdoor-pause")
            defer { sqlite3_close(opened) }
            let checkpointer = try #require(opened)
            try #require(rc == SQLITE_OK)
            try #require(sqlite3_exec(checkpointer, "SELECT count(*) FROM rows", nil, nil, nil) == SQLITE_OK)

            // 1. Commits fill the WAL, and a first checkpoint copies all of it (PASSIVE: it is
            //    not reset, so the next commit resets it).
            var written: [Int64] = []
            func insert(_ id: Int64) throws {
                try writer.run("INSERT INTO rows (id, data) VALUES (?, ?)", [.integer(id), .blob(Self.payload(id))])
                written.append(id)
            }
            for id in Int64(1)...30 { try insert(id) }
            let other = try Database(path: path)
            let first = try #require(try other.query("PRAGMA store.wal_checkpoint(PASSIVE)").first)
            let frames = try #require(first.int(1))
            #expect(first.int(0) == 0 && first.int(2) == frames && frames >= 30, "the first checkpoint copies all")

            // 2. The second checkpoint starts and stops after reading the header (all copied).
            try #require(frontdoor_pause_checkpoint_in_thread(checkpointer, SQLITE_CHECKPOINT_PASSIVE) == 0)
            let reached = frontdoor_pause_wait_reached(20_000) == 0 && frontdoor_pause_stopped() == 1
            // 3. A commit resets the WAL and writes at its start.
            if reached { try insert(100) }
            // 4. The second checkpoint goes on.
            let second = frontdoor_pause_join()
            try #require(reached, "the checkpoint never reached its pause")
            #expect(second == SQLITE_OK)

            // 5. Commits take the WAL past its old length; every reader must see every row.
            for id in Int64(101)...160 { try insert(id) }
            let seen = try other.query("SELECT count(*) FROM rows").first?.int(0)
            #expect(seen == Int64(written.count), "a reader misses rows the WAL holds")
            // 6. A checkpoint copies and empties the WAL: every row must be in the database file.
            try other.checkpoint()
            #expect(writer.walFileBytes == 0)
            writer.close()
            other.close()
            let fresh = try Database(path: path)
            #expect(try fresh.query("PRAGMA integrity_check").map { $0.text(0) } == ["ok"])
            let rows = try fresh.query("SELECT id, data FROM rows ORDER BY id")
            #expect(rows.compactMap { $0.int(0) } == written)
            for row in rows {
                #expect(row.blob(1) == row.int(0).map(Self.payload), "row \(row.int(0) ?? -1) holds other bytes")
            }
        }
    }

    /// A row of about a page, different for every id: lost or stale pages show as wrong bytes.
    static func payload(_ id: Int64) -> [UInt8] {
        (0..<3000).map { UInt8(truncatingIfNeeded: Int64($0) &* 31 &+ id &* 7) }
    }
}
