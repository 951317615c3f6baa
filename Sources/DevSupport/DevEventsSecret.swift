#if canImport(Glibc)
import Glibc
#endif
import Shared

/// The development events secret: a file both `frontdoor-dev config` (for the config) and
/// `frontdoor-dev serve` (for its receiver) use, made once with mode 0600.
public enum DevEventsSecret {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The secret as the config reads it; the file is written first when missing.
    public static func ensure(_ path: String) throws -> [UInt8] {
        if access(path, F_OK) != 0 {
            let text = Hex.encode(try SecureRandom.bytes(32)) + "\n"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                FileIO.writeAll(fd, Array(text.utf8))
                close(fd)
            }
        }
        do {
            return try Config.EventReceiver.readSecret(path, key: "events.secretFile")
        } catch {
            throw Failure(description: "\(error)")
        }
    }
}
