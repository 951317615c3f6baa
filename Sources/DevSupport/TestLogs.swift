#if canImport(Glibc)
import Glibc
#endif
import Shared

/// The tests' record for the log scan (`scripts/check-logs`, after `make test`): under
/// `FRONTDOOR_LOG_DIR`, `stderr.log` gets every child process's stderr (and the stacks' nginx
/// error logs), `syslog.log` the programs' syslog lines, and `secrets.txt` every token, session
/// token, ticket, refresh token and email the tests used, one a line. Without the variable,
/// nothing is recorded. Email and deletion tests register passwords and codes with `register`.
public enum TestLogs {
    public static let directory: String? = {
        guard let value = getenv("FRONTDOOR_LOG_DIR") else { return nil }
        let dir = String(cString: value)
        return dir.isEmpty ? nil : dir
    }()

    /// What the programs' environment needs so their syslog lines land in the record.
    public static var childEnvironment: [String: String] {
        directory.map { ["FRONTDOOR_SYSLOG_FILE": $0 + "/syslog.log"] } ?? [:]
    }

    /// Records a secret. Short strings are left out: they would match by chance.
    public static func register(_ secret: String?) {
        guard let directory, let secret, secret.utf8.count >= 8, secret.utf8.count <= 20_000,
            !secret.contains("\n")
        else { return }
        append(directory + "/secrets.txt", Array((secret + "\n").utf8))
    }

    /// Registers every `email` member, however deep, of a JSON value (a token's claims).
    public static func registerEmails(in value: JSONValue) {
        switch value {
        case .object(let members):
            for (name, member) in members {
                if name == "email", let email = member.stringValue { register(email) }
                registerEmails(in: member)
            }
        case .array(let items): items.forEach { registerEmails(in: $0) }
        default: break
        }
    }

    public static func appendOutput(_ bytes: [UInt8]) {
        guard let directory, !bytes.isEmpty else { return }
        append(directory + "/stderr.log", bytes + (bytes.last == 0x0A ? [] : [0x0A]))
    }

    /// Syslog lines a test collected in a file of its own, into the record.
    public static func appendSyslog(_ bytes: [UInt8]) {
        guard let directory, !bytes.isEmpty else { return }
        append(directory + "/syslog.log", bytes + (bytes.last == 0x0A ? [] : [0x0A]))
    }

    static func append(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        FileIO.writeAll(fd, bytes)
        close(fd)
    }
}
