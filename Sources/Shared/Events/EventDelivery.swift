#if canImport(Glibc)
import Glibc
#endif

/// Sends waiting events to `events.url`, one HTTP POST each, signed afresh at every attempt.
///
/// - One process at a time (a lease in `event_delivery`, renewed before each attempt, and void once
///   its holder's process is gone), so the receiver never gets the same event from two processes
///   at once.
/// - Oldest first; an account's events strictly in the order they were written (see `EventOutbox`).
/// - A failure of the receiver (no answer within `events.timeoutSeconds`, a 5xx, a 3xx: redirects
///   are not followed, a 408 or a 429) stops the run: the event waits `EventBackoff`'s time, and
///   the receiver is left alone for `events.retryAfterSeconds` (no request of any endpoint tries it
///   meanwhile; `frontdoor-check --deliver` does).
/// - Any other 4xx refuses that one event: it waits `EventBackoff`'s time (its account's later
///   events behind it), and the run goes on with other accounts' events, so one event the
///   receiver keeps refusing holds up nobody else. Refusals of `refusalsBeforeRest` events in a
///   row (a wrong secret refuses them all) count as a failure of the receiver.
/// - At least once: a row is deleted only after a 2xx.
/// - Rows older than `events.retainSeconds` are dropped, each with a syslog line.
public final class EventDelivery {
    public enum Mode: Sendable, Equatable {
        /// The process that wrote events: everything due, within its remaining time.
        case writer
        /// Any other request that found the hint due: at most `limit` events.
        case pickUp(limit: Int)
        /// `frontdoor-check --deliver`: everything due, even while the receiver rests after a failure.
        case `operator`
    }

    public struct Report: Sendable {
        public var delivered = 0
        public var dropped = 0
        /// Events the receiver refused with a 4xx, each left to its own retry.
        public var refused = 0
        /// Why the last refused one was refused.
        public var refusal: String?
        /// Why the run stopped at a failed attempt (or could not use the store).
        public var failure: String?
        /// Another process holds the lease until then: it delivers.
        public var busyUntil: UnixTime?
        /// The receiver rests after a failure until then.
        public var pausedUntil: UnixTime?
        /// The run ended with events still due (its limit, or its process's time).
        public var stoppedEarly = false
    }

    /// Events a request that did not write any tries, at most.
    public static let pickUpLimit = 5
    /// Refusals in a row after which the receiver rests as after a failure.
    public static let refusalsBeforeRest = 3
    /// The niceness of delivery after the answer, and the pause before it (see `scheduleAfterAnswer`).
    static let afterAnswerNiceness: Int32 = 10
    static let afterAnswerPauseMicroseconds: UInt32 = 5000

    public let settings: Config.EventReceiver
    let db: Database
    let databasePath: String
    let now: () -> UnixTime
    let remainingSeconds: () -> Double?
    let makeClient: (Double) -> HTTPClient
    let owner: String
    private var client: HTTPClient?
    /// Tests: runs between the hint's reads and its write, as another process's commit might.
    var betweenHintReadAndWrite: (() -> Void)?

    /// `now`, `remainingSeconds` (the process's time left; nil: unbounded) and `makeClient` (for a
    /// total timeout) are the outside world, injected by tests.
    public init(
        settings: Config.EventReceiver, db: Database, databasePath: String, now: @escaping () -> UnixTime = Clock.now,
        remainingSeconds: @escaping () -> Double? = Lifetime.remainingSeconds,
        makeClient: ((Double) -> HTTPClient)? = nil
    ) throws(FrontdoorError) {
        self.settings = settings
        self.db = db
        self.databasePath = databasePath
        self.now = now
        self.remainingSeconds = remainingSeconds
        self.makeClient = makeClient ?? { timeout in
            CurlHTTPClient(connectTimeoutSeconds: min(3, timeout), totalTimeoutSeconds: timeout, maxResponseBytes: 1 << 20)
        }
        owner = try EventLease.newOwner()
    }

    /// A killed deliverer holds the lease this long at most: one attempt and a little slack.
    var leaseSeconds: Int64 { Int64(settings.timeoutSeconds.rounded(.up)) + 2 }

    /// Delivers what is due, as `mode` allows. Never throws: what happened is in the report and
    /// syslog. The hint is worked out after the last write transaction (`refreshHint`).
    @discardableResult
    public func run(_ mode: Mode) -> Report {
        var report = Report()
        defer { refreshHint() }
        do throws(FrontdoorError) {
            // PostgreSQL may run a body again after a conflict: each run starts from the same counts.
            let reportAtStart = report
            var next = try db.transaction { () throws(FrontdoorError) -> EventOutbox.Pending? in
                report = reportAtStart
                let t = now()
                report.dropped = try dropExpired(now: t)
                let lease = try EventLease.read(db)
                if let holder = lease.owner, holder != owner, lease.leaseUntil > t, !EventLease.holderIsGone(holder) {
                    report.busyUntil = lease.leaseUntil
                    return nil
                }
                if mode != .operator, lease.pausedUntil > t {
                    report.pausedUntil = lease.pausedUntil
                    return nil
                }
                guard let first = try EventOutbox.nextDue(db, now: t) else { return nil }
                try EventLease.take(owner: owner, until: t + leaseSeconds, db)
                return first
            }
            var attempts = 0
            var refusedInARow = 0
            while let event = next {
                guard let timeout = sendTimeout() else {
                    report.stoppedEarly = true
                    try db.transaction { () throws(FrontdoorError) in try EventLease.release(owner: owner, db) }
                    break
                }
                let outcome = send(event, timeout: timeout)
                attempts += 1
                let (reportBefore, refusedBefore) = (report, refusedInARow)
                next = try db.transaction { () throws(FrontdoorError) -> EventOutbox.Pending? in
                    (report, refusedInARow) = (reportBefore, refusedBefore)
                    let t = now()
                    switch outcome {
                    case .failed(let reason):
                        try failed(event, reason: reason, now: t, receiverRests: true)
                        report.failure = reason
                        try EventLease.release(owner: owner, db)
                        return nil
                    case .refused(let reason):
                        refusedInARow += 1
                        report.refused += 1
                        report.refusal = reason
                        guard refusedInARow < Self.refusalsBeforeRest else {
                            try failed(event, reason: reason, now: t, receiverRests: true)
                            report.failure = "\(reason), \(refusedInARow) events refused in a row"
                            try EventLease.release(owner: owner, db)
                            return nil
                        }
                        try failed(event, reason: reason, now: t, receiverRests: false)
                    case .delivered:
                        refusedInARow = 0
                        _ = try EventOutbox.remove(seq: event.seq, db)
                        report.delivered += 1
                        SysLog.info(
                            "frontdoor events delivered id=\(event.id) type=\(event.type) attempt=\(event.attempts + 1)")
                    }
                    if case .pickUp(let limit) = mode, attempts >= limit {
                        report.stoppedEarly = try EventOutbox.nextDue(db, now: t) != nil
                        try EventLease.release(owner: owner, db)
                        return nil
                    }
                    // Lost only when this process outlived its lease: the new holder carries on.
                    guard try EventLease.renew(owner: owner, until: t + leaseSeconds, db) else { return nil }
                    guard let following = try EventOutbox.nextDue(db, now: t) else {
                        try EventLease.release(owner: owner, db)
                        return nil
                    }
                    return following
                }
            }
        } catch {
            // The lease, if taken, runs out by itself; the events wait.
            report.failure = "store: " + (error.detail ?? error.message)
            SysLog.warning("frontdoor events delivery stopped: \(report.failure ?? "-")")
        }
        return report
    }

    /// How one attempt ended.
    enum Outcome: Equatable {
        case delivered
        /// A 4xx about this event (not 408 or 429): its own failure.
        case refused(String)
        /// The receiver's failure: no answer, a 5xx, a 3xx, a 408 or a 429.
        case failed(String)

        static func of(status: Int) -> Outcome {
            switch status {
            case 200...299: .delivered
            case 408, 429: .failed("HTTP \(status)")
            case 400...499: .refused("HTTP \(status)")
            default: .failed("HTTP \(status)")
            }
        }
    }

    /// One attempt.
    func send(_ event: EventOutbox.Pending, timeout: Double) -> Outcome {
        let body = Array(event.body.utf8)
        let request = HTTPRequest(
            method: "POST", url: settings.url,
            headers: [
                ("Content-Type", "application/json"), (EventSignature.idHeaderName, event.id),
                (EventSignature.headerName, EventSignature.header(body: body, secret: settings.secret, time: now())),
            ],
            body: body)
        do {
            return Outcome.of(status: try client(timeout: timeout).send(request).status)
        } catch {
            return .failed(error.detail ?? error.message)
        }
    }

    /// The attempt's bound: `events.timeoutSeconds`, or less near the process's ceiling; nil when
    /// too little time is left to try and record the outcome.
    func sendTimeout() -> Double? {
        guard let left = remainingSeconds() else { return settings.timeoutSeconds }
        let usable = min(settings.timeoutSeconds, left - 1)
        return usable >= 0.5 ? usable : nil
    }

    private func client(timeout: Double) -> HTTPClient {
        guard timeout == settings.timeoutSeconds else { return makeClient(timeout) }
        if let client { return client }
        // One client for the run: its connection is kept alive from one event to the next.
        let made = makeClient(timeout)
        client = made
        return made
    }

    private func failed(
        _ event: EventOutbox.Pending, reason: String, now t: UnixTime, receiverRests: Bool
    ) throws(FrontdoorError) {
        let attempts = event.attempts + 1
        let wait = EventBackoff.delay(
            afterFailures: attempts, first: settings.retryAfterSeconds, max: settings.retryMaxSeconds)
        try EventOutbox.retryLater(seq: event.seq, attempts: attempts, at: t + wait, error: reason, db)
        if receiverRests { try EventLease.pause(until: t + settings.retryAfterSeconds, db) }
        SysLog.warning(
            "frontdoor events delivery \(receiverRests ? "failed" : "refused") id=\(event.id) type=\(event.type) "
                + "attempt=\(attempts) reason=\(reason) retry_in=\(wait)s")
    }

    private func dropExpired(now t: UnixTime) throws(FrontdoorError) -> Int {
        var dropped = 0
        for event in try EventOutbox.expired(db, before: t - settings.retainSeconds, limit: 100)
        where try EventOutbox.remove(seq: event.seq, db) {
            dropped += 1
            SysLog.error(
                "frontdoor events dropped id=\(event.id) type=\(event.type) account=\(event.accountId) "
                    + "attempts=\(event.attempts): not taken within events.retainSeconds (\(settings.retainSeconds) s)")
        }
        return dropped
    }

    /// When other requests should next look (see `EventHint`), worked out from reads after the
    /// write transactions, so no lock is held for it. A commit of another connection meanwhile
    /// (`PRAGMA data_version` moved) may have added a row the reads missed, and its writer may have
    /// lowered the hint just before it was set here: then it is worked out again. After a few tries
    /// the hint is made due now (the next request looks, and works it out afresh). A writer also
    /// lowers it after its commit (`scheduleAfterAnswer`), so a raise here can never hide its row.
    public func refreshHint() {
        let t = now()
        for _ in 0..<3 {
            guard let before = dataVersion() else { return }
            let at: UnixTime?
            do throws(FrontdoorError) {
                at = try hintTime(now: t)
            } catch {
                return
            }
            betweenHintReadAndWrite?()
            EventHint.set(at, databasePath: databasePath)
            if dataVersion() == before { return }
        }
        EventHint.lower(to: t, databasePath: databasePath)
    }

    private func dataVersion() -> Int64? { db.dataVersion() }

    /// The earliest due head, held back by the receiver's rest and by another live deliverer's lease.
    private func hintTime(now t: UnixTime) throws(FrontdoorError) -> UnixTime? {
        guard let next = try EventOutbox.nextAttemptAt(db) else { return nil }
        let lease = try EventLease.read(db)
        var at = max(next, lease.pausedUntil)
        if let holder = lease.owner, holder != owner, lease.leaseUntil > t, !EventLease.holderIsGone(holder) {
            at = max(at, lease.leaseUntil)
        }
        return at
    }
}

extension EventDelivery {
    /// Called by `Endpoint.main` for every request with a context: nothing at all without `events`;
    /// else the process that wrote events delivers them after its answer, and any other delivers a
    /// few once the hint says some are due.
    public static func scheduleAfterAnswer(_ context: RequestContext) {
        guard let settings = context.config.events else { return }
        let wrote = Events.recordedInThisProcess
        let path = context.config.databasePath
        // Again after the commit: a deliverer that worked the hint out meanwhile cannot have seen the row.
        if wrote { EventHint.lower(to: context.now + context.config.processLifetimeSeconds, databasePath: path) }
        guard wrote || EventHint.isDue(databasePath: path, now: context.now) else { return }
        context.runAfterAnswer {
            // Past its answer the process gives way: fcgiwrap and nginx are still passing that
            // answer on, and a delivery (OpenSSL's set-up, the TLS handshake) beside them holds it up. So it
            // lets them go first, then goes on at a lower priority than requests being answered.
            usleep(afterAnswerPauseMicroseconds)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, afterAnswerNiceness)
            guard let db = try? context.database(),
                let delivery = try? EventDelivery(settings: settings, db: db, databasePath: path)
            else { return }
            delivery.run(wrote ? .writer : .pickUp(limit: pickUpLimit))
        }
    }
}
