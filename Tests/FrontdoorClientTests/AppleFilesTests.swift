import Foundation
import Testing

/// The Apple-only files (Keychain, Sign in with Apple, passkey sheets): Linux has neither
/// AuthenticationServices nor Security, so they are type-checked against test-only declarations
/// of exactly the Apple APIs they use (Tests/AppleStubs, from Apple's documentation;
/// scripts/apple-stubs-check), where a wrong name or type fails, and a deliberate type error in a
/// copy must fail too. Each is wholly inside its `#if canImport(...)`.
@Suite struct AppleFilesTests {
    static let folder = TypoVectorTests.root + "/Sources/FrontdoorClient/Apple"

    static func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }.sorted()
    }

    @Test func eachFileIsOnlyForApplesPlatforms() throws {
        let files = try Self.files()
        #expect(files.count >= 4)
        for file in files {
            let text = try String(contentsOfFile: Self.folder + "/" + file, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.first?.hasPrefix("#if canImport(") == true, "\(file)")
            #expect(lines.last == "#endif", "\(file)")
        }
    }

    @Test func swiftcParsesEachFile() throws {
        let swiftc = try #require(Self.swiftc(), "no swiftc beside the test's toolchain")
        for file in try Self.files() {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: swiftc)
            process.arguments = ["-parse", Self.folder + "/" + file]
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let output = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(file): \(String(decoding: output, as: UTF8.self))")
        }
    }

    @Test func theyTypeCheckAgainstTheStubsOfApplesAPIs() throws {
        let swiftc = try #require(Self.swiftc(), "no swiftc beside the test's toolchain")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TypoVectorTests.root + "/scripts/apple-stubs-check")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (swiftc as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
        #expect(said.contains("a deliberate type error fails"), "\(said)")
    }

    static func swiftc() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
        for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/swiftc") {
            return dir + "/swiftc"
        }
        return nil
    }
}
