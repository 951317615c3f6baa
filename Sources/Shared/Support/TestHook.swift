#if canImport(Glibc)
import Glibc
#endif

/// A place where a test can hold a process, to run another one through a race window
/// deterministically. Debug builds only: in a release build `pause` is empty, and the
/// environment variable means nothing.
///
/// `FRONTDOOR_TEST_PAUSE=<point>:<folder>`: on reaching `point`, the process creates
/// `<folder>/<point>.reached` and waits until `<folder>/<point>.go` exists. The process's own
/// ceiling (`processLifetimeSeconds`) still bounds the wait.
public enum TestHook {
    #if DEBUG
    public static func pause(_ point: String) {
        guard let raw = getenv("FRONTDOOR_TEST_PAUSE") else { return }
        let value = String(cString: raw)
        guard let colon = value.firstIndex(of: ":"), value[..<colon] == point else { return }
        let folder = String(value[value.index(after: colon)...])
        let reached = open("\(folder)/\(point).reached", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if reached >= 0 { close(reached) }
        while access("\(folder)/\(point).go", F_OK) != 0 { usleep(1000) }
    }
    #else
    @inline(__always) public static func pause(_ point: String) {}
    #endif
}
