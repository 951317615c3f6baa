#if canImport(Glibc)
import Glibc
#endif
import Shared

/// One process of the WAL stress test (`frontdoor-dev wal-stress`, WALStressTests): it opens the
/// store as an endpoint does, commits `commits` rows, writes `committed WRITER SEQ` to stdout as
/// soon as each commit has returned (its answer), and after each one checkpoints the way
/// frontdoor's processes do, chosen by `seed`: the after-answer tidy (PASSIVE then TRUNCATE,
/// never waiting), a deletion's TRUNCATE that waits, or a plain PASSIVE or RESTART. With no
/// commits it is a session check: one read, then the WAL emptied if it holds anything.
public enum WALStress {
    public static let schema = """
        CREATE TABLE wal_stress (writer TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL,
            PRIMARY KEY (writer, seq)) STRICT;
        CREATE INDEX wal_stress_by_seq ON wal_stress (seq);
        CREATE TABLE wal_stress_counts (writer TEXT PRIMARY KEY, n INTEGER NOT NULL) STRICT;
        """

    /// The bytes of one row, 200 to 6,199 of them (some spill onto overflow pages), different for
    /// every writer and sequence number, so a lost or stale page shows as wrong bytes.
    public static func payload(writer: String, seq: Int) -> [UInt8] {
        var state = UInt64(truncatingIfNeeded: seq) &* 0x9E37_79B9_7F4A_7C15
        for byte in writer.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let count = 200 + Int(state % 6000)
        return (0..<count).map { i in UInt8(truncatingIfNeeded: (state >> UInt64(i % 57)) &+ UInt64(i)) }
    }

    public static func run(databasePath: String, writer: String, commits: Int, seed: UInt64) throws(FrontdoorError) {
        var random = seed | 1
        func next(_ bound: UInt64) -> UInt64 {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return random % bound
        }
        let db = try Database(path: databasePath, durability: next(2) == 0 ? .powerCutSafe : .crashSafe)
        guard commits > 0 else {
            _ = try db.query("SELECT count(*) FROM wal_stress")
            if db.walFileBytes > 0 { db.emptyWAL() }
            return
        }
        for seq in 0..<commits {
            try db.transaction { () throws(FrontdoorError) in
                try db.run(
                    "INSERT INTO wal_stress (writer, seq, data) VALUES (?, ?, ?)",
                    [.text(writer), .integer(Int64(seq)), .blob(payload(writer: writer, seq: seq))])
                try db.run(
                    "INSERT INTO wal_stress_counts (writer, n) VALUES (?, 1) ON CONFLICT (writer) DO UPDATE SET n = n + 1",
                    [.text(writer)])
            }
            FileIO.writeAll(1, Array("committed \(writer) \(seq)\n".utf8))
            switch next(8) {
            case 0, 1, 2: db.tidyWAL(threshold: 1)
            case 3: db.emptyWAL()
            case 4: db.checkpointOrOwe()
            case 5: _ = try db.query("PRAGMA wal_checkpoint(PASSIVE)")
            case 6: _ = try db.query("PRAGMA wal_checkpoint(RESTART)")
            default: break
            }
        }
    }
}
