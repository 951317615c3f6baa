#if canImport(Glibc)
import Glibc
#endif

/// The shipped list of common and breached passwords (`make deps` builds it: scripts/password-list),
/// mapped read-only so that a check touches three or four of its pages, not its megabyte.
///
/// The file, all integers little-endian:
///
///     "FDPWLST1"                      8 bytes
///     bits, descriptionBytes          UInt32 each: the index's width in bits, the description's length
///     count                           UInt64: how many fingerprints
///     description                     UTF-8: the sources, their versions and licences; zeros to a multiple of 8
///     index                           2^bits + 1 UInt32: where the fingerprints whose top `bits` bits
///                                     are b begin; the last is `count`; zeros to a multiple of 8
///     fingerprints                    `count` UInt64, ascending, each `PasswordKey.fingerprint`
///
/// A look-up reads two neighbouring index entries and searches the few dozen fingerprints
/// between them by bisection.
public final class PasswordList: Sendable {
    static let magic = Array("FDPWLST1".utf8)
    static let headerBytes = 24

    public let path: String
    /// The sources, as the file names them (what `frontdoor-check` prints).
    public let description: String
    public let count: Int
    let bits: Int
    let indexOffset: Int
    let fingerprintsOffset: Int
    private let file: MappedFile

    /// Why the list cannot be used.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(path: String) throws(PasswordList.Failure) {
        let file: MappedFile
        do {
            file = try MappedFile(path: path)
        } catch {
            throw Failure(description: "\(path) \(error)")
        }
        let bad = Failure(description: "\(path) is not a list of common passwords (run make deps, then make install)")
        guard file.size >= Self.headerBytes, file.bytes(at: 0, count: 8) == Self.magic,
            let bits = file.littleEndian(UInt32.self, at: 8), (4...20).contains(bits),
            let describedBytes = file.littleEndian(UInt32.self, at: 12), describedBytes <= 64 * 1024,
            let count = file.littleEndian(UInt64.self, at: 16), count <= 1 << 28,
            let described = file.bytes(at: Self.headerBytes, count: Int(describedBytes))
        else { throw bad }
        let indexOffset = Self.roundedUp(Self.headerBytes + Int(describedBytes))
        let fingerprintsOffset = Self.roundedUp(indexOffset + 4 * ((1 << Int(bits)) + 1))
        // The exact size: every offset below is then inside the mapping.
        guard file.size == fingerprintsOffset + 8 * Int(count) else { throw bad }
        self.path = path
        self.file = file
        self.bits = Int(bits)
        self.count = Int(count)
        self.indexOffset = indexOffset
        self.fingerprintsOffset = fingerprintsOffset
        description = String(decoding: described, as: UTF8.self)
    }

    private static func roundedUp(_ n: Int) -> Int { (n + 7) & ~7 }

    /// Whether the folded password's fingerprint is on the list.
    public func contains(_ folded: [Unicode.Scalar]) -> Bool {
        contains(fingerprint: PasswordKey.fingerprint(folded))
    }

    func contains(fingerprint: UInt64) -> Bool {
        let bucket = Int(fingerprint >> UInt64(64 - bits))
        guard let first = file.littleEndian(UInt32.self, at: indexOffset + 4 * bucket),
            let end = file.littleEndian(UInt32.self, at: indexOffset + 4 * (bucket + 1))
        else { return false }
        var low = Int(first)
        var high = min(Int(end), count)
        while low < high {
            let middle = (low + high) / 2
            guard let value = file.littleEndian(UInt64.self, at: fingerprintsOffset + 8 * middle) else { return false }
            if value == fingerprint { return true }
            if value < fingerprint { low = middle + 1 } else { high = middle }
        }
        return false
    }

    /// The whole file checked, as only `frontdoor-check` does: the index ascending and ending at
    /// `count`, each bucket's fingerprints ascending and of that bucket. nil when it is whole.
    public func damage() -> String? {
        var previous: UInt64? = nil
        var start = 0
        for bucket in 0..<(1 << bits) {
            guard let begin = file.littleEndian(UInt32.self, at: indexOffset + 4 * bucket),
                let end = file.littleEndian(UInt32.self, at: indexOffset + 4 * (bucket + 1)),
                Int(begin) == start, begin <= end, Int(end) <= count
            else { return "its index is out of order at bucket \(bucket)" }
            for i in Int(begin)..<Int(end) {
                guard let value = file.littleEndian(UInt64.self, at: fingerprintsOffset + 8 * i),
                    Int(value >> UInt64(64 - bits)) == bucket, previous.map({ $0 < value }) ?? true
                else { return "its entries are out of order at \(i)" }
                previous = value
            }
            start = Int(end)
        }
        return start == count ? nil : "its index ends at \(start) of \(count) entries"
    }

    /// Where the programs look when `passwords.listFile` is not set: beside the installed
    /// binaries, as `make install` lays them out (`PREFIX/libexec/frontdoor/<endpoint>` and
    /// `PREFIX/sbin/frontdoor-check` both find `PREFIX/share/frontdoor/common-passwords`).
    /// nil when this executable is not in such a layout.
    public static func installedPath(executable: String? = PasswordList.executablePath()) -> String? {
        guard let executable, let slash = executable.lastIndex(of: "/") else { return nil }
        let directory = String(executable[..<slash])
        for suffix in ["/libexec/frontdoor", "/sbin", "/bin"] where directory.hasSuffix(suffix) {
            return String(directory.dropLast(suffix.count)) + "/share/frontdoor/" + fileName
        }
        return nil
    }

    public static let fileName = "common-passwords"

    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
