#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

/// Issue 19, item 3, file by file: as root, each file made beside the database belongs to its
/// folder's owner (the user the programs run as). The tests run as root, as `make test` does in CI.
@Suite struct StoreFilesTests {
    static let programs: uid_t = 48_214

    func uid(_ path: String) -> uid_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_uid : nil
    }

    @Test func theDatabaseTheHintTheMarkerAndTheServerKeyBelongToTheFoldersOwner() throws {
        try #require(geteuid() == 0, "this test runs as root, as make test does in CI")
        try withStoreDirectory { dir in
            #expect(chown(dir.path, Self.programs, Self.programs) == 0)
            let path = dir.databasePath
            let db = try Database(path: path)
            try db.run("INSERT INTO accounts (id, created_at) VALUES ('a', 1)")
            for file in [path, path + "-wal", path + "-shm"] { #expect(uid(file) == Self.programs, "\(file)") }

            EventHint.set(100, databasePath: path)
            #expect(uid(EventHint.path(databasePath: path)) == Self.programs)

            // A checkpoint that a reader keeps from finishing leaves its marker.
            let reader = try Database(path: path)
            try reader.run("BEGIN")
            _ = try reader.query("SELECT count(*) FROM accounts")
            let writer = try Database(path: path, busyTimeoutMillis: 20)
            try writer.run("INSERT INTO accounts (id, created_at) VALUES ('b', 2)")
            #expect(!writer.checkpointOrOwe())
            try reader.run("COMMIT")
            #expect(uid(Database.checkpointOwedPath(path)) == Self.programs)

            let key = dir.path + "/" + DeletionAudit.keyFileName
            try DeletionAudit.create(key, databasePath: path)
            #expect(uid(key) == Self.programs)
            // Nothing of root's is left in the folder, temporary files included.
            // (Its WAL and shared memory, the session file and its own, the hint, the marker, the key.)
            #expect(StoreFiles.companions(databasePath: path, serverKeyPath: key).count == 8)
        }
    }

    @Test func anExistingDatabaseDecidesTheOwnerOfWhatIsMadeBesideIt() throws {
        try #require(geteuid() == 0, "this test runs as root, as make test does in CI")
        try withStoreDirectory { dir in
            let path = dir.databasePath
            _ = try Database(path: path)
            #expect(chown(path, Self.programs, 0) == 0)
            let fd = StoreFiles.open(dir.path + "/beside", flags: O_WRONLY, databasePath: path)
            #expect(fd >= 0)
            var info = stat()
            #expect(fstat(fd, &info) == 0 && info.st_uid == Self.programs && info.st_gid == 0)
            close(fd)
        }
    }
}
