#if canImport(Glibc)
import Glibc
#endif

/// A detached pthread running `body`; false when none could be started (`body` then never runs).
/// Both loopback fakes serve each connection on one, and count them themselves to wait in `stop()`.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    let box = Unmanaged.passRetained(ThreadBody(body))
    var thread: pthread_t = 0
    let started = pthread_create(&thread, nil, { context in
        guard let context else { return nil }
        Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
        return nil
    }, box.toOpaque())
    guard started == 0 else {
        box.release()
        return false
    }
    pthread_detach(thread)
    return true
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
