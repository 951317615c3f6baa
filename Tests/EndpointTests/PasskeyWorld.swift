import DevSupport
import Shared
import Testing

/// A harness with a `passkeys` section, people signed in with Google, and the two passkey
/// endpoints driven by the software authenticator (rule 17).
struct PasskeyWorld {
    static let rpId = "example.com"
    static let origin = "https://example.com"
    /// The docs' example key: `android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU`.
    static let playKey = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    static let androidOrigin = "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU"

    let h: Harness

    static var section: (String, JSONValue) {
        ("passkeys", .object([
            ("rpId", .string(rpId)), ("rpName", "Example"),
            ("androidApps", .array([.object([("package", "com.example.app"), ("certSha256", .array([.string(playKey)]))])])),
            ("iosAppIds", .array(["ABCDE12345.com.example.app"])),
        ]))
    }

    init(config extra: [(String, JSONValue)] = []) throws {
        h = try Harness()
        try h.writeConfig([Self.section] + extra)
    }

    /// Passkeys in another world's harness, whose config already has `section`.
    init(on h: Harness) {
        self.h = h
    }

    struct Person {
        let accountId: String
        let session: String
        var bearer: String { "Bearer \(session)" }
    }

    /// A Google person (a gmail address: proven), signed in.
    func person(_ sub: String) throws -> Person {
        let answer = try h.signInGoogle(try h.google.token(sub: sub, email: "\(sub)@gmail.com"))
        #expect(answer.status == 200, "\(answer.rawBody)")
        return Person(
            accountId: try #require(answer.body["accountId"]?.stringValue),
            session: try #require(answer.body["sessionToken"]?.stringValue))
    }

    func passkey(_ body: [(String, JSONValue)], _ person: Person?) throws -> CGIAnswer {
        try h.run("passkey", json: JSONValue.object(body).serialized, authorization: person?.bearer)
    }

    func signIn(_ body: [(String, JSONValue)]) throws -> CGIAnswer {
        try h.run("signin-passkey", json: JSONValue.object(body).serialized)
    }

    /// A request from the client at `address` (`REMOTE_ADDR`), which the per-client limits count by.
    func run(_ endpoint: String, _ body: [(String, JSONValue)], _ person: Person? = nil, from address: String) throws
        -> CGIAnswer
    {
        try h.run(
            endpoint, body: Array(JSONValue.object(body).serialized.utf8), authorization: person?.bearer,
            extraEnvironment: ["REMOTE_ADDR": address])
    }

    struct Begun {
        let ceremonyId: String
        let challenge: [UInt8]
        let userHandle: [UInt8]?
        let options: JSONValue
    }

    func registerBegin(_ person: Person) throws -> Begun {
        let answer = try passkey([("action", "register_begin")], person)
        #expect(answer.status == 200, "\(answer.rawBody)")
        return try begun(answer)
    }

    func signInBegin() throws -> Begun {
        let answer = try signIn([("action", "begin")])
        #expect(answer.status == 200, "\(answer.rawBody)")
        return try begun(answer)
    }

    private func begun(_ answer: CGIAnswer) throws -> Begun {
        let publicKey = try #require(answer.body["publicKey"])
        return Begun(
            ceremonyId: try #require(answer.body["ceremonyId"]?.stringValue),
            challenge: try #require(publicKey["challenge"]?.stringValue.flatMap(Base64URL.decode)),
            userHandle: publicKey["user"]?["id"]?.stringValue.flatMap(Base64URL.decode), options: publicKey)
    }

    func registerFinish(_ person: Person, _ begun: Begun, _ credential: JSONValue, name: String? = nil) throws -> CGIAnswer {
        var body: [(String, JSONValue)] = [
            ("action", "register_finish"), ("ceremonyId", .string(begun.ceremonyId)), ("credential", credential),
        ]
        if let name { body.append(("name", .string(name))) }
        return try passkey(body, person)
    }

    /// Registers `authenticator` for `person`: the passkey's id and the account's user handle.
    func register(
        _ authenticator: SoftwareAuthenticator, for person: Person, origin: String = PasskeyWorld.origin
    ) throws -> (passkeyId: String, userHandle: [UInt8]) {
        let begun = try registerBegin(person)
        let response = try authenticator.register(challenge: begun.challenge, rpId: Self.rpId, origin: origin)
        let answer = try registerFinish(person, begun, SoftwareAuthenticator.json(response), name: "My phone")
        #expect(answer.status == 200, "\(answer.rawBody)")
        return (try #require(answer.body["passkeyId"]?.stringValue), try #require(begun.userHandle))
    }

    func signInFinish(_ begun: Begun, _ credential: JSONValue, deviceName: String? = nil) throws -> CGIAnswer {
        var body: [(String, JSONValue)] = [
            ("action", "finish"), ("ceremonyId", .string(begun.ceremonyId)), ("credential", credential),
        ]
        if let deviceName { body.append(("deviceName", .string(deviceName))) }
        return try signIn(body)
    }

    /// A whole sign-in with `authenticator`, whose account's handle is `userHandle`.
    func signInWith(
        _ authenticator: SoftwareAuthenticator, userHandle: [UInt8]?, spoil: SoftwareAuthenticator.Spoil = .init(),
        origin: String = PasskeyWorld.origin
    ) throws -> CGIAnswer {
        let begun = try signInBegin()
        let response = try authenticator.assert(
            challenge: begun.challenge, rpId: Self.rpId, origin: origin, userHandle: userHandle, spoil: spoil)
        return try signInFinish(begun, SoftwareAuthenticator.json(response))
    }

    /// Every row a passkey request may change, for "nothing changed".
    func snapshot() throws -> [String] {
        let db = try h.database()
        let hex = { (column: String) in TestStore.hex(column, db) }
        var rows: [String] = []
        for sql in [
            "SELECT \(hex("credential_id")), account_id, sign_count, backup_eligible, backup_state, last_used_at, counter_regressions, backup_changes FROM passkeys ORDER BY 1",
            "SELECT \(hex("token_hash")), account_id, expires_at FROM sessions ORDER BY 1",
            "SELECT kind, \(hex("key")), number, expires_at FROM ephemeral WHERE kind = 8 ORDER BY 2",
            "SELECT id, \(hex("passkey_handle")) FROM accounts ORDER BY 1",
            "SELECT count(*) FROM events",
        ] {
            rows += try db.query(sql).map { row in
                (0..<row.count).map { "\(row[$0])" }.joined(separator: "|")
            }
            rows.append("--")
        }
        return rows
    }
}
