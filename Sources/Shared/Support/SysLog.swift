import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where work after the answer reports: stderr is closed by then (rule 6), syslog is not.
public enum SysLog {
    public static func info(_ line: String) { send(LOG_INFO, line) }
    public static func warning(_ line: String) { send(LOG_WARNING, line) }
    public static func error(_ line: String) { send(LOG_ERR, line) }

    /// `FRONTDOOR_SYSLOG_FILE` (set by the tests, never by nginx): lines are appended there
    /// instead, so the tests' scan for logged secrets covers after-answer lines too.
    private static let mirrorPath: String? = {
        guard let value = getenv("FRONTDOOR_SYSLOG_FILE") else { return nil }
        let path = String(cString: value)
        return path.isEmpty ? nil : path
    }()

    private static func send(_ priority: Int32, _ line: String) {
        guard let mirrorPath else { return frontdoor_syslog(priority, line) }
        let fd = open(mirrorPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return frontdoor_syslog(priority, line) }
        FileIO.writeAll(fd, Array((line + "\n").utf8))
        close(fd)
    }
}
