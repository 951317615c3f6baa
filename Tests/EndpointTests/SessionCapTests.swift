import DevSupport
import Shared
import Testing

/// Issue 19, item 4: `sessions.maxLifetimeSeconds` configured after a session was made (its stored
/// expiry lies past the cap) is enforced by every endpoint that takes a bearer, not only by
/// `session`: each gives the session check's one verdict.
@Suite struct SessionCapTests {
    /// An endpoint that takes a bearer, and a request that changes something when admitted.
    struct Bearer: CustomTestStringConvertible, Sendable {
        let endpoint: String
        let body: String
        var testDescription: String { endpoint }
    }

    static let endpoints = [
        Bearer(endpoint: "session", body: ""),
        Bearer(endpoint: "account", body: #"{"action":"update","name":"Ada"}"#),
        Bearer(endpoint: "sign-out", body: "{}"),
        Bearer(endpoint: "delete-account", body: "{}"),
        Bearer(endpoint: "verify-email", body: #"{"action":"verify_own_email"}"#),
    ]

    static let capped: [(String, JSONValue)] = [
        ("sessionLifetimeSeconds", 1000),
        ("sessions", .object([("renewAfterSeconds", 600), ("maxLifetimeSeconds", 300)])),
    ]

    /// A password account (so `verify_own_email` has an address to verify) and its session.
    func signedUp(_ h: Harness, _ name: String) throws -> SignedIn {
        let answer = try h.run(
            "signin-email",
            json: #"{"action":"register","email":"\#(name)@example.org","password":"a long enough password 1"}"#)
        guard answer.status == 201, let token = answer.body["sessionToken"]?.stringValue,
            let accountId = answer.body["accountId"]?.stringValue, let sessionId = answer.body["sessionId"]?.stringValue
        else { throw HarnessError("registration failed: \(answer.rawBody)") }
        return SignedIn(token: token, accountId: accountId, sessionId: sessionId)
    }

    func call(_ h: Harness, _ bearer: Bearer, _ me: SignedIn) throws -> CGIAnswer {
        if bearer.endpoint == "session" { return try h.check(me.bearer) }
        return try h.run(bearer.endpoint, json: bearer.body, authorization: me.bearer)
    }

    /// What the request may change: the account (its name), its sessions, its tickets.
    func state(_ h: Harness) throws -> [String] {
        let db = try h.database()
        let accounts = try db.query("SELECT id, name FROM accounts ORDER BY id").map { "\($0[0])|\($0[1])" }
        let tickets = try db.query("SELECT count(*) FROM email_tickets").first?.int(0) ?? -1
        return accounts + (try h.sessionRows()) + ["tickets \(tickets)"]
    }

    /// A session signed in `ago` seconds ago, renewed just now, its expiry written as if before
    /// the 300 s cap was set (500 s ahead).
    func signedIn(_ h: Harness, _ name: String, ago: Int64) throws -> SignedIn {
        let me = try signedUp(h, name)
        let now = Clock.now()
        try h.database().run(
            "UPDATE sessions SET created_at = ?, last_used_at = ?, expires_at = ? WHERE session_id = ?",
            [.integer(now - ago), .integer(now), .integer(now + 500), .text(me.sessionId)])
        return me
    }

    @Test(arguments: endpoints)
    func aSessionPastTheCapIsRefusedWithAnExpiryFromBeforeTheCap(_ bearer: Bearer) throws {
        let h = try Harness(config: Self.capped)
        let me = try signedIn(h, "capped-\(bearer.endpoint)", ago: 400)
        let before = try state(h)
        let answer = try call(h, bearer, me)
        #expect(answer.status == 401, "\(bearer.endpoint): \(answer.rawBody)")
        #expect(answer.body["error"] == "unauthorized")
        if bearer.endpoint != "session" {
            #expect(try state(h) == before, "\(bearer.endpoint) changed nothing")
        }
    }

    @Test(arguments: endpoints)
    func aSessionWithinTheCapIsAdmitted(_ bearer: Bearer) throws {
        let h = try Harness(config: Self.capped)
        let me = try signedIn(h, "within-\(bearer.endpoint)", ago: 200)
        let answer = try call(h, bearer, me)
        #expect(answer.status == 200, "\(bearer.endpoint): \(answer.rawBody)")
    }
}
