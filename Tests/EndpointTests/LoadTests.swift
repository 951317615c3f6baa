#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 8, load: mixed sign-ins through nginx + fcgiwrap (rate limit off, 16 fcgiwrap children)
/// at concurrency 16. New and returning people, Google and Apple relay, some people with both
/// (same address, so the second provider joins the first's account), and a twelfth who log in
/// with a password (registered beforehand; Argon2id costs about 50 ms a request, so they stay a
/// small share). No 5xx, one account per person, and a busy store never shows. Account events go
/// to a receiver all the while: each account's `account.created` and each join's `account.linked`
/// arrive, once or more, and none for anything else. Half-way, `frontdoor-admin backup` snapshots
/// the store under the load: it must hold every account answered before it began. After the
/// load, a few of those people are deleted and the snapshot is restored (issue 20): the store is
/// then the snapshot less them. `FRONTDOOR_LOAD_BACKUP_DIR` keeps a backup of the filled store.
/// `FRONTDOOR_LOAD_REQUESTS` (200 in `make test`, 2,000 in `make load`), `FRONTDOOR_LOAD_CONCURRENCY`
/// (16), `FRONTDOOR_SEED`.
@Suite struct LoadTests {
    enum Via {
        case google, apple, email
        var index: Int { self == .google ? 0 : self == .apple ? 1 : 2 }
    }

    struct Person {
        let ways: [Via]
        let googleSub: String
        let appleSub: String
        let email: String
    }

    struct Outcome {
        var status = 0
        var millis = 0.0
        var accountId: String?
        /// When its answer was in (monotonic milliseconds).
        var answeredAt = 0.0
    }

    @Test func mixedSignInsThroughNginx() throws {
        let total = environmentInt("FRONTDOOR_LOAD_REQUESTS", 200)
        let concurrency = environmentInt("FRONTDOOR_LOAD_CONCURRENCY", 16)
        var random = SeededRandom.fromEnvironment("LoadTests")
        let world = try AppleWorld()
        let events = try EventsFixture(world.h, settings: EventsFixture.quick)
        try world.writeConfig([
            ("http", .object([("connectTimeoutSeconds", 2), ("totalTimeoutSeconds", 10)])),
            // The restore at the end waits this out: short, yet above the outbound timeout.
            ("processLifetimeSeconds", 16),
            // The password people are registered from 127.0.0.1, many more than a client may in an hour.
            ("limits", .object([("registrationsPerClientPerHour", 100_000)])),
            events.member,
        ])
        let stack = try Stack(
            world.h, environment: [
                "FRONTDOOR_RATE_LIMIT": "off", "FRONTDOOR_FCGIWRAP_CHILDREN": "16", "FRONTDOOR_REAL_IP_HEADER": "X-Real-IP",
            ])
        defer { stack.stop() }

        // A third Google only, a third Apple only, a third both; about four requests per person.
        let people = (0..<max(12, total / 4)).map { i in
            i % 12 == 11
                ? Person(ways: [.email], googleSub: "", appleSub: "", email: "load.email\(i)@example.org")
                : Person(ways: [[.google], [.apple], [.google, .apple]][i % 3], googleSub: "load-g-\(i)",
                         appleSub: "load-a-\(i)", email: "load.person\(i)@gmail.com")
        }
        var plan: [(person: Int, via: Via, body: String)] = []
        for _ in 0..<total {
            let p = Int.random(in: 0..<people.count, using: &random)
            let via = people[p].ways.randomElement(using: &random) ?? .google
            plan.append((p, via, try body(people[p], via, world)))
        }
        for p in Set(plan.filter { $0.via == .email }.map { $0.person }).sorted() {
            let made = try world.h.register(people[p].email, Self.password(of: people[p]))
            #expect(made.status == 201, "register \(people[p].email): \(made.rawBody)")
        }

        // Each person from an address of their own (as nginx's real-IP module gives it behind a
        // proxy), as people arrive: sixteen at once from one address would all count on that
        // address's rate-limit row, which PostgreSQL's serializable transactions take one at a time.
        let requests = plan.map {
            (path: ["/auth/signin-google", "/auth/signin-apple", "/auth/signin-email"][$0.via.index], body: $0.body,
             address: "198.51.\(100 + $0.person / 250).\($0.person % 250 + 1)")
        }
        let outcomes = Locked([Outcome](repeating: Outcome(), count: total))
        let next = Locked(0)
        _ = CurlHTTPClient()  // libcurl's global set-up, once, before the threads
        let url = stack.baseURL
        let h = world.h
        let backupDir = h.dir + "/backups"
        mkdir(backupDir, 0o700)
        let backup = Locked<(startedAt: Double, run: AdminRun?)>((0, nil))
        let started = Clock.monotonicMillis()
        Workers.run(concurrency) {
            let client = CurlHTTPClient(connectTimeoutSeconds: 5, totalTimeoutSeconds: 60)
            while true {
                let i = next.withLock { n -> Int in
                    n += 1
                    return n - 1
                }
                guard i < total else { return }
                // One worker takes the backup half-way while the others go on (SQLite's snapshot
                // file; PostgreSQL's backups are its own: docs/scaling.md).
                if i == total / 2 && h.postgres == nil {
                    let at = Clock.monotonicMillis()
                    let run = try? h.admin(["backup", backupDir])
                    backup.withLock { $0 = (at, run) }
                }
                let t0 = Clock.monotonicMillis()
                var outcome = Outcome()
                if let response = try? client.send(HTTPRequest(
                    method: "POST", url: url + requests[i].path,
                    headers: [("Content-Type", "application/json"), ("X-Real-IP", requests[i].address)],
                    body: Array(requests[i].body.utf8)))
                {
                    outcome.status = response.status
                    outcome.accountId = response.json?["accountId"]?.stringValue
                }
                outcome.answeredAt = Clock.monotonicMillis()
                outcome.millis = outcome.answeredAt - t0
                outcomes.withLock { $0[i] = outcome }
            }
        }
        let seconds = (Clock.monotonicMillis() - started) / 1000
        let results = outcomes.current

        let errors = results.filter { $0.status != 200 }
        let times = results.map { $0.millis }.sorted()
        let p50 = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)]
        var byStatus: [Int: Int] = [:]
        for r in results { byStatus[r.status, default: 0] += 1 }
        print("LoadTests: \(total) requests at concurrency \(concurrency) in \(fmt(seconds)) s: served "
              + "\(results.count - errors.count), errors \(errors.count) \(byStatus), "
              + "\(fmt(Double(total) / seconds)) req/s, p50 \(fmt(p50)) ms, p99 \(fmt(p99)) ms")

        #expect(results.allSatisfy { $0.status > 0 && $0.status < 500 }, "no 5xx and no lost request: \(byStatus)")
        #expect(errors.isEmpty, "\(byStatus)")
        // One account per person, whichever way and however often they came.
        var accountsOf: [Int: Set<String>] = [:]
        for (i, r) in results.enumerated() {
            if let id = r.accountId { accountsOf[plan[i].person, default: []].insert(id) }
        }
        let split = accountsOf.filter { $0.value.count != 1 }
        #expect(split.isEmpty, "people with more than one account: \(split.keys.sorted())")
        #expect(try world.h.count("accounts") == Int64(Set(plan.map { $0.person }).count))
        #expect(try StoreInvariants.violations(try world.h.database()) == [])
        // A busy store is retried inside the programs, never answered or logged as a failure.
        let log = stack.errorLog()
        #expect(!log.contains("busy") && !log.contains("locked") && !log.contains("status=5"))

        // Events: the requests' own processes deliver after their answers, at a lower priority:
        // some are still at it when the last answer is in. Once the outbox stops shrinking, what
        // is left goes by frontdoor-check (none, normally).
        var waiting = try world.h.count("events")
        let settling = Clock.monotonicMillis()
        while waiting > 0 && Clock.monotonicMillis() - settling < 15_000 {
            usleep(1_000_000)
            let now = try world.h.count("events")
            if now == waiting { break }
            waiting = now
        }
        let deliveredByRequests = Set(events.receiver.accepted.compactMap(\.id)).count
        let drained = Clock.monotonicMillis()
        while try world.h.count("events") > 0 && Clock.monotonicMillis() - drained < 60_000 {
            _ = try ChildProcess.run(
                Harness.binDir + "/frontdoor-check", arguments: ["--config", world.h.configPath, "--deliver"],
                environment: TestLogs.childEnvironment, workDir: world.h.dir)
        }
        #expect(try world.h.count("events") == 0)
        let taken = events.receiver.accepted
        var distinct: [String: Set<String>] = [:]
        for delivery in taken { if let type = delivery.type, let id = delivery.id { distinct[type, default: []].insert(id) } }
        let joined = try world.h.database().query(
            "SELECT count(*) FROM (SELECT account_id FROM identities GROUP BY account_id HAVING count(*) > 1) AS joined"
        ).first?.int(0) ?? -1
        #expect(Int64(distinct["account.created"]?.count ?? 0) == (try world.h.count("accounts")))
        #expect(Int64(distinct["account.linked"]?.count ?? 0) == joined)
        #expect(Set(distinct.keys).isSubset(of: ["account.created", "account.linked"]))
        #expect(try StoreInvariants.eventViolations(
            world.h.database(), taken: taken.compactMap(\.body), deletions: [], auditKey: []) == [])
        print("LoadTests: events: \(distinct.values.map(\.count).reduce(0, +)) delivered "
              + "(created \(distinct["account.created"]?.count ?? 0), linked \(distinct["account.linked"]?.count ?? 0), "
              + "\(taken.count - distinct.values.map(\.count).reduce(0, +)) twice): \(deliveredByRequests) by the requests' "
              + "own processes, \(waiting) left for frontdoor-check --deliver")
        if h.postgres == nil { try backupAndRoundTrip(h, backup.current, results, total: total) }
    }

    /// The backup taken under the load, then the round trip: some of its people deleted, the
    /// snapshot restored, the store then the snapshot less them.
    func backupAndRoundTrip(
        _ h: Harness, _ backup: (startedAt: Double, run: AdminRun?), _ results: [Outcome], total: Int
    ) throws {
        let run = try #require(backup.run, "the backup did not run")
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let snapshot = try #require(run.json["path"]?.stringValue)
        let held = try BackupTests.accounts(in: snapshot, h)
        let before = Set(results.filter { $0.status == 200 && $0.answeredAt < backup.startedAt }.compactMap(\.accountId))
        #expect(before.isSubset(of: held), "answered before the backup began, missing from it: \(before.subtracting(held).count)")
        let live = try h.count("accounts")
        print("LoadTests: backup taken at request \(total / 2) of \(total) while the load ran: it holds \(held.count) "
              + "accounts; \(before.count) were answered before it began, all in it; \(live) accounts after the load")
        if let keep = getenv("FRONTDOOR_LOAD_BACKUP_DIR").map({ String(cString: $0) }), !keep.isEmpty {
            let kept = try h.admin(["backup", keep])
            print("LoadTests: the filled store kept as \(kept.json["path"]?.stringValue ?? kept.stdout)")
        }
        let victims = Array(held.sorted().prefix(5))
        for id in victims {
            let deleted = try h.admin(["delete", id])
            #expect(deleted.status == 0, "\(deleted.status) \(deleted.stdout) \(deleted.stderr)")
        }
        let afterDeletes = try h.count("accounts")
        let restored = try h.admin(["restore", snapshot])
        #expect(restored.status == 0, "\(restored.stdout) \(restored.stderr)")
        #expect(restored.json["deletionsReapplied"] == .number(Double(victims.count)))
        let now = Set(try h.database().query("SELECT id FROM accounts").compactMap { $0.text(0) })
        #expect(now == held.subtracting(victims))
        #expect(try StoreInvariants.violations(h.database()) == [])
        print("LoadTests: round trip: \(live) accounts, \(victims.count) deleted by frontdoor-admin -> \(afterDeletes); "
              + "restore of the \(held.count)-account backup: deletionsReapplied "
              + "\(restored.json["deletionsReapplied"]?.int64Value ?? -1) -> \(now.count) accounts")
    }

    /// Rule 19 refuses a password made mostly of the account's address (contains_context).
    static func password(of person: Person) -> String {
        "a load test passphrase " + Hex.encode(Array(SHA256.hash(Array(person.email.utf8)).prefix(8)))
    }

    func body(_ person: Person, _ via: Via, _ world: AppleWorld) throws -> String {
        let text = try bodyText(person, via, world)
        Harness.registerSecrets(of: Array(text.utf8), authorization: nil)
        return text
    }

    func bodyText(_ person: Person, _ via: Via, _ world: AppleWorld) throws -> String {
        switch via {
        case .email:
            return JSONValue.object([
                ("action", "login"), ("email", .string(person.email)), ("password", .string(Self.password(of: person))),
            ]).serialized
        case .google:
            return JSONValue.object([("idToken", .string(
                try world.h.google.token(sub: person.googleSub, email: person.email)))]).serialized
        case .apple:
            let nonce = AppleWorld.nonce()
            return AppleWorld.body(
                try world.apple.token(sub: person.appleSub, rawNonce: nonce, email: person.email), nonce: nonce)
        }
    }

    func fmt(_ x: Double) -> String {
        let tenths = Int((x * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// `count` threads running `body` to its end, joined before returning.
enum Workers {
    final class Job: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    static func run(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        var threads: [pthread_t] = []
        for _ in 0..<count {
            var thread = pthread_t()
            let job = Unmanaged.passRetained(Job(body)).toOpaque()
            let rc = pthread_create(&thread, nil, { raw in
                guard let raw else { return nil }
                let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
                job.body()
                return nil
            }, job)
            if rc == 0 { threads.append(thread) } else { Unmanaged<Job>.fromOpaque(job).release() }
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}
