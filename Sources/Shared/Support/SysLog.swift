import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where work after the answer reports: stderr is closed by then (rule 6), syslog is not.
public enum SysLog {
    public static func info(_ line: String) { frontdoor_syslog(LOG_INFO, line) }
    public static func warning(_ line: String) { frontdoor_syslog(LOG_WARNING, line) }
    public static func error(_ line: String) { frontdoor_syslog(LOG_ERR, line) }
}
