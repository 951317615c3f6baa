import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A directory under /tmp for one test, removed with everything in it when the test ends.
final class StoreTempDirectory {
    let path: String

    init() {
        var template = Array("/tmp/frontdoor-store-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: errno \(errno)")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var databasePath: String { path + "/frontdoor.sqlite3" }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}

/// Runs `body` with a fresh directory that lives exactly as long as the body.
func withStoreDirectory<T>(_ body: (StoreTempDirectory) throws -> T) rethrows -> T {
    let directory = StoreTempDirectory()
    return try withExtendedLifetime(directory) { try body(directory) }
}

/// Permission bits of a file, or nil when it does not exist.
func storeFileMode(_ path: String) -> UInt32? {
    var info = stat()
    return stat(path, &info) == 0 ? UInt32(info.st_mode & 0o777) : nil
}

/// Size of a file in bytes, or nil when it does not exist.
func storeFileSize(_ path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
}

/// Runs `body(i)` on `count` real threads at once and waits for all of them. Each thread opens its
/// own connection, which SQLite locks against the others just as it would another process.
func storeRunThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Job {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    var threads: [pthread_t] = []
    for i in 0..<count {
        let job = Unmanaged.passRetained(Job { body(i) }).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, job)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        threads.append(thread)
    }
    for thread in threads {
        pthread_join(thread, nil)
    }
}

/// Holds threads until all have arrived, so they really start together.
final class StoreStartLine: Sendable {
    private let arrived = Atomic<Int>(0)
    private let count: Int
    init(_ count: Int) { self.count = count }

    func wait() {
        arrived.add(1, ordering: .sequentiallyConsistent)
        while arrived.load(ordering: .sequentiallyConsistent) < count {
            sched_yield()
        }
    }
}

/// Collects results from several threads.
final class StoreCollector<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}
