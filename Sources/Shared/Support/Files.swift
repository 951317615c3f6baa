#if canImport(Glibc)
import Glibc
#endif

/// What durable file work needs beside `open`/`write`: the folder of a path, syncing a folder (so
/// a file made, renamed or removed in it survives a power cut), listing and copying. (Who owns
/// the files made beside the database: `StoreFiles`.)
public enum Files {
    /// The folder holding `path` ("." for a bare name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// The last component of `path`.
    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// fsync of a folder: the names made, renamed or removed in it reach the disk.
    public static func syncDirectory(_ dir: String) throws(FrontdoorError) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .internal("files: cannot open the folder \(dir) (errno \(errno))") }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else { throw .internal("files: fsync of the folder \(dir) failed (errno \(code))") }
    }

    /// fsync of a file by name.
    public static func sync(_ path: String) throws(FrontdoorError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .internal("files: cannot open \(path) (errno \(errno))") }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else { throw .internal("files: fsync of \(path) failed (errno \(code))") }
    }

    /// The names in a folder, `.` and `..` left out.
    public static func list(_ dir: String) throws(FrontdoorError) -> [String] {
        guard let stream = opendir(dir) else { throw .internal("files: cannot list \(dir) (errno \(errno))") }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Copies the file `from` to a new file `to` (mode 0600) and syncs it.
    public static func copy(_ from: String, to: String) throws(FrontdoorError) {
        let source = open(from, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw .internal("files: cannot open \(from) (errno \(errno))") }
        defer { close(source) }
        let target = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard target >= 0 else { throw .internal("files: cannot create \(to) (errno \(errno))") }
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        var failure: String?
        while failure == nil {
            let n = chunk.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { failure = "read \(from) (errno \(errno))" }
            if n <= 0 { break }
            if !writeAll(target, Array(chunk[0..<n])) { failure = "write \(to) (errno \(errno))" }
        }
        if failure == nil && fsync(target) != 0 { failure = "fsync \(to) (errno \(errno))" }
        if close(target) != 0 && failure == nil { failure = "close \(to) (errno \(errno))" }
        if let failure {
            unlink(to)
            throw .internal("files: cannot copy: \(failure)")
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes; false on any failure (errno says why).
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + offset, bytes.count - offset)
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Writes `bytes` to `path` under a temporary name, then renames it into place, so a reader
    /// (nginx) never sees half a file.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t) throws(FrontdoorError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .internal("cannot create \(temporary) (errno \(errno))") }
        let written = writeAll(fd, bytes) && fchmod(fd, mode) == 0
        let code = errno
        guard close(fd) == 0, written else {
            unlink(temporary)
            throw .internal("cannot write \(temporary) (errno \(code))")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .internal("cannot put \(path) in place (errno \(code))")
        }
    }
}
