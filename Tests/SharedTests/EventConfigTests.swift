#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

/// The `events` section: defaults, and every refusal naming its key.
@Suite struct EventConfigTests {
    static let goodSecret = "frontdoor-events-secret-for-config-tests-01"

    func withSecret<T>(_ text: String, mode: mode_t = 0o600, _ body: (String) throws -> T) throws -> T {
        try withStoreDirectory { dir in
            let path = dir.path + "/events-secret"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
            FileIO.writeAll(fd, Array(text.utf8))
            close(fd)
            return try body(path)
        }
    }

    func config(_ events: String) throws(ConfigError) -> Config {
        try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3", "events": \#(events)}"#.utf8))
    }

    func expectKey(_ key: String, _ events: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try config(events)
            Issue.record("accepted events \(events)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func defaultsAndTheSecretWithOneNewlineRemoved() throws {
        try withSecret(Self.goodSecret + "\n") { path in
            let events = try #require(try config(#"{"url": "https://app.example.com/hooks/", "secretFile": "\#(path)"}"#).events)
            #expect(events.url == "https://app.example.com/hooks/")
            #expect(events.secret == Array(Self.goodSecret.utf8))
            #expect(events.timeoutSeconds == 5)
            #expect(events.retryAfterSeconds == 60)
            #expect(events.retryMaxSeconds == 3600)
            #expect(events.retainSeconds == 7 * 86_400)
            let whole = try config(#"{"url": "https://app.example.com/hooks", "secretFile": "\#(path)"}"#)
            #expect(whole.secretFiles.contains { $0.key == "events.secretFile" && $0.path == path })
            #expect(whole.outboundURLs.contains { $0.key == "events.url" })
        }
        // Only one newline goes: a second is part of the secret, and a control character is refused.
        try withSecret(Self.goodSecret + "\n\n") { path in
            expectKey("events.secretFile", #"{"url": "https://a.example/h", "secretFile": "\#(path)"}"#)
        }
        #expect(try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3"}"#.utf8)).events == nil)
    }

    @Test func everyRefusalNamesItsKey() throws {
        try withSecret(Self.goodSecret) { (path: String) throws in
            let file = #""secretFile": "\#(path)""#
            expectKey("events.url", "{\(file)}")
            expectKey("events.url", #"{"url": "http://app.example.com/hooks", \#(file)}"#)
            expectKey("events.url", #"{"url": "smtps://mail.example.com", \#(file)}"#)
            expectKey("events.secretFile", #"{"url": "https://a.example/h"}"#)
            expectKey("events.secretFile", #"{"url": "https://a.example/h", "secretFile": "/nonexistent/secret"}"#)
            expectKey("events.timeoutSeconds", #"{"url": "https://a.example/h", \#(file), "timeoutSeconds": 0}"#)
            expectKey("events.retryAfterSeconds", #"{"url": "https://a.example/h", \#(file), "retryAfterSeconds": 0}"#)
            expectKey("events.retryMaxSeconds",
                      #"{"url": "https://a.example/h", \#(file), "retryAfterSeconds": 120, "retryMaxSeconds": 60}"#)
            expectKey("events.retainSeconds", #"{"url": "https://a.example/h", \#(file), "retainSeconds": 10}"#)
            expectKey("events.retainSeconds", #"{"url": "https://a.example/h", \#(file), "retainSeconds": 600}"#)
            expectKey("events.colour", #"{"url": "https://a.example/h", \#(file), "colour": "blue"}"#)
            expectKey("processLifetimeSeconds", #"{"url": "https://a.example/h", \#(file), "timeoutSeconds": 30}"#)
            // Loopback over plain HTTP is where a development receiver lives.
            #expect(try config(#"{"url": "http://127.0.0.1:9/events", \#(file)}"#).events?.url == "http://127.0.0.1:9/events")
        }
        try withSecret("too short\n") { path in
            expectKey("events.secretFile", #"{"url": "https://a.example/h", "secretFile": "\#(path)"}"#)
        }
        try withSecret(Self.goodSecret + "\u{7}") { path in
            expectKey("events.secretFile", #"{"url": "https://a.example/h", "secretFile": "\#(path)"}"#)
        }
    }
}
