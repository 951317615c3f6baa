#if canImport(Glibc)
import Glibc
#endif

/// Rule 14: each `frontdoor-admin` action writes one syslog line: the action, the account id, who
/// ran it (the uid and `SUDO_USER`) and how it ended. The line has a fixed shape (the log scan
/// of `make test` holds every line to it), and no email or name ever goes in: `find` by address
/// names the account it found, not the address.
enum AdminAudit {
    /// `frontdoor-admin action=<command> account=<id or -> uid=<uid> sudoUser=<name or -> result=<ok or error> [count=<n>]`
    static func line(action: String, accountId: String?, result: String, count: Int?) -> String {
        var line = "frontdoor-admin action=\(action) account=\(safe(accountId)) uid=\(getuid()) "
            + "sudoUser=\(safe(getenv("SUDO_USER").map { String(cString: $0) })) result=\(result)"
        if let count { line += " count=\(count)" }
        return line
    }

    static func record(action: String, accountId: String?, result: String, count: Int? = nil) {
        let text = line(action: action, accountId: accountId, result: result, count: count)
        if result == "ok" { SysLog.info(text) } else { SysLog.warning(text) }
    }

    /// An account id or a user name as it is, or `?` when it holds anything that could bend the
    /// line (a space, `=`, a newline from a crafted `SUDO_USER`); `-` when there is none.
    static func safe(_ value: String?) -> String {
        guard let value, !value.isEmpty else { return "-" }
        let plain = value.utf8.count <= 64 && value.utf8.allSatisfy { byte in
            LedgerEntry.isIdByte(byte) || byte == UInt8(ascii: ".")
        }
        return plain ? value : "?"
    }
}
