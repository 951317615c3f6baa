/// What waits in the outbox, for the operator (`frontdoor-check`).
public struct EventBacklog: Sendable {
    public let waiting: Int64
    /// When the oldest waiting event was written.
    public let oldestCreatedAt: UnixTime?
    /// Why the oldest one's last attempt failed.
    public let lastError: String?
    /// The receiver is left alone until then after a failure (0: it is not).
    public let pausedUntil: UnixTime

    /// Past this age the self-check calls the backlog a failure.
    public static let alarmAgeSeconds: Int64 = 3600

    /// Makes every waiting event due now and ends the receiver's rest (`frontdoor-check --deliver
    /// --retry-now`, once the receiver is known to be back); returns how many were waiting longer.
    @discardableResult
    public static func retryNow(_ db: Database, now: UnixTime) throws(FrontdoorError) -> Int {
        try db.transaction { () throws(FrontdoorError) -> Int in
            try db.run("UPDATE event_delivery SET paused_until = 0 WHERE id = 1")
            return try EventOutbox.retryNow(db, now: now)
        }
    }

    public static func read(_ db: Database) throws(FrontdoorError) -> EventBacklog {
        let status = try EventOutbox.status(db)
        let lease = try EventLease.read(db)
        return EventBacklog(
            waiting: status.waiting, oldestCreatedAt: status.oldestCreatedAt, lastError: status.lastError,
            pausedUntil: lease.pausedUntil)
    }

    /// One line: `none waiting`, or `3 waiting, the oldest 2 min old (last attempt: HTTP 500)`.
    public func summary(now: UnixTime) -> String {
        guard waiting > 0, let oldest = oldestCreatedAt else { return "none waiting" }
        var text = "\(waiting) waiting, the oldest \(Self.duration(now - oldest)) old"
        if let lastError { text += " (last attempt: \(lastError))" }
        return text
    }

    public func isAlarming(now: UnixTime) -> Bool {
        guard let oldest = oldestCreatedAt else { return false }
        return now - oldest > Self.alarmAgeSeconds
    }

    static func duration(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        if s < 120 { return "\(s) s" }
        if s < 7200 { return "\(s / 60) min" }
        if s < 172_800 { return "\(s / 3600) h" }
        return "\(s / 86_400) days"
    }
}
