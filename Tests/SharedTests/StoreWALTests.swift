import Testing
@testable import Shared

/// The WAL stays short although no process outlives its request (see `Database.tidyWAL`).
@Suite struct StoreWALTests {
    @Test func theWALIsCountedAndEmptiedPastItsThreshold() throws {
        try withStoreDirectory { dir in
            let path = dir.databasePath
            let setup = try Database(path: path)
            try setup.run("CREATE TABLE store.filler (id INTEGER PRIMARY KEY, data BLOB NOT NULL) STRICT")
            setup.close()
            // One connection per "process", as in production: the WAL grows across them.
            var last = 0
            for i in 0..<40 {
                let db = try Database(path: path)
                try db.run("INSERT INTO filler (id, data) VALUES (?, zeroblob(6000))", [.integer(Int64(i))])
                #expect(db.walFrameCount > last, "each commit adds frames")
                last = db.walFrameCount
                db.close()
            }
            #expect(last >= 64)
            #expect((storeFileSize(path + "-wal") ?? 0) > 64 * 4096)

            let db = try Database(path: path)
            db.tidyWAL()
            #expect(db.walFrameCount == 0, "a fresh connection has no commit of its own to go by")
            try db.run("INSERT INTO filler (id, data) VALUES (100, zeroblob(10))")
            #expect(db.walFrameCount >= 64)
            db.tidyWAL(threshold: 1_000_000)
            #expect((storeFileSize(path + "-wal") ?? 0) > 0, "below the threshold nothing happens")
            db.tidyWAL()
            #expect(db.walFrameCount == 0)
            #expect(storeFileSize(path + "-wal") == 0)
            #expect(try db.query("SELECT count(*) FROM filler").first?.int(0) == 41)
        }
    }

    @Test func anotherReaderMakesTheTidyPartialNotSlow() throws {
        try withStoreDirectory { dir in
            let path = dir.databasePath
            // A writer that would wait 30 s for a lock: the tidy must not wait at all.
            let writer = try Database(path: path, busyTimeoutMillis: 30_000)
            try writer.run("CREATE TABLE filler (id INTEGER PRIMARY KEY, data BLOB NOT NULL) STRICT")
            for i in 0..<30 { try writer.run("INSERT INTO filler (id, data) VALUES (?, zeroblob(6000))", [.integer(Int64(i))]) }
            let reader = try Database(path: path)
            try reader.transaction { () throws(FrontdoorError) in
                _ = try reader.query("SELECT count(*) FROM filler")
                let started = Clock.monotonicMillis()
                writer.tidyWAL()
                #expect(Clock.monotonicMillis() - started < 3000, "it must not wait for the reader")
            }
            #expect(try writer.query("SELECT count(*) FROM filler").first?.int(0) == 30)
        }
    }
}
