#if canImport(Glibc)
import Glibc
#endif

/// A whole file mapped read-only, for reading a few of its pages without reading it all: the
/// kernel brings in only the pages touched. The file descriptor is closed as soon as the mapping
/// exists (the mapping keeps the file); the mapping goes with the object. Read-only and never
/// changed after `init`, so it may be shared between threads.
public final class MappedFile: @unchecked Sendable {
    public let size: Int
    private let base: UnsafeRawPointer

    /// Why a file could not be mapped: the path's failing call and its errno text.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(path: String) throws(MappedFile.Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "cannot be opened (\(Self.errorText()))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(description: "cannot be read (\(Self.errorText()))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "is not a regular file") }
        // mmap refuses a length of 0; an empty file is simply too short for any reader.
        guard info.st_size > 0, let size = Int(exactly: info.st_size) else { throw Failure(description: "is empty") }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw Failure(description: "cannot be mapped (\(Self.errorText()))")
        }
        self.size = size
        base = UnsafeRawPointer(mapped)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), size)
    }

    /// The little-endian unsigned integer of `T`'s width at `offset`; nil past the end.
    public func littleEndian<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, at offset: Int) -> T? {
        guard offset >= 0, offset <= size - MemoryLayout<T>.size else { return nil }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// `count` bytes from `offset`; nil past the end.
    public func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size - count else { return nil }
        return Array(UnsafeRawBufferPointer(start: base + offset, count: count))
    }

    /// The SHA-256 of the whole file, read through the mapping.
    func sha256() throws(FrontdoorError) -> [UInt8] { try SHA256.digest(base: base, count: size) }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
