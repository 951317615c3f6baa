#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 23's world: an `AppleWorld` (direct mode unless told: Apple's keys fetched from the fake
/// Apple; relay mode reaches them through `apple.keysProxy` or not at all), the app's event
/// receiver, and the two receivers run as real CGI programs.
final class ProviderEventsWorld: @unchecked Sendable {
    let w: AppleWorld
    let events: EventsFixture
    var h: Harness { w.h }
    var apple: FakeApple { w.apple }
    var google: FakeGoogle { w.h.google }
    /// Syslog lines of the programs this world ran, read by `syslog`.
    let syslogPath: String

    /// `mode` "direct" (no Firebase) or "relay"; `apple` members replace the apple section's.
    init(mode: String = "direct", apple appleExtra: [(String, JSONValue)] = [], config extra: [(String, JSONValue)] = [])
        throws
    {
        w = try AppleWorld(mode: mode)
        events = try EventsFixture(w.h, settings: EventsFixture.quick)
        syslogPath = w.h.dir + "/programs-syslog.log"
        try writeConfig(apple: appleExtra, extra)
    }

    deinit {
        TestLogs.appendSyslog(FileIO.readFile(syslogPath) ?? [])
    }

    func writeConfig(apple appleExtra: [(String, JSONValue)] = [], _ extra: [(String, JSONValue)] = []) throws {
        var members: [(String, JSONValue)] = [events.member]
        let apple: [(String, JSONValue)] = [
            ("bundleIds", .array([.string(FakeApple.bundleId), "com.example.frontdoor.second"])),
            ("mode", .string(w.mode)), ("keysUrl", .string(w.apple.keysURL)),
        ]
        members.append(("apple", .object(apple.filter { a in !appleExtra.contains { $0.0 == a.0 } } + appleExtra.filter { !$0.1.isNull })))
        if w.mode == "direct" { members.append(("firebase", nil)) }
        try w.writeConfig(members + extra)
    }

    /// Apple's keys at an address this box cannot reach (a closed port, as Apple's IPv4-only host
    /// is from a box with only IPv6), which `proxy`, when given, reaches. The `apple` members for
    /// `writeConfig`.
    func appleOutOfReach(through proxy: FakeHTTPProxy? = nil) throws -> [(String, JSONValue)] {
        let unreachable = "http://127.0.0.1:\(try Stack.freePort())"
        proxy?.reach(unreachable, at: apple.server?.baseURL ?? "")
        return [("keysUrl", .string(unreachable + FakeApple.keysPath)), ("keysProxy", proxy.map { .string($0.url) } ?? nil)]
    }

    /// Apple's POST to `apple-notify`, run to its exit.
    func notify(_ token: String) throws -> CGIAnswer {
        try notify(body: FakeApple.notificationBody(token))
    }

    func notify(body: String, contentType: String? = "application/json") throws -> CGIAnswer {
        try h.run(
            "apple-notify", body: Array(body.utf8), contentType: contentType,
            extraEnvironment: ["FRONTDOOR_SYSLOG_FILE": syslogPath])
    }

    /// Google's push of a SET to `google-risc`.
    func risc(_ token: String, contentType: String? = "application/secevent+jwt") throws -> CGIAnswer {
        TestLogs.register(token)
        return try h.run(
            "google-risc", body: Array(token.utf8), contentType: contentType,
            extraEnvironment: ["FRONTDOOR_SYSLOG_FILE": syslogPath])
    }

    /// An Apple person signed in (direct mode), with their session.
    func appleSignedIn(_ sub: String, email: String? = nil) throws -> SignedIn {
        let answer = try w.signInNew(sub: sub, email: email)
        guard answer.status == 200, let token = answer.body["sessionToken"]?.stringValue,
            let accountId = answer.body["accountId"]?.stringValue, let sessionId = answer.body["sessionId"]?.stringValue
        else { throw HarnessError("Apple sign-in of \(sub) failed: \(answer.rawBody) \(answer.stderr)") }
        return SignedIn(token: token, accountId: accountId, sessionId: sessionId)
    }

    /// The events' rows (`Ephemeral.Kind.providerEvent`) as `provider jti type outcome repeats`.
    func rows() throws -> [String] {
        try Self.rows(h)
    }

    static func rows(_ h: Harness) throws -> [String] {
        try h.database().query(
            "SELECT key, value, note, number FROM ephemeral WHERE kind = ? ORDER BY since, key",
            [.integer(Ephemeral.Kind.providerEvent.rawValue)]
        ).map { row in
            let (provider, jti) = ProviderEventStore.provider(andJTI: row.blob(0) ?? []) ?? ("?", "?")
            return [provider, jti, row.blob(1).map { String(decoding: $0, as: UTF8.self) } ?? "?", row.text(2) ?? "?"]
                .joined(separator: " ") + " \(row.int(3) ?? -1)"
        }
    }

    func outcome(_ provider: String, _ jti: String) throws -> String? {
        guard let provider = ProviderEventStore.Provider(rawValue: provider) else { return nil }
        return try h.database().query(
            "SELECT note FROM ephemeral WHERE kind = ? AND key = ?",
            [.integer(Ephemeral.Kind.providerEvent.rawValue), .blob(ProviderEventStore.key(provider, jti: jti))]
        ).first?.text(0)
    }

    func sessions(of accountId: String) throws -> Int64 {
        try h.database().query("SELECT count(*) FROM sessions WHERE account_id = ?", [.text(accountId)]).first?.int(0) ?? -1
    }

    /// The outbox's types, with delivery after each answer: what was taken and what waits.
    func accountEvents(_ accountId: String) throws -> [String] {
        let waiting = try EventsFixture.waiting(h.database()).filter { $0["accountId"]?.stringValue == accountId }
        let taken = events.receiver.accepted.compactMap(\.body).filter { $0["accountId"]?.stringValue == accountId }
        return (taken + waiting).compactMap { $0["type"]?.stringValue }
    }

    var syslog: String { String(decoding: FileIO.readFile(syslogPath) ?? [], as: UTF8.self) }

    /// Every table's rows but the key cache's, for "nothing changed".
    func snapshot() throws -> [String] {
        let db = try h.database()
        var out: [String] = []
        for table in ["accounts", "identities", "sessions", "events", "provider_events", "deletion_audit", "apple_revocations"] {
            // The events' rows are a kind of `ephemeral`, named as the table they were.
            let kind = Ephemeral.Kind.allCases.first { $0.name == table }
            let sql = kind.map { "SELECT * FROM ephemeral WHERE kind = \($0.rawValue)" } ?? "SELECT * FROM \(table)"
            for row in try db.query(sql) {
                out.append(table + ": " + (0..<row.count).map { "\(row[$0])" }.joined(separator: "|"))
            }
        }
        return out.sorted()
    }
}
