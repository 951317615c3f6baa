import DevSupport
import Shared
import Testing

/// What the settings suites (rule 18) share: people signed in by each way, the `account`
/// actions, a session's recent sign-in moved into the past instead of waiting, and the mail the
/// person is told by.
struct SettingsWorld {
    let h: Harness
    /// The events receiver, when the world was made with `events: true`.
    let events: EventsFixture?

    static let password = "a password long enough"
    static let newPassword = "another password long enough"

    init(events withEvents: Bool = false, config extra: [(String, JSONValue)] = []) throws {
        h = try Harness()
        events = withEvents ? try EventsFixture(h) : nil
        try h.writeConfig(extra + (events.map { [$0.member] } ?? []))
    }

    /// A signed-in person: the session and its account.
    struct Person {
        let token: String
        let accountId: String
        let sessionId: String
        var bearer: String { "Bearer \(token)" }
    }

    static func person(_ answer: CGIAnswer, sourceLocation: SourceLocation = #_sourceLocation) throws -> Person {
        #expect(answer.status < 300, "\(answer.rawBody) \(answer.stderr)", sourceLocation: sourceLocation)
        return Person(
            token: try #require(answer.body["sessionToken"]?.stringValue, sourceLocation: sourceLocation),
            accountId: try #require(answer.body["accountId"]?.stringValue, sourceLocation: sourceLocation),
            sessionId: try #require(answer.body["sessionId"]?.stringValue, sourceLocation: sourceLocation))
    }

    /// A Google person; a gmail address is proven (Google speaks for it).
    func google(_ sub: String, email: String? = nil) throws -> Person {
        try Self.person(try h.signInGoogle(try h.google.token(sub: sub, email: email ?? "\(sub)@gmail.com")))
    }

    /// A password person whose typed address is not proven.
    func typed(_ email: String, password: String = SettingsWorld.password) throws -> Person {
        try Self.person(try h.register(email, password))
    }

    /// A password person who proved their address by code (`verify_own_email`).
    func proven(_ email: String, password: String = SettingsWorld.password) throws -> Person {
        let made = try typed(email, password: password)
        let own = try h.verify([("action", "verify_own_email")], authorization: made.bearer)
        let ticket = try #require(own.body["ticket"]?.stringValue, "\(own.rawBody)")
        #expect(try h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try #require(h.smtp.lastCode(to: email))
        let confirmed = try h.verify(
            [("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))], authorization: made.bearer)
        #expect(confirmed.body["reauthenticated"] == true, "\(confirmed.rawBody)")
        return made
    }

    /// `account` with `action` and the other members, as `person`.
    func account(_ action: String, _ members: [(String, JSONValue)] = [], as person: Person?) throws -> CGIAnswer {
        try h.run(
            "account", json: JSONValue.object([("action", .string(action))] + members).serialized,
            authorization: person?.bearer)
    }

    /// Moves the session's last real sign-in `seconds` into the past (past the 600 s default: not recent).
    func age(_ person: Person, by seconds: Int64 = 700) throws {
        try h.database().run(
            "UPDATE sessions SET signed_in_at = signed_in_at - ? WHERE session_id = ?",
            [.integer(seconds), .text(person.sessionId)])
    }

    func signedInAt(_ person: Person) throws -> Int64? {
        try h.database().query("SELECT signed_in_at FROM sessions WHERE session_id = ?", [.text(person.sessionId)])
            .first?.int(0)
    }

    /// Every row of every table but the key cache, for "nothing changed".
    func snapshot() throws -> [String] { try DeviceNameTests.snapshot(h) }

    /// The mails sent to `address`, oldest first.
    func mails(to address: String) -> [SMTPSink.Message] {
        h.smtp.messages.filter { $0.recipients.contains { $0.lowercased() == address.lowercased() } }
    }

    /// The 403 every sensitive action gives a session without a recent sign-in.
    static func expectReauthentication(
        _ answer: CGIAnswer, methods: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == 403, "\(answer.rawBody)", sourceLocation: sourceLocation)
        #expect(answer.errorCode == "reauthentication_required", sourceLocation: sourceLocation)
        #expect(
            answer.body["methods"]?.arrayValue?.compactMap(\.stringValue) == methods, "\(answer.rawBody)",
            sourceLocation: sourceLocation)
    }
}
