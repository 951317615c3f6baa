#if canImport(Glibc)
import Glibc
#endif

/// Puts a program into the page cache the way its execs fault least (docs/performance.md, "The
/// page cache"). Its cached pages are dropped, then read again through a shared mapping marked
/// for huge pages: the kernel then holds the file in 2 MiB folios where its file system allows
/// (ext4 on 6.18 does), and since the release link aligns the code to 2 MiB, a process's first
/// touch of such a piece maps all of it. Elsewhere it is a plain read of the file.
public enum PageCache {
    /// Why a file could not be settled: the failing step and its errno text.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    // Linux 5.14 (asm-generic/mman-common.h); Glibc's headers may predate it.
    private static let populateRead: Int32 = 22

    public static func settle(path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot be opened") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot be read") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "is not a regular file") }
        guard info.st_size > 0, let size = Int(exactly: info.st_size) else { return }
        // Written pages not yet on disk cannot be dropped: a file a build or install just wrote.
        guard fdatasync(fd) == 0 else { throw failure("cannot be flushed") }
        let dropped = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        guard dropped == 0 else { throw Failure(description: "cannot be dropped (\(errorText(dropped)))") }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw failure("cannot be mapped")
        }
        defer { munmap(mapped, size) }
        // EINVAL: a kernel without transparent huge pages, which reads it in small pieces anyway.
        guard madvise(mapped, size, MADV_HUGEPAGE) == 0 || errno == EINVAL else { throw failure("cannot be marked") }
        if madvise(mapped, size, populateRead) == 0 { return }
        // EINVAL: older than 5.14, whose page cache holds ext4 files in small pieces: read it.
        guard errno == EINVAL else { throw failure("cannot be read in") }
        try readThrough(fd, size: size)
    }

    private static func readThrough(_ fd: Int32, size: Int) throws(Failure) {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < size {
            let count = pread(fd, buffer, min(chunk, size - offset), off_t(offset))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw count == 0 ? Failure(description: "ended early") : failure("cannot be read") }
            offset += count
        }
    }

    private static func failure(_ what: String) -> Failure { Failure(description: "\(what) (\(errorText(errno)))") }

    private static func errorText(_ number: Int32) -> String { String(cString: strerror(number)) }
}
