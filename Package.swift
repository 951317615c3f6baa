// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The SQLite archive `make deps` builds (scripts/sqlite-deps, docs/sqlite.md): a fixed version
/// from Debian's source package, instead of Debian 12's libsqlite3.a, which has the WAL-reset bug.
let sqliteArchive = Context.packageDirectory + "/.build/sqlite/current/lib/libsqlite3.a"
/// libcurl as `make deps` builds it (scripts/curl-deps): static, so that a static program resolves
/// names, starts threads and speaks TLS with its one C library (docs/speed.md).
let curlArchive = Context.packageDirectory + "/.build/curl/current/lib/libcurl.a"

let package = Package(
    name: "frontdoor",
    // Only the client has Apple platforms to run on: async URLSession, passkeys (docs/clients.md).
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        // What an iPhone app adds by the repository's URL: the client alone. Its target depends on
        // nothing outside the toolchain and sets no unsafe flags, which SwiftPM refuses in a
        // product a versioned dependency uses (Shared's linker flags are in no product).
        .library(name: "FrontdoorClient", targets: ["FrontdoorClient"]),
    ],
    targets: [
        // Headers from libssl-dev, and SQLite's from `make deps` (shim.h); no pkgConfig, whose
        // `-lcrypto` would bring the shared library back in beside the archive Shared links (below).
        .systemLibrary(name: "COpenSSL"),
        .systemLibrary(name: "CSQLite"),
        .systemLibrary(name: "CSystem"),
        // The static libcurl of `make deps` (scripts/curl-deps): its header here, its archive below.
        .systemLibrary(name: "CCurl"),
        // argv for the Swift runtime without its start-up read of /proc/self/maps (arguments.c).
        .target(name: "CStartup"),
        // libsodium-dev's headers; its archive is linked into Shared below, like libcrypto's.
        .systemLibrary(name: "CSodium"),
        // Tests only, armed at run time in debug builds: holds a process between a transaction's two commits (SessionFile).
        .target(name: "CCommitPause"),
        .target(
            name: "Shared",
            dependencies: ["COpenSSL", "CSQLite", "CCurl", "CSystem", "CSodium", "CStartup", "CCommitPause"],
            swiftSettings: swiftSettings,
            // Debian's -dev packages ship the archives, and `make deps` builds SQLite's: linked in,
            // they cost no loading or symbol binding at start-up. The module maps have no `link`
            // line, so the shared libraries are not asked for as well.
            linkerSettings: [.unsafeFlags([
                "-Xlinker", curlArchive, "-Xlinker", "-l:libssl.a", "-Xlinker", "-l:libcrypto.a", "-Xlinker", sqliteArchive,
                "-Xlinker", "-l:libsodium.a",
            ])]
        ),
        .executableTarget(name: "signin-google", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "signin-apple", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "sign-out", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "signin-email", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "verify-email", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "delete-account", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "session", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "account", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "apple-notify", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "google-risc", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "signin-passkey", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "passkey", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "kit-return", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "frontdoor-check", dependencies: ["Shared"], swiftSettings: swiftSettings),
        .executableTarget(name: "frontdoor-admin", dependencies: ["Shared"], swiftSettings: swiftSettings),
        // make bench's PostgreSQL probe: one SELECT through the store's client, as a CGI program.
        .executableTarget(name: "pg-probe", dependencies: ["Shared"], swiftSettings: swiftSettings),
        // The example route of the app behind frontdoor's nginx snippet (make run, tests, bench); links nothing of ours.
        .executableTarget(name: "frontdoor-whoami", swiftSettings: swiftSettings),
        // Loopback stand-ins for Google and friends: used by the tests and by `make run`, never deployed.
        .target(name: "DevSupport", dependencies: ["Shared", "COpenSSL", "CSystem"], swiftSettings: swiftSettings),
        .executableTarget(name: "frontdoor-dev", dependencies: ["DevSupport", "Shared"], swiftSettings: swiftSettings),
        // What the libFuzzer targets do with an input; replayed over the corpus by SharedTests.
        .target(name: "FuzzTargets", dependencies: ["Shared"], swiftSettings: swiftSettings),
        // Stubs in the ordinary build; `make fuzz` builds them with -DFUZZING and libFuzzer (scripts/fuzz).
        .executableTarget(name: "fuzz-jws", dependencies: ["FuzzTargets"], path: "Fuzz/Sources/fuzz-jws"),
        .executableTarget(name: "fuzz-jwks", dependencies: ["FuzzTargets"], path: "Fuzz/Sources/fuzz-jwks"),
        .executableTarget(name: "fuzz-cgi", dependencies: ["FuzzTargets"], path: "Fuzz/Sources/fuzz-cgi"),
        .executableTarget(name: "fuzz-cbor", dependencies: ["FuzzTargets"], path: "Fuzz/Sources/fuzz-cbor"),
        .executableTarget(name: "fuzz-events", dependencies: ["FuzzTargets"], path: "Fuzz/Sources/fuzz-events"),
        // The iPhone app's client library (docs/clients.md): Foundation and URLSession only; its
        // Apple-only files (Sources/FrontdoorClient/Apple) compile on Apple's platforms alone.
        .target(name: "FrontdoorClient", swiftSettings: swiftSettings),
        // Tests only: a VFS that holds a checkpoint where the WAL-reset bug needs it (WALResetRaceTests).
        .target(name: "CSQLitePause"),
        .testTarget(
            name: "SharedTests", dependencies: ["Shared", "DevSupport", "FuzzTargets", "CSQLitePause"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "EndpointTests", dependencies: ["Shared", "DevSupport", "FrontdoorClient"], swiftSettings: swiftSettings),
        .testTarget(name: "FrontdoorClientTests", dependencies: ["FrontdoorClient", "Shared"], swiftSettings: swiftSettings),
    ]
)
