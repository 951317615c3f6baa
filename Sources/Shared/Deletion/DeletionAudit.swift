#if canImport(Glibc)
import Glibc
#endif

/// The trace a deletion leaves: a keyed hash of the account id (so an operator holding the key and
/// an id can confirm it was deleted, while the table alone names nobody), the time, and which
/// providers were linked. Nothing else about the person.
public enum DeletionAudit {
    static let keyFileName = "audit-key"

    /// Writes the record; call inside the deletion's transaction.
    static func record(
        accountId: String, providers: Set<String>, revocation: AccountDeletion.Revocation, revocationId: String?,
        key: [UInt8], db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try db.run(
            """
            INSERT INTO deletion_audit (account_hash, deleted_at, providers, apple_revocation, revocation_id)
            VALUES (?, ?, ?, ?, ?)
            """,
            [
                .blob(HMACSHA256.mac(key: key, message: Array(accountId.utf8))), .integer(now),
                .text(providers.sorted().joined(separator: ",")), .text(revocation.rawValue),
                revocationId.map(SQLValue.text) ?? .null,
            ])
    }

    /// The key: `deletion.auditKeyFile`, or `audit-key` beside the database, made on first use.
    /// At least 32 bytes of text; a key that cannot be had stops the deletion (500) before it starts.
    public static func key(config: Config) throws(FrontdoorError) -> [UInt8] {
        if let file = config.deletion.auditKeyFile {
            return try read(file, key: "deletion.auditKeyFile")
        }
        let path = Files.directory(of: config.databasePath) + "/" + keyFileName
        if access(path, F_OK) != 0 { try create(path, databasePath: config.databasePath) }
        return try read(path, key: "deletion (generated \(keyFileName))")
    }

    static func read(_ path: String, key: String) throws(FrontdoorError) -> [UInt8] {
        guard let bytes = FileIO.readFile(path, limit: 4096) else {
            throw .internal("config: \(key): \(path) cannot be read (errno \(errno))")
        }
        let text = Array(String(decoding: bytes, as: UTF8.self).trimmingWhitespace().utf8)
        guard text.count >= 32 else { throw .internal("config: \(key): \(path) holds under 32 bytes") }
        return text
    }

    /// Written under a temporary name and linked into place, so a racing process sees the whole key
    /// or none; the loser of the race keeps the winner's. It belongs to the database's owner.
    static func create(_ path: String, databasePath: String) throws(FrontdoorError) {
        let text = Hex.encode(try SecureRandom.bytes(32)) + "\n"
        let temporary = path + ".tmp-\(getpid())"
        let fd = StoreFiles.open(temporary, flags: O_WRONLY | O_TRUNC, databasePath: databasePath)
        guard fd >= 0 else { throw .internal("audit key: cannot create \(temporary) (errno \(errno))") }
        FileIO.writeAll(fd, Array(text.utf8))
        let synced = fsync(fd) == 0
        close(fd)
        defer { unlink(temporary) }
        guard synced else { throw .internal("audit key: fsync failed (errno \(errno))") }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw .internal("audit key: cannot link \(path) (errno \(errno))")
        }
    }
}
