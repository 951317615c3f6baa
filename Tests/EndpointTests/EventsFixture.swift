#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared

/// The app's side of account events in a test: a secret file beside the test's database (and
/// registered for the log scan), a fake receiver holding the same secret, and the config section.
final class EventsFixture: @unchecked Sendable {
    let secretPath: String
    let secret: [UInt8]
    let receiver: FakeEventReceiver
    let settings: [(String, JSONValue)]

    /// `settings`: events keys besides url and secretFile (short retries, say).
    init(_ h: Harness, settings: [(String, JSONValue)] = []) throws {
        secretPath = h.dir + "/events-secret"
        let text = "test-events-secret-" + Hex.encode(try SecureRandom.bytes(16))
        try h.writeText(secretPath, text + "\n")
        secret = Array(text.utf8)
        TestLogs.register(text)
        receiver = try FakeEventReceiver(secret: secret)
        self.settings = settings
    }

    deinit { receiver.stop() }

    /// The `events` member of the config.
    var member: (String, JSONValue) {
        ("events", .object([("url", .string(receiver.url)), ("secretFile", .string(secretPath))] + settings))
    }

    /// Retries within a test's patience: a second's wait doubling to two, attempts of a second.
    static let quick: [(String, JSONValue)] = [("timeoutSeconds", 1), ("retryAfterSeconds", 1), ("retryMaxSeconds", 2)]

    /// What the receiver took, in order, as `type accountId providers[ provider]`.
    var taken: [String] { receiver.accepted.map(Self.line) }

    static func line(_ delivery: FakeEventReceiver.Delivery) -> String {
        line(delivery.body ?? .null)
    }

    static func line(_ body: JSONValue) -> String {
        let providers = body["providers"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? "?"
        return "\(body["type"]?.stringValue ?? "?") \(body["accountId"]?.stringValue ?? "?") [\(providers)]"
            + (body["provider"]?.stringValue.map { " " + $0 } ?? "")
    }

    /// The outbox's bodies, oldest first.
    static func waiting(_ db: Database) throws -> [JSONValue] {
        try db.query("SELECT body FROM events ORDER BY seq").map { try JSONParser.parse(Array(($0.text(0) ?? "").utf8)) }
    }
}
