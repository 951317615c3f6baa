#if canImport(Glibc)
import Glibc
#endif

/// The deletion ledger (rule 13): one line `<unix time> <accountId>` per deletion, appended and
/// synced before the deletion commits, so a restored snapshot never brings back a person who
/// asked to go. Nothing else is in it (account ids are random and say nothing about the person).
/// It lives outside the backups, is only ever appended to, and is kept as long as they are.
public enum DeletionLedger {
    public struct Entry: Sendable, Equatable {
        public let time: UnixTime
        public let accountId: String
    }

    public struct Contents: Sendable {
        public var entries: [Entry] = []
        /// Lines that are not `<unix time> <accountId>` (a line a power cut tore), skipped.
        public var unreadable = 0
    }

    static let defaultName = "deletions.ledger"

    /// `deletion.ledgerFile`, or `deletions.ledger` beside the database.
    public static func path(config: Config) -> String {
        config.deletion.ledgerFile ?? Files.directory(of: config.databasePath) + "/" + defaultName
    }

    /// Appends the line of `accountId` and syncs it, and when this made the file, its folder too.
    /// Any failure throws, and the deletion it belongs to must then not commit.
    static func append(accountId: String, now: UnixTime, path: String, databasePath: String) throws(FrontdoorError) {
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
        guard fd >= 0 else { throw .internal("deletion ledger: cannot open \(path) (errno \(errno))") }
        var line = Array("\(now) \(accountId)\n".utf8)
        // A last line a power cut left without its end must not swallow this one.
        var info = stat()
        var last: UInt8 = 0x0A
        if fstat(fd, &info) == 0, info.st_size > 0, pread(fd, &last, 1, info.st_size - 1) == 1, last != 0x0A {
            line.insert(0x0A, at: 0)
        }
        let written = Files.writeAll(fd, line)
        let synced = written && fsync(fd) == 0
        let code = errno
        let closed = close(fd) == 0
        guard written, synced, closed else {
            throw .internal("deletion ledger: cannot \(written ? "sync" : "write") \(path) (errno \(code))")
        }
        if created { try Files.syncDirectory(Files.directory(of: path)) }
    }

    /// Every line of the ledger at `path`; `not_found` when there is no such file.
    public static func read(_ path: String) throws(FrontdoorError) -> Contents {
        guard let bytes = FileIO.readFile(path, limit: 1 << 30) else {
            if errno == ENOENT { throw FrontdoorError(.notFound, "There is no ledger at \(path).") }
            throw .internal("deletion ledger: cannot read \(path) (errno \(errno))")
        }
        var contents = Contents()
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if let entry = parse(line) { contents.entries.append(entry) } else { contents.unreadable += 1 }
        }
        return contents
    }

    static func parse(_ line: ArraySlice<UInt8>) -> Entry? {
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard fields.count == 2, let time = Int64(String(decoding: fields[0], as: UTF8.self)),
            (1...64).contains(fields[1].count), fields[1].allSatisfy(isIdByte)
        else { return nil }
        return Entry(time: time, accountId: String(decoding: fields[1], as: UTF8.self))
    }

    /// Account ids are base64url.
    static func isIdByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
