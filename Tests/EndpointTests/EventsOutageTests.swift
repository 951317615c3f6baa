#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 14: a receiver that answers 500, then hangs past the timeout, then refuses connections,
/// then recovers. Account changes go on all the while; once it is back, everything arrives, each
/// account's events in the order they were written, each id at least once, and nothing waits.
@Suite struct EventsOutageTests {
    @Test func everythingArrivesInOrderAfterAnOutage() throws {
        let h = try Harness()
        let events = try EventsFixture(h, settings: EventsFixture.quick)
        try h.writeConfig([events.member])
        let receiver = events.receiver
        var written: [(accountId: String, type: String)] = []
        var sessions: [(accountId: String, token: String)] = []
        var next = 0

        func signUp() throws {
            next += 1
            let answer = try h.signInGoogle(try h.google.token(sub: "outage-\(next)", email: "outage\(next)@gmail.com"))
            let id = try #require(answer.body["accountId"]?.stringValue, "\(answer.rawBody)")
            written.append((id, "account.created"))
            sessions.append((id, try #require(answer.body["sessionToken"]?.stringValue)))
        }
        func deleteOldest() throws {
            let (id, token) = sessions.removeFirst()
            #expect(try h.run("delete-account", json: "{}", authorization: "Bearer \(token)").status == 200)
            written.append((id, "account.deleted"))
        }

        /// Whether an attempt has met the receiver in `mode` (refused: a connection error on a row).
        func met(_ mode: FakeEventReceiver.Mode) throws -> Bool {
            switch mode {
            case .accept: return true
            case .fail(let status): return receiver.requests.contains { $0.answered == status }
            case .hang: return receiver.requests.contains { $0.answered == nil }
            case .refuse:
                return try h.database().query(
                    "SELECT count(*) FROM events WHERE last_error LIKE '%onnect%'").first?.int(0) ?? 0 > 0
            }
        }
        for mode: FakeEventReceiver.Mode in [.accept, .fail(status: 500), .fail(status: 302), .hang, .refuse] {
            try receiver.setMode(mode)
            try signUp()
            try signUp()
            try deleteOldest()
            // The receiver rests a second after each failure: more changes until this mode met an attempt.
            let started = Clock.monotonicMillis()
            while try !met(mode), Clock.monotonicMillis() - started < 30_000 {
                usleep(300_000)
                try signUp()
            }
            #expect(try met(mode), "\(mode) was met by an attempt")
        }
        let attemptsDuringOutage = receiver.requests.count
        #expect(try h.count("events") > 0, "the outage left events waiting")

        try receiver.setMode(.accept)
        let recovered = Clock.monotonicMillis()
        // Requests of any endpoint that write nothing carry the backlog out, a few each.
        while try h.count("events") > 0 && Clock.monotonicMillis() - recovered < 60_000 {
            _ = try h.run("sign-out", body: [], contentType: nil, authorization: "Bearer nobody")
            usleep(50_000)
        }
        let latency = Int(Clock.monotonicMillis() - recovered)
        #expect(try h.count("events") == 0, "delivered within a minute of the recovery")

        let taken = receiver.accepted
        let takenIds = Set(taken.compactMap(\.id))
        let triedIds = Set(receiver.requests.compactMap(\.id))
        #expect(triedIds.isSubset(of: takenIds), "every event tried during the outage arrived")
        // Each account's events, first arrivals, in the order they were written.
        var firstArrival: [String: [String]] = [:]
        var arrived = Set<String>()
        for delivery in taken {
            guard let id = delivery.id, arrived.insert(id).inserted, let account = delivery.accountId, let type = delivery.type
            else { continue }
            firstArrival[account, default: []].append(type)
        }
        var writtenByAccount: [String: [String]] = [:]
        for (account, type) in written { writtenByAccount[account, default: []].append(type) }
        #expect(firstArrival == writtenByAccount)
        #expect(taken.allSatisfy { $0.refusal == nil })
        print("EventsOutageTests: \(written.count) events through 500, 302, hang and refuse "
              + "(\(attemptsDuringOutage) attempts), \(taken.count) taken (\(takenIds.count) distinct); "
              + "backlog empty \(latency) ms after the receiver recovered (retryAfterSeconds 1, retryMaxSeconds 2)")
    }
}
