/// Six-digit codes mailed to prove an inbox. Each belongs to one ticket and replaces that ticket's
/// earlier code; only SHA-256(ticket hash ‖ code) is stored, so a code is worth nothing with
/// another ticket. A code lives 10 minutes and allows 5 tries; the sixth is refused even when right.
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

    /// Stores `code` as the ticket's one live code, its tries back to none.
    public static func store(
        _ code: String, ticketHash: [UInt8], db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try Ephemeral.keep(
            .emailCode, key: ticketHash, value: hash(code, ticketHash: ticketHash), since: now,
            until: now + lifetimeSeconds, db: db)
    }

    /// Counts a try and judges it. Call inside a transaction and let it commit even on a refusal
    /// (return the verdict, throw after), or the try would not count. `failures` caps wrong codes
    /// for the ticket's address over all its tickets: when it is full, nothing is judged.
    public static func check(
        _ code: String, ticketHash: [UInt8], failures: RateLimits.Limit, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> Verdict {
        do {
            try RateLimits.refuseIfFull(failures, db: db, now: now)
        } catch {
            return .refused(error)
        }
        let verdict = try judge(code, ticketHash: ticketHash, db: db, now: now)
        if case .refused(let error) = verdict, error.code == .invalidCode {
            try RateLimits.hit([failures], db: db, now: now)
        }
        return verdict
    }

    private static func judge(
        _ code: String, ticketHash: [UInt8], db: Database, now: UnixTime
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
        guard wellFormed, constantTimeEqual(hash(code, ticketHash: ticketHash), stored) else {
            return .refused(FrontdoorError(.invalidCode, "That code is not right. Please check it and try again."))
        }
        return .accepted
    }

    /// Makes the ticket's code one that no six digits match (its hash becomes random bytes).
    static func spoil(ticketHash: [UInt8], db: Database) throws(FrontdoorError) {
        try Ephemeral.setValue(.emailCode, key: ticketHash, try SecureRandom.bytes(SHA256.byteCount), db: db)
    }

    public static func remove(ticketHash: [UInt8], db: Database) throws(FrontdoorError) {
        try Ephemeral.remove(.emailCode, key: ticketHash, db: db)
    }

    static func hash(_ code: String, ticketHash: [UInt8]) -> [UInt8] {
        SHA256.hash(ticketHash + Array(code.utf8))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool { !a.isEmpty && ConstantTime.equal(a, b) }
}
