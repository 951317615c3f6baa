// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "frontdoor",
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSystem"),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .target(
            name: "Shared",
            dependencies: ["COpenSSL", "CSQLite", "CCurl", "CSystem", "CSodium"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "signin-google", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "sign-out", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "signin-email", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "verify-email", dependencies: ["Shared"], swiftSettings: swiftSettings),
        // Loopback stand-ins for Google and friends: used by the tests and by `make run`, never deployed.
        .target(name: "DevSupport", dependencies: ["Shared", "COpenSSL"], swiftSettings: swiftSettings),
        .executableTarget(name: "frontdoor-dev", dependencies: ["DevSupport", "Shared"], swiftSettings: swiftSettings),
        .testTarget(name: "SharedTests", dependencies: ["Shared", "DevSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "EndpointTests", dependencies: ["Shared", "DevSupport"], swiftSettings: swiftSettings),
    ]
)
