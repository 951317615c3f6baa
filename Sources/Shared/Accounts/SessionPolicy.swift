/// Rule 11's arithmetic: how long a session lasts and when a check moves its expiry. Time is a
/// parameter, so the rules are tested without sleeping.
public struct SessionPolicy: Sendable, Equatable {
    /// The idle lifetime (`sessionLifetimeSeconds`): a renewal sets the expiry this far past the check.
    public var lifetimeSeconds: Int64
    /// A check renews a session last renewed at least this long ago; 0 renews at every check.
    public var renewAfterSeconds: Int64
    /// The absolute cap, counted from the sign-in; nil for none.
    public var maxLifetimeSeconds: Int64?
    /// Rule 18: how long after a session was made or proven again by a real sign-in it may change
    /// how the account is entered (`sessions.recentSignInSeconds`).
    public var recentSignInSeconds: Int64

    public init(
        lifetimeSeconds: Int64, renewAfterSeconds: Int64, maxLifetimeSeconds: Int64?, recentSignInSeconds: Int64 = 600
    ) {
        self.lifetimeSeconds = lifetimeSeconds
        self.renewAfterSeconds = renewAfterSeconds
        self.maxLifetimeSeconds = maxLifetimeSeconds
        self.recentSignInSeconds = recentSignInSeconds
    }

    /// Whether a session last signed in at `signedInAt` is recent at `now`. 0, a session from
    /// before the column, never is; a time a little ahead (another box's clock) is.
    public func isRecent(signedInAt: UnixTime, now: UnixTime) -> Bool {
        guard signedInAt > 0 else { return false }
        let (elapsed, overflow) = now.subtractingReportingOverflow(signedInAt)
        return !overflow && elapsed <= recentSignInSeconds
    }

    /// What a check does with a session it found.
    public enum Verdict: Sendable, Equatable {
        /// Expired: refused, nothing written.
        case ended
        /// Live and renewed recently enough: a plain read.
        case live
        /// Due: the one write, moving the expiry to `expiresAt` and the last use to now. An
        /// `expiresAt` not after now (the cap reached) ends the session with that write.
        case renew(expiresAt: UnixTime)
    }

    /// Whether a session with this verdict may be used at `now`: not ended, and not renewed to an
    /// expiry the cap has already reached (that renewal ends it).
    public static func admits(_ verdict: Verdict, now: UnixTime) -> Bool {
        switch verdict {
        case .ended: false
        case .live: true
        case .renew(let expiresAt): expiresAt > now
        }
    }

    /// The expiry of a session signed in at `createdAt`: the cap applies from the start.
    public func firstExpiry(createdAt: UnixTime) -> UnixTime {
        capped(createdAt.addingClamped(lifetimeSeconds), createdAt: createdAt)
    }

    /// The verdict for a session with these times, checked at `now`. A session whose stored expiry
    /// lies past the cap (made before the cap was configured) is due at once, so the cap holds.
    public func verdict(createdAt: UnixTime, lastUsedAt: UnixTime, expiresAt: UnixTime, now: UnixTime) -> Verdict {
        guard expiresAt > now else { return .ended }
        let cap = maxLifetimeSeconds.map { createdAt.addingClamped($0) }
        let pastCap = cap.map { expiresAt > $0 } ?? false
        let (idle, overflow) = now.subtractingReportingOverflow(lastUsedAt)
        guard overflow || idle >= renewAfterSeconds || pastCap else { return .live }
        return .renew(expiresAt: capped(now.addingClamped(lifetimeSeconds), createdAt: createdAt))
    }

    private func capped(_ expiry: UnixTime, createdAt: UnixTime) -> UnixTime {
        guard let maxLifetimeSeconds else { return expiry }
        return min(expiry, createdAt.addingClamped(maxLifetimeSeconds))
    }
}

extension Int64 {
    /// `self + other`, held at the ends of the range instead of trapping (times come from the store).
    func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
