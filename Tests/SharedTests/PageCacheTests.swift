#if canImport(Glibc)
import Glibc
#endif
import Shared
import Testing

/// `frontdoor-check --settle`: what it leaves in the page cache. Its effect on execs is measured,
/// not asserted (docs/performance.md, "The page cache").
@Suite struct PageCacheTests {
    private let folder: String

    init() throws {
        var template = Array("/tmp/frontdoor-pagecache-XXXXXX".utf8CString)
        folder = String(cString: try #require(mkdtemp(&template)))
    }

    private func removeFolder() {
        for name in ["dropped", "written", "empty"] { unlink(folder + "/" + name) }
        rmdir(folder)
    }

    private func write(_ name: String, bytes: [UInt8]) throws -> String {
        let path = folder + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
        return path
    }

    private func content(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            try #require(count >= 0)
            if count == 0 { return all }
            all += buffer[0..<count]
        }
    }

    /// Pages of the file in the page cache, and how many it has.
    private func resident(_ path: String) throws -> (cached: Int, pages: Int) {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var info = stat()
        try #require(fstat(fd, &info) == 0)
        let size = Int(info.st_size)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = try #require(mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0))
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, size) }
        var vector = [UInt8](repeating: 0, count: (size + page - 1) / page)
        try #require(mincore(mapped, size, &vector) == 0)
        return (vector.filter { $0 & 1 == 1 }.count, vector.count)
    }

    private func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) } }

    @Test func aDroppedFileIsReadBackWhole() throws {
        defer { removeFolder() }
        let bytes = pattern(3 << 20 + 4321)
        let path = try write("dropped", bytes: bytes)
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        #expect(fdatasync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
        close(fd)
        #expect(try resident(path).cached == 0, "the test's own drop did not take")
        try PageCache.settle(path: path)
        let after = try resident(path)
        #expect(after.cached == after.pages)
        #expect(try content(path) == bytes)
    }

    @Test func aFileJustWrittenIsFlushedAndKept() throws {
        defer { removeFolder() }
        let bytes = pattern(1 << 20)
        let path = try write("written", bytes: bytes)
        try PageCache.settle(path: path)
        let after = try resident(path)
        #expect(after.cached == after.pages)
        #expect(try content(path) == bytes)
        // An empty file has nothing to read and is no failure.
        try PageCache.settle(path: try write("empty", bytes: []))
    }

    @Test func failuresNameTheirReason() throws {
        defer { removeFolder() }
        #expect(throws: PageCache.Failure.self) { try PageCache.settle(path: folder + "/missing") }
        do {
            try PageCache.settle(path: folder + "/missing")
        } catch {
            #expect(error.description == "cannot be opened (No such file or directory)")
        }
        do {
            try PageCache.settle(path: folder)
            Issue.record("a folder was settled")
        } catch {
            #expect(error.description == "is not a regular file")
        }
    }
}
