#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 29, finding 7: on PostgreSQL a deleted person's address stays on disk after the deletion
/// (the dead row, its index entry, the planner's statistics, the WAL), and VACUUM does not reliably
/// overwrite it. docs/scaling.md ("What a deletion leaves on disk") gives the operator the steps
/// that remove it from the data directory; this runs them, as written there, on servers of the
/// test's own (it changes a server setting), and reads every file of the data directory before
/// and after. Always on PostgreSQL; the Makefile runs it on the first pass only.
@Suite(.serialized) struct PostgresEraseTests {
    /// The data directory's files that hold `needle`, relative to it.
    static func holding(_ needle: String, in dataDirectory: String) -> [String] {
        let bytes = Array(needle.utf8)
        var found: [String] = []
        func visit(_ path: String, _ relative: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                guard let dir = opendir(path) else { return }
                defer { closedir(dir) }
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    guard name != ".", name != ".." else { continue }
                    visit(path + "/" + name, relative.isEmpty ? name : relative + "/" + name)
                }
            } else if (info.st_mode & S_IFMT) == S_IFREG, let content = FileIO.readFile(path, limit: 1 << 30),
                contains(content, bytes)
            {
                found.append(relative)
            }
        }
        visit(dataDirectory, "")
        return found.sorted()
    }

    /// memchr and memcmp: a generic search through the WAL's 16 MiB segments is slow in a debug build.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                guard let start = h.baseAddress, let wanted = n.baseAddress else { return false }
                let last = h.count - n.count
                var offset = 0
                while offset <= last {
                    guard let hit = memchr(start.advanced(by: offset), Int32(first), last - offset + 1) else { return false }
                    let at = start.distance(to: UnsafeRawPointer(hit))
                    if memcmp(start.advanced(by: at), wanted, n.count) == 0 { return true }
                    offset = at + 1
                }
                return false
            }
        }
    }

    @Test func theDocumentedStepsLeaveNoTraceOfADeletedAddressInTheDataDirectory() throws {
        let pair = try PostgresServers.start(in: PostgresServers.makeTemporaryFolder())
        defer {
            PostgresServers.stop(pair.dir)
            PostgresServers.recordLogs(pair.dir)
            _ = ChildProcess.removeTree(pair.dir)
        }
        let h = try Harness(pair: pair)
        let database = try #require(h.postgres)
        // Others before the person, and the person last: nothing written after it overwrites
        // the space its rows leave.
        for i in 0..<20 {
            #expect(try h.signInGoogle(try h.google.token(sub: "g-erase-\(i)", email: "someone-\(i)@gmail.com")).status == 200)
        }
        let marker = "zq-erase-\(Hex.encode(try SecureRandom.bytes(6)))@example.org"
        let person = try h.register(marker, "the person's own password")
        let accountId = try #require(person.body["accountId"]?.stringValue, "\(person.rawBody)")
        let superuser = try PostgresConnection(pair.superuser.database(database.name))
        defer { superuser.close() }
        func run(_ sql: String) throws { _ = try superuser.query(sql) }
        // The planner's sample, as autovacuum's ANALYZE takes it on a live store.
        try run("ANALYZE")
        try run("CHECKPOINT")
        let data = pair.dir + "/data"
        #expect(Self.holding(marker, in: data).contains { $0.hasPrefix("base/") }, "the scan must see the live row")

        let deleted = try h.admin(["delete", accountId])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        try run("CHECKPOINT")
        let afterDeletion = Self.holding(marker, in: data)
        #expect(afterDeletion.contains { $0.hasPrefix("base/") } && afterDeletion.contains { $0.hasPrefix("pg_wal/") },
                "the deleted row and its WAL stay until the steps: \(afterDeletion)")

        // docs/scaling.md's steps, in order.
        try run("ANALYZE")
        try run("VACUUM FULL")
        try run("ALTER SYSTEM SET wal_recycle = off")
        try run("SELECT pg_reload_conf()")
        for _ in 0..<3 {
            try run("SELECT pg_switch_wal()")
            try run("CHECKPOINT")
        }
        #expect(Self.holding(marker, in: data) == [], "left in the data directory")
        // The store serves on: the others sign in, the person is gone.
        #expect(try h.signInGoogle(try h.google.token(sub: "g-erase-3", email: "someone-3@gmail.com")).status == 200)
        #expect(try !h.holds(accountId))
    }
}
