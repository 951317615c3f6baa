#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

/// An HTTPClient that answers from a script and keeps what it was sent.
final class ScriptedEventClient: HTTPClient {
    enum Answer { case status(Int), noAnswer }
    var script: [Answer] = []
    var otherwise: Answer = .status(200)
    private(set) var sent: [HTTPRequest] = []
    /// Runs while a request is "in flight" (another process acting meanwhile).
    var duringSend: (() -> Void)?

    func send(_ request: HTTPRequest) throws(FrontdoorError) -> HTTPResponse {
        sent.append(request)
        duringSend?()
        let answer = script.isEmpty ? otherwise : script.removeFirst()
        switch answer {
        case .status(let status): return HTTPResponse(status: status, headers: [], body: [])
        case .noAnswer: throw .upstream("127.0.0.1: Timeout was reached")
        }
    }

    var sentTypes: [String] { sent.map { type(of: $0) } }
    func type(of request: HTTPRequest) -> String {
        let body = (try? JSONParser.parse(request.body)) ?? .null
        return "\(body["accountId"]?.stringValue ?? "?"):\(body["type"]?.stringValue ?? "?")"
    }
}

/// A store, a config with `events`, and a clock the test moves.
final class EventTestWorld {
    static let secret = "frontdoor-events-unit-test-secret-0123456789"
    let store: TestStore
    var dir: StoreTempDirectory { store.dir }
    /// The SQLite file, or the stem of the box's files on PostgreSQL (where the hint lives).
    var path: String { store.path }
    let config: Config
    let db: Database
    var clock: UnixTime = 1_800_000_000

    init(
        _ engine: StoreEngine = .sqlite, events: String = #"{"retryAfterSeconds": 60, "retryMaxSeconds": 3600}"#,
        configured: Bool = true
    ) throws {
        store = try TestStore(engine)
        let dir = store.dir
        let secretPath = dir.path + "/events-secret"
        let fd = open(secretPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        FileIO.writeAll(fd, Array((Self.secret + "\n").utf8))
        close(fd)
        var section = try JSONParser.parse(Array(events.utf8)).objectValue ?? []
        section += [("url", "https://receiver.example/events"), ("secretFile", .string(secretPath))]
        var top: [(String, JSONValue)] = [("databasePath", .string(dir.databasePath))]
        if let url = store.url, case .unixSocket(let socketDir, let port) = url.address {
            top = [
                ("postgresUrl", .string("postgresql://\(url.user)@/\(url.database)?host=\(socketDir)&port=\(port)")),
                ("deletion", .object([
                    ("ledgerFile", .string(dir.path + "/deletions.ledger")), ("auditKeyFile", .string(secretPath)),
                ])),
            ]
        }
        if configured { top.append(("events", .object(section))) }
        config = try Config.parse(Array(JSONValue.object(top).serialized.utf8))
        db = try store.open()
    }

    func account(_ id: String, providers: [String] = ["google"], verified: Bool = true) throws {
        try db.run(
            "INSERT INTO accounts (id, email, email_key, email_verified, password_hash, created_at) VALUES (?, ?, ?, ?, ?, 1)",
            [.text(id), .text("\(id)@example.org"), .text("\(id)@example.org"), .integer(verified ? 1 : 0),
             providers.contains("password") ? .text("$argon2id$fake") : .null])
        for provider in providers where provider != "password" {
            try db.run(
                "INSERT INTO identities (provider, subject, account_id, created_at) VALUES (?, ?, ?, 1)",
                [.text(provider), .text("sub-\(id)-\(provider)"), .text(id)])
        }
    }

    func record(_ change: Events.Change, _ accountId: String) throws {
        try db.transaction { () throws(FrontdoorError) in
            try Events.record(change, accountId: accountId, in: db, config: config, now: clock)
        }
    }

    func delivery(_ client: HTTPClient, remaining: Double? = nil, db other: Database? = nil) throws -> EventDelivery {
        try EventDelivery(
            settings: try #require(config.events), db: other ?? db, databasePath: path,
            now: { [unowned self] in clock }, remainingSeconds: { remaining }, makeClient: { _ in client })
    }

    /// The outbox: account:type, attempts, next attempt (relative to the clock).
    var rows: [String] {
        get throws {
            try db.query("SELECT account_id, type, attempts, next_attempt_at FROM events ORDER BY seq").map {
                "\($0.text(0) ?? "?"):\($0.text(1) ?? "?") attempts=\($0.int(2) ?? -1) next=\(($0.int(3) ?? 0) - clock)"
            }
        }
    }

    var bodies: [JSONValue] {
        get throws { try db.query("SELECT body FROM events ORDER BY seq").map { try JSONParser.parse(Array(($0.text(0) ?? "").utf8)) } }
    }

    /// The hint's time; nil when it says nothing waits.
    var hint: UnixTime? { EventHint.time(databasePath: path).flatMap { $0 == EventHint.never ? nil : $0 } }
}

@Suite struct EventDeliveryTests {
    @Test(arguments: StoreEngine.allCases) func nothingIsWrittenWithoutEventsConfigured(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine, configured: false)
        try w.account("a")
        try w.record(.created, "a")
        try w.record(.deleting, "a")
        #expect(try w.rows == [])
        #expect(w.hint == nil)
    }

    @Test(arguments: StoreEngine.allCases) func eachChangeWritesItsEventsWithTheProvidersAfterIt(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("g", providers: ["google"])
        try w.record(.created, "g")
        try w.record(.verifyingEmail, "g")  // already verified: nothing
        try w.record(.settingPassword, "g")  // a provider-only account's first password
        try w.account("p", providers: ["password"], verified: false)
        try w.record(.created, "p")
        try w.record(.settingPassword, "p")  // it has a password: only the email becomes verified
        try w.record(.linked(provider: "apple"), "g")
        try w.record(.deleting, "g")
        #expect(try w.rows.map { $0.split(separator: " ")[0] } == [
            "g:account.created", "g:account.linked", "p:account.created", "p:account.email_verified",
            "g:account.linked", "g:account.deleted",
        ])
        let bodies = try w.bodies
        #expect(bodies[0]["providers"] == .array(["google"]))
        #expect(bodies[1]["provider"] == "password")
        #expect(bodies[1]["providers"] == .array(["google", "password"]))
        #expect(bodies[3]["providers"] == .array(["password"]))
        #expect(bodies[0]["occurredAt"] == .string(Clock.rfc3339(w.clock)))
        for body in bodies {
            let names = (body.objectValue ?? []).map(\.0)
            #expect(names.allSatisfy { ["id", "type", "accountId", "occurredAt", "providers", "provider"].contains($0) })
            #expect(!body.serialized.contains("@example.org") && !body.serialized.contains("sub-"))
        }
        #expect(Set(bodies.compactMap { $0["id"]?.stringValue }).count == bodies.count)
        // Written by a process that delivers them itself: others are told to look once it must be gone.
        #expect(w.hint == w.clock + w.config.processLifetimeSeconds)
    }

    @Test(arguments: StoreEngine.allCases) func oldestFirstStopAtTheFirstFailureAndAnAccountsOrderHolds(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("a")
        try w.account("b")
        try w.record(.created, "a")
        try w.record(.created, "b")
        try w.record(.deleting, "a")
        let client = ScriptedEventClient()
        client.script = [.status(500)]
        let first = try w.delivery(client).run(.writer)
        #expect(first.failure == "HTTP 500" && first.delivered == 0)
        #expect(client.sentTypes == ["a:account.created"], "stopped at the first failure")
        #expect(try w.rows == [
            "a:account.created attempts=1 next=60", "b:account.created attempts=0 next=0",
            "a:account.deleted attempts=0 next=0",
        ])
        // The receiver is left alone for retryAfterSeconds: nobody tries before then…
        #expect(w.hint == w.clock + 60)
        w.clock += 30
        let resting = try w.delivery(client).run(.pickUp(limit: 5))
        #expect(resting.pausedUntil == w.clock + 30 && client.sent.count == 1)
        // …then the event due longest goes first: b's creation, never tried, before a's retry; a's
        // deletion is not sent while its creation waits.
        w.clock += 31
        client.script = [.noAnswer]
        _ = try w.delivery(client).run(.pickUp(limit: 5))
        #expect(client.sentTypes == ["a:account.created", "b:account.created"])
        #expect(try w.rows == [
            "a:account.created attempts=1 next=-1", "b:account.created attempts=1 next=60",
            "a:account.deleted attempts=0 next=-61",
        ])
        #expect(w.hint == w.clock + 60, "the receiver rests again")
        w.clock += 60
        let last = try w.delivery(client).run(.pickUp(limit: 5))
        #expect(last.delivered == 3)
        // a's deletion goes the moment its creation has gone, and never before it.
        #expect(client.sentTypes.suffix(3) == ["a:account.created", "a:account.deleted", "b:account.created"])
        #expect(try w.rows == [] && w.hint == nil)
    }

    /// Issue 19, item 7: an event the receiver refuses with a 4xx is that event's failure: it
    /// waits for its own retry, its account's later events behind it, and every other account's
    /// events go on, without the receiver being left alone.
    @Test(arguments: StoreEngine.allCases) func aRefusedEventHoldsUpNoOtherAccountAndItsOwnLaterEventsWaitBehindIt(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        for id in ["a", "b", "c"] { try w.account(id) }
        try w.record(.created, "a")
        try w.record(.created, "b")
        try w.record(.deleting, "a")
        try w.record(.created, "c")
        let client = ScriptedEventClient()
        client.script = [.status(422)]
        let report = try w.delivery(client).run(.writer)
        #expect(report.refused == 1 && report.refusal == "HTTP 422" && report.failure == nil)
        #expect(report.delivered == 2)
        #expect(client.sentTypes == ["a:account.created", "b:account.created", "c:account.created"])
        #expect(try w.rows == ["a:account.created attempts=1 next=60", "a:account.deleted attempts=0 next=0"])
        #expect(try EventLease.read(w.db).pausedUntil == 0, "the receiver does not rest")
        #expect(w.hint == w.clock + 60, "a's retry")
        // Refused again: its own backoff doubles; then taken, and its deletion follows it.
        w.clock += 60
        client.script = [.status(400)]
        #expect(try w.delivery(client).run(.pickUp(limit: 5)).refused == 1)
        #expect(try w.rows.first == "a:account.created attempts=2 next=120")
        w.clock += 120
        #expect(try w.delivery(client).run(.pickUp(limit: 5)).delivered == 2)
        #expect(client.sentTypes.suffix(2) == ["a:account.created", "a:account.deleted"])
        #expect(try w.rows == [] && w.hint == nil)
    }

    /// A receiver that refuses everything (a wrong secret, a wrong path) is not asked about
    /// every waiting event in one run: after three refusals in a row it rests as after a failure.
    /// 408 and 429 are about the receiver, not the event.
    @Test(arguments: StoreEngine.allCases) func refusalsInARowAnd408Or429RestTheReceiver(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        for i in 0..<5 {
            try w.account("a\(i)")
            try w.record(.created, "a\(i)")
        }
        let client = ScriptedEventClient()
        client.otherwise = .status(401)
        let report = try w.delivery(client).run(.writer)
        #expect(client.sent.count == EventDelivery.refusalsBeforeRest)
        #expect(report.refused == 3 && report.failure == "HTTP 401, 3 events refused in a row")
        #expect(try EventLease.read(w.db).pausedUntil == w.clock + 60)
        for status in [408, 429] {
            let fresh = try EventTestWorld(engine)
            try fresh.account("a")
            try fresh.account("b")
            try fresh.record(.created, "a")
            try fresh.record(.created, "b")
            let busy = ScriptedEventClient()
            busy.otherwise = .status(status)
            let stopped = try fresh.delivery(busy).run(.writer)
            #expect(stopped.failure == "HTTP \(status)" && stopped.refused == 0 && busy.sent.count == 1, "\(status)")
            #expect(try EventLease.read(fresh.db).pausedUntil == fresh.clock + 60, "\(status)")
        }
    }

    @Test(arguments: StoreEngine.allCases) func eachAttemptIsSignedAfreshWithItsOwnTime(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("a")
        try w.record(.created, "a")
        let client = ScriptedEventClient()
        client.script = [.status(503)]
        try w.delivery(client).run(.writer)
        w.clock += 60
        try w.delivery(client).run(.writer)
        #expect(client.sent.count == 2)
        let secret = Array(EventTestWorld.secret.utf8)
        for (request, at) in zip(client.sent, [w.clock - 60, w.clock]) {
            let header = request.headers.first { $0.0 == "Frontdoor-Signature" }?.1
            #expect(header?.hasPrefix("t=\(at),v1=") == true)
            #expect(EventSignature.verify(header: header, body: request.body, secret: secret, now: at) == nil)
            #expect(request.headers.contains { $0 == ("Content-Type", "application/json") })
            let id = try JSONParser.parse(request.body)["id"]?.stringValue
            #expect(request.headers.contains { $0.0 == "Frontdoor-Event-Id" && $0.1 == id })
            #expect(request.method == "POST" && request.url == "https://receiver.example/events")
        }
        #expect(client.sent[0].body == client.sent[1].body, "the body is stored, not rebuilt")
    }

    @Test func aRedirectOrA4xxIsAFailureAndAny2xxIsDelivered() throws {
        for (status, delivered) in [(302, false), (400, false), (410, false), (201, true), (204, true), (299, true)] {
            let w = try EventTestWorld()
            try w.account("a")
            try w.record(.created, "a")
            let client = ScriptedEventClient()
            client.otherwise = .status(status)
            let report = try w.delivery(client).run(.writer)
            #expect(report.delivered == (delivered ? 1 : 0), "\(status)")
            #expect(try w.rows.isEmpty == delivered, "\(status)")
        }
    }

    @Test(arguments: StoreEngine.allCases) func aRequestThatWroteNothingPicksUpABoundedNumber(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        for i in 0..<8 {
            try w.account("a\(i)")
            try w.record(.created, "a\(i)")
        }
        let client = ScriptedEventClient()
        let report = try w.delivery(client).run(.pickUp(limit: EventDelivery.pickUpLimit))
        #expect(report.delivered == 5 && report.stoppedEarly)
        #expect(try w.rows.count == 3)
        #expect(w.hint == w.clock, "the rest are due: the next request looks")
        #expect(try w.delivery(client).run(.writer).delivered == 3)
    }

    @Test(arguments: StoreEngine.allCases) func oneProcessDeliversAtATimeAndAKilledOnesLeaseRunsOut(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("a")
        try w.account("b")
        try w.record(.created, "a")
        try w.record(.created, "b")
        let other = try w.store.open()
        let client = ScriptedEventClient()
        var meanwhile: EventDelivery.Report?
        let secondClient = ScriptedEventClient()
        client.duringSend = { [unowned w] in
            guard meanwhile == nil else { return }
            meanwhile = try? w.delivery(secondClient, db: other).run(.operator)
        }
        let report = try w.delivery(client).run(.writer)
        #expect(report.delivered == 2)
        #expect(meanwhile?.busyUntil == w.clock + 7, "lease: timeoutSeconds (5) + 2")
        #expect(secondClient.sent.isEmpty)

        // A deliverer killed mid-attempt: its lease holds for one attempt's time, then anyone goes on.
        try w.record(.created, "a")
        try w.db.run("UPDATE event_delivery SET owner = 'killed', lease_until = ?", [.integer(w.clock + 7)])
        #expect(try w.delivery(secondClient).run(.pickUp(limit: 5)).busyUntil == w.clock + 7)
        w.clock += 7
        #expect(try w.delivery(secondClient).run(.pickUp(limit: 5)).delivered == 1)
        // A holder whose process is gone (no such pid) holds nothing up.
        try w.record(.created, "b")
        try w.db.run(
            "UPDATE event_delivery SET owner = '999999999:00@' || ?, lease_until = ?",
            [.text(EventLease.hostName), .integer(w.clock + 7)])
        #expect(try w.delivery(secondClient).run(.pickUp(limit: 5)).delivered == 1)
    }

    @Test(arguments: StoreEngine.allCases) func frontdoorCheckDeliversWhileTheReceiverRests(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("a")
        try w.account("b")
        try w.record(.created, "a")
        try w.record(.created, "b")
        let client = ScriptedEventClient()
        client.script = [.status(500)]
        try w.delivery(client).run(.writer)
        w.clock += 1
        #expect(try w.delivery(client).run(.writer).pausedUntil != nil)
        let forced = try w.delivery(client).run(.operator)
        #expect(forced.delivered == 1, "b is due; a waits out its own backoff")
        #expect(try w.rows == ["a:account.created attempts=1 next=59"])
    }

    @Test(arguments: StoreEngine.allCases) func anEventNotTakenWithinRetainSecondsIsDropped(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine, events: #"{"retryAfterSeconds": 60, "retryMaxSeconds": 3600, "retainSeconds": 7200}"#)
        try w.account("a")
        try w.record(.created, "a")
        let client = ScriptedEventClient()
        client.otherwise = .status(500)
        try w.delivery(client).run(.writer)
        w.clock += 7199
        #expect(try w.delivery(client).run(.operator).dropped == 0)
        w.clock += 1
        let report = try w.delivery(client).run(.operator)
        #expect(report.dropped == 1 && report.delivered == 0)
        #expect(try w.rows == [] && w.hint == nil)
    }

    @Test(arguments: StoreEngine.allCases) func noAttemptStartsWithoutTimeToFinishIt(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("a")
        try w.record(.created, "a")
        let client = ScriptedEventClient()
        let late = try w.delivery(client, remaining: 1.2).run(.writer)
        #expect(late.stoppedEarly && client.sent.isEmpty)
        #expect(try w.rows == ["a:account.created attempts=0 next=0"])
        #expect(w.hint == w.clock)
        #expect(try w.delivery(client, remaining: 3).sendTimeout() == 2)
        #expect(try w.delivery(client, remaining: 60).sendTimeout() == 5)
    }
}

/// Issue 19, item 7: the hint is worked out after the delivery's write transactions, and a commit
/// of another connection in between cannot leave it saying nothing waits.
@Suite struct EventHintRefreshTests {
    @Test(arguments: StoreEngine.allCases) func theHintIsWorkedOutWithoutTheWriteLock(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("a")
        try w.record(.created, "a")
        EventHint.set(nil, databasePath: w.path)
        // Another process holds the write lock (on PostgreSQL, the lease row's lock) throughout.
        let holder = try w.store.open()
        try holder.run(engine == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN")
        if engine == .postgres { try holder.run("UPDATE event_delivery SET owner = owner WHERE id = 1") }
        defer { _ = try? holder.run("ROLLBACK") }
        try w.delivery(ScriptedEventClient()).refreshHint()
        #expect(w.hint == w.clock)
    }

    @Test(arguments: StoreEngine.allCases) func aCommitBetweenItsReadsAndItsWriteIsNotMissed(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        try w.account("a")
        try w.account("b")
        try w.record(.created, "a")
        #expect(try w.delivery(ScriptedEventClient()).run(.writer).delivered == 1)
        #expect(w.hint == nil)
        // The outbox is empty when the reads run; another process then writes b's event (lowering
        // the hint inside its transaction) and commits before the hint is set to "nothing waits".
        let other = try w.store.open()
        let delivery = try w.delivery(ScriptedEventClient())
        var raced = false
        delivery.betweenHintReadAndWrite = { [unowned w] in
            guard !raced else { return }
            raced = true
            _ = try? other.transaction { () throws(FrontdoorError) in
                try Events.record(.created, accountId: "b", in: other, config: w.config, now: w.clock + 5)
            }
        }
        delivery.refreshHint()
        #expect(raced)
        #expect(w.hint == w.clock + 5, "b's event is seen: the hint says it is due")
    }
}

/// The hint answers by its time alone (what it costs: `make bench`, `frontdoor-dev hint-cost`).
@Suite struct EventHintTests {
    @Test(arguments: StoreEngine.allCases) func theHintSaysDueFromItsTimeOn(_ engine: StoreEngine) throws {
        let w = try EventTestWorld(engine)
        let path = w.path
        EventHint.set(w.clock + 60, databasePath: path)
        #expect(EventHint.isDue(databasePath: path, now: w.clock + 60))
        #expect(!EventHint.isDue(databasePath: path, now: w.clock + 59))
    }
}
