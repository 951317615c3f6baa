/// Six-digit codes mailed to prove an inbox. Each belongs to one ticket and replaces that ticket's
/// earlier code; only HMAC-SHA256(code key, ticket hash ‖ code) is stored, the code key derived
/// from the server key (which no backup of the store holds): a code is worth nothing with another
/// ticket, and a copy of the store alone cannot find a live one (a million tries of an unkeyed
/// hash took a second). A code lives 10 minutes and allows 5 tries; the sixth is refused even
/// when right.
public enum Codes {
    public static let lifetimeSeconds: Int64 = 600
    public static let maxAttempts: Int64 = 5

    public enum Verdict: Sendable {
        case accepted
        case refused(FrontdoorError)
    }

    /// A uniform code from the kernel's CSPRNG, leading zeros kept.
    public static func generate() throws(FrontdoorError) -> String {
        let n = try SecureRandom.uniform(below: 1_000_000)
        let digits = String(n)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// The codes' key: the server key (`DeletionAudit.key`) through HMAC with a label of its own,
    /// as the rate-limit secret is derived.
    static func key(serverKey: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: serverKey, message: Array("frontdoor mailed codes v1".utf8))
    }

    /// Stores `code` as the ticket's one live code, its tries back to none.
    public static func store(
        _ code: String, ticketHash: [UInt8], key: [UInt8], db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try Ephemeral.keep(
            .emailCode, key: ticketHash, value: hash(code, ticketHash: ticketHash, key: key), since: now,
            until: now + lifetimeSeconds, db: db)
    }

    /// Counts a try and judges it. Call inside a transaction and let it commit even on a refusal
    /// (return the verdict, throw after), or the try would not count. `failures` caps wrong codes
    /// for the ticket's address over all its tickets: when it is full, nothing is judged.
    public static func check(
        _ code: String, ticketHash: [UInt8], key: [UInt8], failures: RateLimits.Limit, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> Verdict {
        do {
            try RateLimits.refuseIfFull(failures, db: db, now: now)
        } catch {
            return .refused(error)
        }
        let verdict = try judge(code, ticketHash: ticketHash, key: key, db: db, now: now)
        if case .refused(let error) = verdict, error.code == .invalidCode {
            try RateLimits.hit([failures], db: db, now: now)
        }
        return verdict
    }

    private static func judge(
        _ code: String, ticketHash: [UInt8], key: [UInt8], db: Database, now: UnixTime
    ) throws(FrontdoorError) -> Verdict {
        guard let row = try Ephemeral.entry(.emailCode, key: ticketHash, db: db), let stored = row.value else {
            return .refused(FrontdoorError(.invalidCode, "No code has been sent for this yet. Please ask for one."))
        }
        guard row.number < maxAttempts else {
            return .refused(FrontdoorError(.tooManyAttempts, "That code was tried too often. Please ask for a new one."))
        }
        try Ephemeral.bump(.emailCode, key: ticketHash, db: db)
        guard row.expiresAt > now else {
            return .refused(FrontdoorError(.invalidCode, "That code has expired. Please ask for a new one."))
        }
        let wellFormed = code.utf8.count == 6 && code.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        // A code stored before the key (an unkeyed SHA-256) matches nothing: asked again, it is keyed.
        guard wellFormed, constantTimeEqual(hash(code, ticketHash: ticketHash, key: key), stored) else {
            return .refused(FrontdoorError(.invalidCode, "That code is not right. Please check it and try again."))
        }
        return .accepted
    }

    /// Makes the ticket's code one that no six digits match (its MAC becomes random bytes).
    static func spoil(ticketHash: [UInt8], db: Database) throws(FrontdoorError) {
        try Ephemeral.setValue(.emailCode, key: ticketHash, try SecureRandom.bytes(SHA256.byteCount), db: db)
    }

    public static func remove(ticketHash: [UInt8], db: Database) throws(FrontdoorError) {
        try Ephemeral.remove(.emailCode, key: ticketHash, db: db)
    }

    static func hash(_ code: String, ticketHash: [UInt8], key: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: key, message: ticketHash + Array(code.utf8))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool { !a.isEmpty && ConstantTime.equal(a, b) }
}
