#if canImport(Glibc)
import Glibc
#endif

/// The ledger's file (rule 13): lines appended and synced before the transaction that wrote them
/// commits, never rewritten. It lives outside the backups and is kept as long as they are.
public enum LedgerFile {
    public struct Contents: Sendable {
        public var entries: [LedgerEntry] = []
        /// Lines that are no entry (a line a power cut tore, or another program's), skipped.
        public var unreadable = 0
    }

    static let defaultName = "deletions.ledger"

    /// `deletion.ledgerFile`, or `deletions.ledger` beside the database.
    public static func path(config: Config) -> String {
        config.deletion.ledgerFile ?? beside(config.databasePath)
    }

    static func beside(_ databasePath: String) -> String {
        Files.directory(of: databasePath) + "/" + defaultName
    }

    /// Appends `lines` (each ending in a newline) in one write and syncs them, and when this made
    /// the file, its folder too. Any failure throws, and the transaction they belong to must then
    /// not commit.
    static func append(_ lines: [UInt8], path: String, databasePath: String) throws(FrontdoorError) {
        var fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        var created = false
        if fd < 0 && errno == ENOENT {
            // It belongs to the database's owner, like every file the programs make beside it.
            fd = StoreFiles.open(path, flags: O_WRONLY | O_APPEND | O_EXCL, databasePath: databasePath)
            if fd >= 0 {
                created = true
            } else if errno == EEXIST {
                fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            }
        }
        guard fd >= 0 else { throw .internal("ledger: cannot open \(path) (errno \(errno))") }
        var bytes = lines
        // A last line a power cut left without its end must not swallow these.
        var info = stat()
        var last: UInt8 = 0x0A
        if fstat(fd, &info) == 0, info.st_size > 0, pread(fd, &last, 1, info.st_size - 1) == 1, last != 0x0A {
            bytes.insert(0x0A, at: 0)
        }
        let written = Files.writeAll(fd, bytes)
        let synced = written && fsync(fd) == 0
        let code = errno
        let closed = close(fd) == 0
        guard written, synced, closed else {
            throw .internal("ledger: cannot \(written ? "sync" : "write") \(path) (errno \(code))")
        }
        if created { try Files.syncDirectory(Files.directory(of: path)) }
    }

    /// Every line of the ledger at `path`; `not_found` when there is no such file.
    public static func read(_ path: String) throws(FrontdoorError) -> Contents {
        guard let bytes = FileIO.readFile(path, limit: 1 << 30) else {
            if errno == ENOENT { throw FrontdoorError(.notFound, "There is no ledger at \(path).") }
            throw .internal("ledger: cannot read \(path) (errno \(errno))")
        }
        var contents = Contents()
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if let entry = LedgerEntry.parse(line) { contents.entries.append(entry) } else { contents.unreadable += 1 }
        }
        return contents
    }
}
