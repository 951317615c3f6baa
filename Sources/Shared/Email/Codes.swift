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
        try db.run(
            """
            INSERT INTO email_codes (ticket_hash, code_hash, attempts, created_at, expires_at) VALUES (?, ?, 0, ?, ?)
            ON CONFLICT (ticket_hash) DO UPDATE SET
              code_hash = excluded.code_hash, attempts = 0, created_at = excluded.created_at,
              expires_at = excluded.expires_at
            """,
            [.blob(ticketHash), .blob(hash(code, ticketHash: ticketHash)), .integer(now), .integer(now + lifetimeSeconds)])
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
        let rows = try db.query(
            "SELECT code_hash, attempts, expires_at FROM email_codes WHERE ticket_hash = ?", [.blob(ticketHash)])
        guard let row = rows.first, let stored = row.blob(0), let attempts = row.int(1), let expires = row.int(2) else {
            return .refused(FrontdoorError(.invalidCode, "No code has been sent for this yet. Please ask for one."))
        }
        guard attempts < maxAttempts else {
            return .refused(FrontdoorError(.tooManyAttempts, "That code was tried too often. Please ask for a new one."))
        }
        try db.run("UPDATE email_codes SET attempts = attempts + 1 WHERE ticket_hash = ?", [.blob(ticketHash)])
        guard expires > now else {
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
        try db.run(
            "UPDATE email_codes SET code_hash = ? WHERE ticket_hash = ?",
            [.blob(try SecureRandom.bytes(SHA256.byteCount)), .blob(ticketHash)])
    }

    public static func remove(ticketHash: [UInt8], db: Database) throws(FrontdoorError) {
        try db.run("DELETE FROM email_codes WHERE ticket_hash = ?", [.blob(ticketHash)])
    }

    static func hash(_ code: String, ticketHash: [UInt8]) -> [UInt8] {
        SHA256.hash(ticketHash + Array(code.utf8))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool { !a.isEmpty && ConstantTime.equal(a, b) }
}
