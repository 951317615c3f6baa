import Foundation
import Testing

/// An app's package adds this repository by URL at a version, as Xcode does, and builds with
/// `FrontdoorClient` alone. SwiftPM refuses a product of a versioned dependency whose targets set
/// unsafe flags ("the target … in product … contains unsafe build flags"; path and branch
/// dependencies are exempt, so a path dependency would prove less). The repository here is this
/// tree's files committed to a git repository of its own and tagged, reached by a `file://` URL:
/// nothing leaves the machine.
@Suite struct DependencyPackageTests {
    @Test func aVersionedDependencyBuildsWithTheClientAndNoneOfTheServersLibraries() throws {
        let work = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let root = TypoVectorTests.root
        let repository = work + "/frontdoor"
        try Self.shell("""
            mkdir -p '\(repository)' && cd '\(root)' && \
            git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C '\(repository)' && \
            cd '\(repository)' && git init -q && git add -A && \
            git -c user.name=test -c user.email=test@localhost commit -qm release && git tag 1.0.0
            """)
        let app = work + "/app"
        try FileManager.default.createDirectory(atPath: app + "/Sources/app", withIntermediateDirectories: true)
        try """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "app",
                dependencies: [.package(url: "file://\(repository)", from: "1.0.0")],
                targets: [
                    .executableTarget(name: "app", dependencies: [.product(name: "FrontdoorClient", package: "frontdoor")]),
                ]
            )
            """.write(toFile: app + "/Package.swift", atomically: true, encoding: .utf8)
        try """
            import Foundation
            import FrontdoorClient

            let client = Frontdoor(baseURL: URL(string: "https://example.com/auth")!)
            print(Nonce().hashed.utf8.count, AddressCheck.suggestion(for: "ada@gmial.com") ?? "-",
                  FrontdoorError.rateLimited(retryAfter: 5).code ?? "-", try client.storedSession() == nil)
            """.write(toFile: app + "/Sources/app/main.swift", atomically: true, encoding: .utf8)
        let built = try Self.shell("cd '\(app)' && swift build --scratch-path '\(work)/app-build' 2>&1")
        #expect(built.status == 0, "\(built.output)")
        let binary = work + "/app-build/debug/app"
        let ran = try Self.shell("'\(binary)'")
        #expect(ran.output == "64 ada@gmail.com rate_limited true\n", "\(ran.output)")
        // None of the server's C libraries came along: no OpenSSL, SQLite or libsodium symbol.
        let symbols = try Self.shell("nm '\(binary)' | grep -cE ' (EVP_|OPENSSL_|sqlite3_|sodium_|crypto_pwhash)' || true")
        #expect(symbols.output == "0\n", "\(symbols.output)")
    }

    static func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "frontdoor-client-dependency-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @discardableResult
    static func shell(_ command: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if process.terminationStatus != 0, !command.contains("swift build") {
            throw ShellError(description: "\(command): exit \(process.terminationStatus): \(text)")
        }
        return (process.terminationStatus, text)
    }

    struct ShellError: Error, CustomStringConvertible {
        let description: String
    }
}
