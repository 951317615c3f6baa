#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import FuzzTargets
import Shared
import Testing

/// Every checked-in seed (`Fuzz/corpus/<target>/`) and every input that once crashed a fuzz
/// target (`Fuzz/regressions/<target>/`) goes through the same code the fuzzers run. A crash
/// here is a crash of the test process: exactly what a regression must look like.
@Suite struct FuzzReplayTests {
    static let fuzzDir: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fuzz"
    }()

    @Test(arguments: FuzzTargets.names)
    func corpusAndRegressionsReplay(_ target: String) throws {
        let seeds = FuzzFiles.list(Self.fuzzDir + "/corpus/" + target)
        #expect(seeds.count >= 5, "the \(target) corpus is checked in")
        for path in seeds + FuzzFiles.list(Self.fuzzDir + "/regressions/" + target) {
            FuzzTargets.run(target, FuzzFiles.read(path))
        }
    }

    /// Writes the seed corpus when `FRONTDOOR_WRITE_FUZZ_SEEDS=1` (`make fuzz-seeds`); otherwise
    /// does nothing. Tokens are minted here so they carry real signatures and shapes.
    @Test func writeSeedsWhenAsked() throws {
        guard getenv("FRONTDOOR_WRITE_FUZZ_SEEDS").map({ String(cString: $0) }) == "1" else { return }
        let corpus = Self.fuzzDir + "/corpus/"
        for (name, bytes) in try FuzzSeeds.jws() { try FuzzFiles.write(corpus + "jws/" + name, bytes) }
        for (name, bytes) in try FuzzSeeds.jwks() { try FuzzFiles.write(corpus + "jwks/" + name, bytes) }
        for (name, bytes) in try FuzzSeeds.cgi() { try FuzzFiles.write(corpus + "cgi/" + name, bytes) }
        for (name, bytes) in try FuzzSeeds.cbor() { try FuzzFiles.write(corpus + "cbor/" + name, bytes) }
        for (name, bytes) in try FuzzSeeds.events() { try FuzzFiles.write(corpus + "events/" + name, bytes) }
    }
}

enum FuzzFiles {
    static func list(_ dir: String) -> [String] {
        guard let handle = opendir(dir) else { return [] }
        defer { closedir(handle) }
        var paths: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if !name.hasPrefix(".") { paths.append(dir + "/" + name) }
        }
        return paths.sorted()
    }

    static func read(_ path: String) -> [UInt8] { FileIO.readFile(path, limit: 1 << 20) ?? [] }

    static func write(_ path: String, _ bytes: [UInt8]) throws {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        _ = try ChildProcess.run("/bin/mkdir", arguments: ["-p", folder], environment: [:], workDir: "/tmp")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw FuzzSeeds.Failure() }
        FileIO.writeAll(fd, bytes)
        close(fd)
    }
}
