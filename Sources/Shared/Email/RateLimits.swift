/// Fixed-window counters in the store, shared by every process: `hit` counts one more and says
/// whether the limit allowed it. Call inside the transaction that acts on the answer, so
/// concurrent requests cannot all slip under a limit together.
public enum RateLimits {
    public struct Limit: Sendable {
        /// Names the limit and its value (`login-email:<address>`); hashed before it is stored.
        public let key: String
        public let maximum: Int64
        public let windowSeconds: Int64

        public init(_ name: String, _ value: String, maximum: Int64, windowSeconds: Int64) {
            key = "\(name)/\(windowSeconds):\(value)"
            self.maximum = maximum
            self.windowSeconds = windowSeconds
        }

        var keyHash: [UInt8] { SHA256.hash(Array(key.utf8)) }
        func windowStart(_ now: UnixTime) -> UnixTime { now - now % windowSeconds }
    }

    /// Counts one hit on every limit, or none when any of them is already full: then it throws
    /// `rate_limited` with `Retry-After` set to when the fullest window ends.
    public static func hit(_ limits: [Limit], db: Database, now: UnixTime) throws(FrontdoorError) {
        var retryAfter: Int64 = 0
        for limit in limits {
            guard try hits(limit, db: db, now: now) >= limit.maximum else { continue }
            retryAfter = max(retryAfter, limit.windowStart(now) + limit.windowSeconds - now)
        }
        if retryAfter > 0 {
            throw FrontdoorError(
                .rateLimited, "Too many attempts. Please wait a little and try again.",
                retryAfterSeconds: Int(retryAfter))
        }
        for limit in limits {
            let start = limit.windowStart(now)
            try db.run(
                """
                INSERT INTO rate_limits (key_hash, window_start, hits, expires_at) VALUES (?, ?, 1, ?)
                ON CONFLICT (key_hash, window_start) DO UPDATE SET hits = hits + 1
                """,
                [.blob(limit.keyHash), .integer(start), .integer(start + limit.windowSeconds)])
        }
    }

    /// Takes back one hit (an attempt that turned out to count for nothing, such as a mail that
    /// could not be sent, or a login that succeeded).
    public static func refund(_ limits: [Limit], db: Database, now: UnixTime) throws(FrontdoorError) {
        for limit in limits {
            try db.run(
                "UPDATE rate_limits SET hits = hits - 1 WHERE key_hash = ? AND window_start = ? AND hits > 0",
                [.blob(limit.keyHash), .integer(limit.windowStart(now))])
        }
    }

    /// Forgets a limit's current window entirely (a successful login clears its email's failures).
    public static func clear(_ limit: Limit, db: Database) throws(FrontdoorError) {
        try db.run("DELETE FROM rate_limits WHERE key_hash = ?", [.blob(limit.keyHash)])
    }

    static func hits(_ limit: Limit, db: Database, now: UnixTime) throws(FrontdoorError) -> Int64 {
        try db.query(
            "SELECT hits FROM rate_limits WHERE key_hash = ? AND window_start = ?",
            [.blob(limit.keyHash), .integer(limit.windowStart(now))]
        ).first?.int(0) ?? 0
    }
}

extension Config.Limits {
    /// Login failures (and password proofs) for the address typed, and for the client.
    func login(email: String, client: String) -> [RateLimits.Limit] {
        [
            .init(
                "login-email", EmailAddress.matchKey(email), maximum: loginFailuresPerEmail,
                windowSeconds: loginWindowSeconds),
            .init("login-client", client, maximum: loginFailuresPerClient, windowSeconds: loginWindowSeconds),
        ]
    }

    /// Codes mailed to one address (whether or not an account has it) and by the whole server.
    func mail(to email: String) -> [RateLimits.Limit] {
        let key = EmailAddress.matchKey(email)
        return [
            .init("mail-email", key, maximum: 1, windowSeconds: mailIntervalSeconds),
            .init("mail-email", key, maximum: mailPerEmailPerHour, windowSeconds: 3600),
            .init("mail-all", "", maximum: mailPerHour, windowSeconds: 3600),
        ]
    }

    func registration(client: String) -> [RateLimits.Limit] {
        [.init("register-client", client, maximum: registrationsPerClientPerHour, windowSeconds: 3600)]
    }

    func resetRequest(client: String) -> [RateLimits.Limit] {
        [.init("reset-client", client, maximum: resetRequestsPerClientPerHour, windowSeconds: 3600)]
    }
}

extension RequestContext {
    /// The remote address the limits count by; behind a proxy, set nginx's real-IP module up.
    var client: String { request.remoteAddress ?? "-" }
}
