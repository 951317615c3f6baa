#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 14: each account change writes exactly its events, in its own transaction, and the
/// process that wrote them delivers them after its answer; a failed request writes none.
// One at a time: Argon2id in several processes at once slows every fsync on the box.
@Suite(.serialized) struct EventsTests {
    /// Runs requests and says which events each one made, delivered or waiting.
    final class Watch {
        let world: AppleWorld
        let events: EventsFixture
        var seen = 0
        var h: Harness { world.h }

        init(settings: [(String, JSONValue)] = []) throws {
            world = try AppleWorld()
            events = try EventsFixture(world.h, settings: settings)
            // One code a second to an address, so one person can verify and then reset.
            try world.writeConfig([events.member, ("limits", .object([("mailIntervalSeconds", 1)]))])
        }

        /// The events taken since the last call (the outbox must be empty: each was delivered by
        /// the process that wrote it, after its answer).
        func made(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
            let all = events.taken
            defer { seen = all.count }
            #expect(try EventsFixture.waiting(h.database()).isEmpty, sourceLocation: sourceLocation)
            return Array(all[seen...])
        }

        func code() throws -> String { try #require(h.smtp.messages.last?.code) }
    }

    @Test func eachChangeWritesExactlyItsEventsAndAFailedRequestNone() throws {
        let w = try Watch()
        let h = w.h

        // A new Google person: created.
        let ada = try h.signInGoogle(try h.google.token(sub: "g-ada", email: "ada@gmail.com"))
        let adaId = try #require(ada.body["accountId"]?.stringValue, "\(ada.rawBody)")
        #expect(try w.made() == ["account.created \(adaId) [google]"])
        // Returning: nothing.
        #expect(try h.signInGoogle(try h.google.token(sub: "g-ada", email: "ada@gmail.com")).status == 200)
        #expect(try w.made() == [])
        // Apple with the same, verified address joins by email: linked.
        #expect(try w.world.signInNew(sub: "a-ada", email: "ada@gmail.com").body["accountId"]?.stringValue == adaId)
        #expect(try w.made() == ["account.linked \(adaId) [apple,google] apple"])

        // A typed address: created, unproven.
        let bo = try h.register("bo@example.org", "bo's typed password")
        let boId = try #require(bo.body["accountId"]?.stringValue, "\(bo.rawBody)")
        #expect(try w.made() == ["account.created \(boId) [password]"])
        // Google for it asks for proof (nothing changes), a wrong code changes nothing, the right
        // one joins and proves the inbox (the typed password goes).
        let proof = try h.signInGoogle(try h.google.token(sub: "g-bo", email: "bo@example.org"))
        #expect(proof.status == 409)
        let ticket = try #require(proof.body["ticket"]?.stringValue)
        #expect(try h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        let code = try w.code()
        let wrong = code == "000000" ? "000001" : "000000"
        #expect(try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(wrong))]).status == 401)
        #expect(try w.made() == [])
        let joined = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(joined.status == 200, "\(joined.rawBody)")
        #expect(try w.made() == ["account.linked \(boId) [google] google", "account.email_verified \(boId) [google]"])
        let boSession = try #require(joined.body["sessionToken"]?.stringValue)

        // A password account proves its own address: email_verified.
        let cy = try h.register("cy@example.org", "cy's own password")
        let cyId = try #require(cy.body["accountId"]?.stringValue)
        let cySession = try #require(cy.body["sessionToken"]?.stringValue)
        #expect(try w.made() == ["account.created \(cyId) [password]"])
        let own = try h.verify([("action", "verify_own_email")], authorization: "Bearer \(cySession)")
        let ownTicket = try #require(own.body["ticket"]?.stringValue, "\(own.rawBody)")
        #expect(try h.verify([("action", "send_code"), ("ticket", .string(ownTicket))]).status == 200)
        let ownCode = try w.code()
        #expect(try h.verify([("action", "confirm"), ("ticket", .string(ownTicket)), ("code", .string(ownCode))]).status == 200)
        #expect(try w.made() == ["account.email_verified \(cyId) [password]"])

        // A reset that gives a provider-only account its first password: linked (password).
        #expect(try reset(h, "ada@gmail.com", to: "ada's first password").status == 200)
        #expect(try w.made() == ["account.linked \(adaId) [apple,google,password] password"])
        // A reset of an account that has a password and a proven address: nothing to tell.
        h.limitsNow += 1  // cy's last code was mailed in this second's window (mailIntervalSeconds 1)
        #expect(try reset(h, "cy@example.org", to: "cy's next password").status == 200)
        #expect(try w.made() == [])

        // Refusals write nothing.
        #expect(try h.register("cy@example.org", "someone else's").status == 409)
        #expect(try h.login("cy@example.org", "not the password").status == 401)
        #expect(try h.login("cy@example.org", "cy's next password").status == 200)
        #expect(try h.signInGoogle("not.a.token").status == 401)
        #expect(try h.signInGoogle(try h.google.token(sub: "g-dee", email: "dee@gmail.com", emailVerified: false)).status == 403)
        #expect(try h.run("delete-account", json: "{}", authorization: "Bearer not-a-session").status == 401)
        #expect(try w.made() == [])

        // A deletion: deleted, with what the account had; its rows are gone, the event was not.
        let deleted = try h.run("delete-account", json: "{}", authorization: "Bearer \(boSession)")
        #expect(deleted.status == 200, "\(deleted.rawBody)")
        #expect(try w.made() == ["account.deleted \(boId) [google]"])
        #expect(try h.database().query("SELECT count(*) FROM accounts WHERE id = ?", [.text(boId)]).first?.int(0) == 0)

        // As the contract says: signed, with the id in its header, JSON, and nothing personal.
        for delivery in w.events.receiver.accepted {
            #expect(delivery.refusal == nil)
            #expect(delivery.contentType == "application/json")
            #expect(delivery.idHeader == delivery.id && delivery.id?.utf8.count == 22)
            for personal in ["@", "g-ada", "a-ada", "g-bo", "sessionToken", "name"] {
                #expect(!delivery.rawBody.contains(personal), "\(delivery.rawBody)")
            }
        }
        let ids = w.events.receiver.accepted.compactMap(\.id)
        #expect(Set(ids).count == ids.count, "each delivered once here")
        #expect(!EventHint.saysWaiting(databasePath: h.databasePath), "nothing waits: the hint says so")
    }

    func reset(_ h: Harness, _ email: String, to password: String) throws -> CGIAnswer {
        let asked = try h.verify([("action", "reset_request"), ("email", .string(email))])
        let ticket = try #require(asked.body["ticket"]?.stringValue, "\(asked.rawBody)")
        let code = try #require(h.smtp.messages.last?.code)
        return try h.verify([
            ("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
            ("password", .string(password)),
        ])
    }

    @Test func withoutEventsConfiguredNothingIsWritten() throws {
        let h = try Harness()
        #expect(try h.signInGoogle(try h.google.token(sub: "g-none", email: "none@gmail.com")).status == 200)
        #expect(try h.count("events") == 0)
        #expect(EventHint.time(databasePath: h.databasePath) == nil, "not even a hint file")
    }

    @Test func aBrokenEventsKeyIsAConfigErrorNamingIt() throws {
        let h = try Harness()
        try h.writeConfig([("events", .object([("url", "http://127.0.0.1:9/events"), ("secretFile", .string(h.dir + "/none"))]))])
        let answer = try h.signInGoogle(try h.google.token(sub: "g-x", email: "x@gmail.com"))
        #expect(answer.status == 500 && answer.exitStatus == 1)
        #expect(answer.stderr.contains("config: events.secretFile: cannot be read"), "\(answer.stderr)")
        try h.writeConfig([("events", .object([("url", "http://app.example.com/events"), ("secretFile", .string(h.dir + "/none"))]))])
        #expect(try h.signInGoogle(try h.google.token(sub: "g-x", email: "x@gmail.com")).stderr.contains("config: events.url"))
    }

    @Test func whatFailedIsDeliveredByALaterRequestOfAnyEndpoint() throws {
        let w = try Watch(settings: EventsFixture.quick)
        let h = w.h
        try w.events.receiver.setMode(.fail(status: 500))
        let made = try h.signInGoogle(try h.google.token(sub: "g-later", email: "later@gmail.com"))
        let id = try #require(made.body["accountId"]?.stringValue)
        #expect(w.events.receiver.requests.count == 1 && w.events.taken.isEmpty)
        let row = try #require(try h.database().query("SELECT attempts, last_error FROM events").first)
        #expect(row.int(0) == 1 && row.text(1) == "HTTP 500")
        #expect(EventHint.saysWaiting(databasePath: h.databasePath))

        try w.events.receiver.setMode(.accept)
        // Requests that write nothing (a refused sign-out) pick it up once its retry is due.
        let started = Clock.monotonicMillis()
        while w.events.taken.isEmpty && Clock.monotonicMillis() - started < 30_000 {
            #expect(try h.run("sign-out", body: [], contentType: nil, authorization: "Bearer nobody").status == 401)
            usleep(100_000)
        }
        #expect(w.events.taken == ["account.created \(id) [google]"])
        #expect(try h.count("events") == 0)
        #expect(!EventHint.saysWaiting(databasePath: h.databasePath))
        print("EventsTests: a failed event delivered by a later sign-out \(Int(Clock.monotonicMillis() - started)) ms after the receiver recovered (retryAfterSeconds 1)")
    }
}
