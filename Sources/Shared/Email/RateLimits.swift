/// Fixed-window counters in the store, shared by every process: `hit` counts one more and says
/// whether the limit allowed it. Call inside the transaction that acts on the answer, so
/// concurrent requests cannot all slip under a limit together. The windows count in `now` (the
/// request's time; a debug build's tests set their own clock: `TestHooks.limitsNow`).
public enum RateLimits {
    public struct Limit: Sendable {
        /// What is stored for the limit and its value (`login-email/900:<address>`): an HMAC with
        /// the server's rate-limit secret, so the table alone cannot be checked against a list of
        /// addresses, as a plain hash could.
        public let keyHash: [UInt8]
        public let maximum: Int64
        public let windowSeconds: Int64

        public init(_ name: String, _ value: String, maximum: Int64, windowSeconds: Int64, secret: [UInt8]) {
            keyHash = HMACSHA256.mac(key: secret, message: Array("\(name)/\(windowSeconds):\(value)".utf8))
            self.maximum = maximum
            self.windowSeconds = windowSeconds
        }

        func windowStart(_ now: UnixTime) -> UnixTime { now - now % windowSeconds }
    }

    /// The rate-limit secret, derived from the server key (`DeletionAudit.key`) so the audit rows'
    /// HMACs and these never share a key.
    public static func secret(serverKey: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: serverKey, message: Array("frontdoor rate-limit keys".utf8))
    }

    /// Counts one hit on every limit, or none when any of them is already full: then it throws
    /// `rate_limited` with `Retry-After` set to when the fullest window ends.
    public static func hit(_ limits: [Limit], db: Database, now: UnixTime) throws(FrontdoorError) {
        let now = TestHooks.limitsNow(now)
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
            try Ephemeral.increment(
                .rateLimit, key: limit.keyHash, window: start, until: start + limit.windowSeconds, db: db)
        }
    }

    /// Takes back one hit (an attempt that turned out to count for nothing, such as a mail that
    /// could not be sent, or a login that succeeded).
    public static func refund(_ limits: [Limit], db: Database, now: UnixTime) throws(FrontdoorError) {
        let now = TestHooks.limitsNow(now)
        for limit in limits {
            try Ephemeral.decrement(.rateLimit, key: limit.keyHash, window: limit.windowStart(now), db: db)
        }
    }

    /// Forgets a limit's current window entirely (a successful login clears its email's failures).
    public static func clear(_ limit: Limit, db: Database) throws(FrontdoorError) {
        try Ephemeral.remove(.rateLimit, key: limit.keyHash, db: db)
    }

    /// What stands for an address in a stored row that must not hold it (a reset ticket's
    /// `address_key`): an HMAC of its match key with the rate-limit secret.
    public static func addressKey(_ email: String, secret: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: secret, message: Array("address:\(EmailAddress.matchKey(email))".utf8))
    }

    /// `rate_limited` when the limit's window is full, with `Retry-After` its end; counts nothing.
    public static func refuseIfFull(_ limit: Limit, db: Database, now: UnixTime) throws(FrontdoorError) {
        let now = TestHooks.limitsNow(now)
        guard try hits(limit, db: db, now: now) >= limit.maximum else { return }
        throw FrontdoorError(
            .rateLimited, "Too many attempts. Please wait a little and try again.",
            retryAfterSeconds: Int(limit.windowStart(now) + limit.windowSeconds - now))
    }

    static func hits(_ limit: Limit, db: Database, now: UnixTime) throws(FrontdoorError) -> Int64 {
        try Ephemeral.count(.rateLimit, key: limit.keyHash, window: limit.windowStart(now), db: db)
    }
}

extension Config.Limits {
    /// Login failures (and password proofs) for the address typed, and for the client.
    func login(email: String, client: String, secret: [UInt8]) -> [RateLimits.Limit] {
        [
            .init(
                "login-email", EmailAddress.matchKey(email), maximum: loginFailuresPerEmail,
                windowSeconds: loginWindowSeconds, secret: secret),
            .init(
                "login-client", client, maximum: loginFailuresPerClient, windowSeconds: loginWindowSeconds,
                secret: secret),
        ]
    }

    /// Codes mailed for a ticket (a join, the account's own email) to one address and by the whole
    /// server. Resets count apart (`resetMail`): anonymous requests must never use up the mail
    /// that people holding a real ticket are waiting for.
    func mail(to email: String, secret: [UInt8]) -> [RateLimits.Limit] {
        let key = EmailAddress.matchKey(email)
        return [
            .init("mail-email", key, maximum: 1, windowSeconds: mailIntervalSeconds, secret: secret),
            .init("mail-email", key, maximum: mailPerEmailPerHour, windowSeconds: 3600, secret: secret),
            .init("mail-all", "", maximum: mailPerHour, windowSeconds: 3600, secret: secret),
        ]
    }

    /// Reset mails to one address and by the whole server, counted whether or not an account has
    /// the address (so a 429 tells nothing about it).
    func resetMail(to email: String, secret: [UInt8]) -> [RateLimits.Limit] {
        let key = EmailAddress.matchKey(email)
        return [
            .init("reset-mail-email", key, maximum: 1, windowSeconds: mailIntervalSeconds, secret: secret),
            .init("reset-mail-email", key, maximum: mailPerEmailPerHour, windowSeconds: 3600, secret: secret),
            .init("reset-mail-all", "", maximum: resetMailPerHour, windowSeconds: 3600, secret: secret),
        ]
    }

    /// Wrong codes for one address in a day, across all its tickets: each new ticket brings five
    /// tries, so without this a guesser could go on for ever. `addressKey` is
    /// `RateLimits.addressKey`.
    func codeFailures(addressKey: [UInt8], secret: [UInt8]) -> RateLimits.Limit {
        .init(
            "code-failures", Hex.encode(addressKey), maximum: codeFailuresPerEmailPerDay, windowSeconds: 86_400,
            secret: secret)
    }

    /// Apple sign-ins from one client that passed the checks made on the box and then failed:
    /// each costs a nonce row and (relay) a Firebase call, so forged tokens are bounded.
    func appleSignIn(client: String, secret: [UInt8]) -> [RateLimits.Limit] {
        [.init("apple-client", client, maximum: appleFailuresPerClientPerHour, windowSeconds: 3600, secret: secret)]
    }

    /// Per client, and for IPv6 per /48 too (`network`: `ClientAddress.networkKey`), so one site
    /// cannot multiply the client's count by its 65,536 /64s.
    func registration(client: String, network: String?, secret: [UInt8]) -> [RateLimits.Limit] {
        [
            .init(
                "register-client", client, maximum: registrationsPerClientPerHour, windowSeconds: 3600,
                secret: secret)
        ]
            + (network.map {
                [.init("register-net", $0, maximum: registrationsPerNetworkPerHour, windowSeconds: 3600, secret: secret)]
            } ?? [])
    }

    /// Passkey ceremonies begun by one client (and its IPv6 /48), sign-ins and registrations
    /// together; a registration also counts for its account (`passkeyRegistration`).
    func passkeyBegin(client: String, network: String?, secret: [UInt8]) -> [RateLimits.Limit] {
        [.init("passkey-client", client, maximum: passkeyBeginsPerClientPerHour, windowSeconds: 3600, secret: secret)]
            + (network.map {
                [.init("passkey-net", $0, maximum: passkeyBeginsPerNetworkPerHour, windowSeconds: 3600, secret: secret)]
            } ?? [])
    }

    func passkeyRegistration(accountId: String, secret: [UInt8]) -> RateLimits.Limit {
        .init(
            "passkey-account", accountId, maximum: passkeyRegistrationsPerAccountPerHour, windowSeconds: 3600,
            secret: secret)
    }

    func resetRequest(client: String, network: String?, secret: [UInt8]) -> [RateLimits.Limit] {
        [
            .init(
                "reset-client", client, maximum: resetRequestsPerClientPerHour, windowSeconds: 3600,
                secret: secret)
        ]
            + (network.map {
                [.init("reset-net", $0, maximum: resetRequestsPerNetworkPerHour, windowSeconds: 3600, secret: secret)]
            } ?? [])
    }
}

extension RequestContext {
    /// The client the limits count by (an IPv6 client is its /64: `ClientAddress`); behind a
    /// proxy, set nginx's real-IP module up.
    var client: String { ClientAddress.limitKey(request.remoteAddress) }

    /// An IPv6 client's /48, for the limits that also count by network; nil for IPv4.
    var network: String? { ClientAddress.networkKey(request.remoteAddress) }

    /// The rate-limit secret, read once a request (the server key is a file, made on first use).
    func rateLimitSecret() throws(FrontdoorError) -> [UInt8] {
        if let rateLimitSecretCache { return rateLimitSecretCache }
        let serverKey = try DeletionAudit.key(config: config)
        let secret = RateLimits.secret(serverKey: serverKey)
        rateLimitSecretCache = secret
        codeKeyCache = Codes.key(serverKey: serverKey)
        return secret
    }

    /// The mailed codes' key (`Codes.key`), from the same one read of the server key.
    func codeKey() throws(FrontdoorError) -> [UInt8] {
        if let codeKeyCache { return codeKeyCache }
        _ = try rateLimitSecret()
        guard let codeKeyCache else { throw .internal("codes: no key") }
        return codeKeyCache
    }
}
