#if canImport(Glibc)
import Glibc
#endif

/// Sends waiting events to `events.url`, one HTTP POST each, signed afresh at every attempt.
///
/// - One process at a time (a lease in `event_delivery`, renewed before each attempt, and void once
///   its holder's process is gone), so the receiver never gets the same event from two processes
///   at once.
/// - Oldest first; an account's events strictly in the order they were written (see `EventOutbox`).
/// - A run stops at its first failure: the event waits `EventBackoff`'s time, and the receiver is
///   left alone for `events.retryAfterSeconds` (no request of any endpoint tries it meanwhile;
///   `frontdoor-check --deliver` does).
/// - At least once: a row is deleted only after a 2xx. Anything else (a 3xx included: redirects
///   are not followed), or no answer within `events.timeoutSeconds`, is a failure.
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
        /// Why the run stopped at a failed attempt (or could not use the store).
        public var failure: String?
        /// Another process holds the lease until then: it delivers.
        public var busyUntil: UnixTime?
        /// The receiver rests after a failure until then.
        public var pausedUntil: UnixTime?
        /// The run ended with events still due (its limit, or its process's time).
        public var stoppedEarly = false
    }

    /// Events a request that did not write any delivers, at most.
    public static let pickUpLimit = 5
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

    /// Delivers what is due, as `mode` allows. Never throws: what happened is in the report and syslog.
    @discardableResult
    public func run(_ mode: Mode) -> Report {
        var report = Report()
        do throws(FrontdoorError) {
            var next = try db.transaction { () throws(FrontdoorError) -> EventOutbox.Pending? in
                let t = now()
                report.dropped = try dropExpired(now: t)
                let lease = try EventLease.read(db)
                if let holder = lease.owner, holder != owner, lease.leaseUntil > t, !EventLease.holderIsGone(holder) {
                    report.busyUntil = lease.leaseUntil
                    try updateHint(now: t)
                    return nil
                }
                if mode != .operator, lease.pausedUntil > t {
                    report.pausedUntil = lease.pausedUntil
                    try updateHint(now: t)
                    return nil
                }
                guard let first = try EventOutbox.nextDue(db, now: t) else {
                    try updateHint(now: t)
                    return nil
                }
                try EventLease.take(owner: owner, until: t + leaseSeconds, db)
                return first
            }
            while let event = next {
                guard let timeout = sendTimeout() else {
                    report.stoppedEarly = true
                    try db.transaction { () throws(FrontdoorError) in try release(now: now()) }
                    break
                }
                let outcome = send(event, timeout: timeout)
                next = try db.transaction { () throws(FrontdoorError) -> EventOutbox.Pending? in
                    let t = now()
                    if let reason = outcome {
                        try failed(event, reason: reason, now: t)
                        report.failure = reason
                        try release(now: t)
                        return nil
                    }
                    _ = try EventOutbox.remove(seq: event.seq, db)
                    report.delivered += 1
                    SysLog.info("frontdoor events delivered id=\(event.id) type=\(event.type) attempt=\(event.attempts + 1)")
                    if case .pickUp(let limit) = mode, report.delivered >= limit {
                        report.stoppedEarly = try EventOutbox.nextDue(db, now: t) != nil
                        try release(now: t)
                        return nil
                    }
                    // Lost only when this process outlived its lease: the new holder carries on.
                    guard try EventLease.renew(owner: owner, until: t + leaseSeconds, db) else { return nil }
                    guard let following = try EventOutbox.nextDue(db, now: t) else {
                        try release(now: t)
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

    /// One attempt: nil when the receiver took it, else the reason.
    func send(_ event: EventOutbox.Pending, timeout: Double) -> String? {
        let body = Array(event.body.utf8)
        let request = HTTPRequest(
            method: "POST", url: settings.url,
            headers: [
                ("Content-Type", "application/json"), (EventSignature.idHeaderName, event.id),
                (EventSignature.headerName, EventSignature.header(body: body, secret: settings.secret, time: now())),
            ],
            body: body)
        do {
            let response = try client(timeout: timeout).send(request)
            return (200...299).contains(response.status) ? nil : "HTTP \(response.status)"
        } catch {
            return error.detail ?? error.message
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

    private func failed(_ event: EventOutbox.Pending, reason: String, now t: UnixTime) throws(FrontdoorError) {
        let attempts = event.attempts + 1
        let wait = EventBackoff.delay(
            afterFailures: attempts, first: settings.retryAfterSeconds, max: settings.retryMaxSeconds)
        try EventOutbox.retryLater(seq: event.seq, attempts: attempts, at: t + wait, error: reason, db)
        try EventLease.pause(until: t + settings.retryAfterSeconds, db)
        SysLog.warning(
            "frontdoor events delivery failed id=\(event.id) type=\(event.type) attempt=\(attempts) "
                + "reason=\(reason) retry_in=\(wait)s")
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

    private func release(now t: UnixTime) throws(FrontdoorError) {
        try EventLease.release(owner: owner, db)
        try updateHint(now: t)
    }

    /// Under the write lock: when other requests should next look (see `EventHint`).
    private func updateHint(now t: UnixTime) throws(FrontdoorError) {
        guard let next = try EventOutbox.nextAttemptAt(db) else {
            EventHint.set(nil, databasePath: databasePath)
            return
        }
        let lease = try EventLease.read(db)
        var at = max(next, lease.pausedUntil)
        if let holder = lease.owner, holder != owner, lease.leaseUntil > t, !EventLease.holderIsGone(holder) {
            at = max(at, lease.leaseUntil)
        }
        EventHint.set(at, databasePath: databasePath)
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
        guard wrote || EventHint.isDue(databasePath: path, now: context.now) else { return }
        context.runAfterAnswer {
            // Past its answer the process gives way: fcgiwrap and nginx are still passing that
            // answer on, and loading libcurl (about 1.5 ms of CPU) beside them holds it up. So it
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
