#if canImport(Glibc)
import Glibc
#endif

/// A backup's proof of who made it (issue 29, finding 8): `<backup>.mac` beside the snapshot holds
/// the hex HMAC-SHA256, under a key derived from the server key, of the snapshot's SHA-256. Only a
/// box holding the server key makes one, and no backup holds that key, so whoever can write the
/// backups' folder cannot forge or alter a snapshot that `restore` (or `copy-to-postgres`) then
/// takes: each checks the MAC against the config's server key before anything else changes.
enum BackupSeal {
    static let suffix = ".mac"

    static func key(serverKey: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: serverKey, message: Array("frontdoor backup mac v1".utf8))
    }

    /// The MAC of the file at `path` (mapped, not read into memory: a store may be large).
    static func mac(of path: String, key: [UInt8]) throws -> [UInt8] {
        let digest: [UInt8]
        do {
            digest = try MappedFile(path: path).sha256()
        } catch let failure as MappedFile.Failure {
            throw AdminError(.unavailable, "The snapshot \(path) \(failure.description).")
        }
        return HMACSHA256.mac(key: key, message: Array("frontdoor backup v1\n".utf8) + digest)
    }

    /// Writes the MAC of the file at `path` to `macPath` (0600, whole or not at all) and syncs it;
    /// the caller syncs the folder.
    static func write(for path: String, to macPath: String, key: [UInt8]) throws {
        let text = Array((Hex.encode(try mac(of: path, key: key)) + "\n").utf8)
        try Files.replace(macPath, with: text, mode: 0o600)
        try Files.sync(macPath)
    }

    /// Refuses (69, before anything changes) a snapshot whose MAC file is missing or does not
    /// match `copy`, the bytes about to be used (a copy of `named`, or the file itself).
    static func check(_ copy: String, named snapshot: String, key: [UInt8]) throws {
        guard let stored = FileIO.readFile(snapshot + suffix, limit: 256) else {
            throw AdminError(
                .unavailable,
                "\(snapshot) has no \(Files.name(of: snapshot))\(suffix) beside it: only a backup made by frontdoor-admin "
                    + "backup with this box's server key is taken. A store copied by hand is put back by hand with "
                    + "every process stopped, then reapply-deletions (docs/operating.md).")
        }
        let text = String(decoding: stored, as: UTF8.self).trimmingWhitespace()
        let expected = Hex.encode(try mac(of: copy, key: key))
        guard ConstantTime.equal(Array(text.utf8), Array(expected.utf8)) else {
            throw AdminError(
                .unavailable,
                "\(snapshot) does not match its \(suffix) file: it was changed since the backup, or made under "
                    + "another server key than this config's (deletion.auditKeyFile). Nothing was changed.")
        }
    }
}
