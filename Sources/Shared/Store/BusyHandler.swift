import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A busy handler that retries a lock quickly. SQLite's own (`sqlite3_busy_timeout`) sleeps up to
/// 100 ms at a time, far longer than our transactions hold the lock, and those sleeps dominate p99
/// when many processes share the file. This one sleeps 100 µs, doubling to at most 2 ms, and gives
/// up once the lock event has lasted the connection's timeout; SQLite then returns SQLITE_BUSY.
struct BusyHandler: ~Copyable {
    /// The handler's per-connection state, at a fixed address so it can be SQLite's context pointer.
    struct State {
        var timeoutNanos: Int64
        var startNanos: Int64
    }

    static let firstDelayNanos: Int64 = 100_000
    static let maxDelayNanos: Int64 = 2_000_000

    let state: UnsafeMutablePointer<State>

    init(timeoutMillis: Int) {
        state = .allocate(capacity: 1)
        state.initialize(to: State(timeoutNanos: Int64(max(0, timeoutMillis)) * 1_000_000, startNanos: 0))
    }

    /// Must outlive the connection: call only after sqlite3_close.
    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    func install(on db: OpaquePointer) throws(FrontdoorError) {
        let rc = sqlite3_busy_handler(db, busyBackOff, UnsafeMutableRawPointer(state))
        guard rc == SQLITE_OK else { throw SQLiteError.make(db, "busy_handler", rc) }
    }
}

// No captures: SQLite calls it as a C function pointer, with the state as context.
private func busyBackOff(_ context: UnsafeMutableRawPointer?, _ count: Int32) -> Int32 {
    guard let state = context?.assumingMemoryBound(to: BusyHandler.State.self) else { return 0 }
    let now = monotonicNanos()
    // `count` restarts at 0 for every new lock event, which is what the timeout measures.
    if count == 0 { state.pointee.startNanos = now }
    let remaining = state.pointee.timeoutNanos - (now - state.pointee.startNanos)
    guard remaining > 0 else { return 0 }
    let delay = min(BusyHandler.firstDelayNanos << Int64(min(count, 16)), BusyHandler.maxDelayNanos, remaining)
    var request = timespec(tv_sec: 0, tv_nsec: Int(delay))
    var left = timespec()
    while nanosleep(&request, &left) != 0 && errno == EINTR {
        request = left
    }
    return 1
}

private func monotonicNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
