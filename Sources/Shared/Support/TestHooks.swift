import CCommitPause
#if canImport(Glibc)
import Glibc
#endif

/// Points where a test holds a process, to race another against it deterministically, and events
/// a test counts. Debug builds only (release binaries have none).
enum TestHooks {
    /// When `FRONTDOOR_TEST_PAUSE_AT` names `point`: creates `$FRONTDOOR_TEST_PAUSE_FILE.waiting`
    /// and waits, at most 20 s, for `$FRONTDOOR_TEST_PAUSE_FILE.go` to appear.
    static func pause(_ point: String) {
        #if DEBUG
        guard let at = getenv("FRONTDOOR_TEST_PAUSE_AT"), String(cString: at) == point,
            let prefix = getenv("FRONTDOOR_TEST_PAUSE_FILE").map({ String(cString: $0) }), !prefix.isEmpty
        else { return }
        let fd = open(prefix + ".waiting", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        var waited = 0
        while access(prefix + ".go", F_OK) != 0 && waited < 20_000 {
            usleep(2_000)
            waited += 2
        }
        #endif
    }

    /// When `FRONTDOOR_TEST_PAUSE_AT` is `between-commits`: SQLite's default VFS becomes one that
    /// holds the process, as `pause` does, after a transaction's commit to the session file and
    /// before its commit to the store (`SessionFile`; shim.h). Before the first connection opens.
    static func armCommitPause() {
        #if DEBUG
        guard let at = getenv("FRONTDOOR_TEST_PAUSE_AT"), String(cString: at) == "between-commits" else { return }
        _ = frontdoor_arm_commit_pause()
        #endif
    }

    /// A change to what an account view shows, made outside a transaction (`AccountView`): a
    /// test's own set-up may make one, an endpoint must not. Under `FRONTDOOR_TEST_STRICT_VIEWS`
    /// (the endpoint tests' processes) the process stops.
    static func viewChangeOutsideTransaction() {
        #if DEBUG
        if getenv("FRONTDOOR_TEST_STRICT_VIEWS") != nil {
            fatalError("a change to what an account view shows, outside a transaction")
        }
        #endif
    }

    /// The time the rate limits' windows count in: `now`, or `FRONTDOOR_TEST_LIMITS_NOW` (Unix
    /// seconds) when a test sets it, so that a test's count never straddles a window's edge
    /// whenever it runs, and a test that waits a window out moves this clock instead of sleeping.
    static func limitsNow(_ now: UnixTime) -> UnixTime {
        #if DEBUG
        if let text = getenv("FRONTDOOR_TEST_LIMITS_NOW").map({ String(cString: $0) }), let set = UnixTime(text) {
            return set
        }
        #endif
        return now
    }

    /// Appends `event` as a line to `$FRONTDOOR_TEST_NOTES`, when set (one write: lines from
    /// concurrent processes do not mix).
    static func note(_ event: String) {
        #if DEBUG
        guard let path = getenv("FRONTDOOR_TEST_NOTES").map({ String(cString: $0) }), !path.isEmpty else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        FileIO.writeAll(fd, Array((event + "\n").utf8))
        close(fd)
        #endif
    }
}
