/// Registration and sign-in ceremonies (rule 17): a random 32-byte challenge kept in the store
/// under a random ceremony id, taken once, within 5 minutes. A row of `ephemeral` (kind
/// `passkeyCeremony`), so housekeeping prunes the expired ones with the rest.
enum PasskeyCeremonies {
    enum Kind: Int64 {
        case registration = 1
        case signIn = 2
    }

    /// L3 recommends 300 s for UV-required ceremonies; the options' `timeout` says the same.
    static let lifetimeSeconds: Int64 = 300

    struct Begun {
        let ceremonyId: String
        let challenge: [UInt8]
    }

    /// Keeps a new ceremony; `sessionId` names the session that may finish a registration.
    static func begin(_ kind: Kind, sessionId: String?, db: Database, now: UnixTime) throws(FrontdoorError) -> Begun {
        let id = try SecureRandom.bytes(32)
        let challenge = try SecureRandom.bytes(32)
        _ = try Ephemeral.claim(
            .passkeyCeremony, key: SHA256.hash(id), number: kind.rawValue, since: now, value: challenge,
            note: sessionId, until: now + lifetimeSeconds, db: db)
        return Begun(ceremonyId: Base64URL.encode(id), challenge: challenge)
    }

    /// Takes the ceremony inside the caller's transaction: its challenge, or `invalid_ticket` when
    /// it is unknown, already used, expired, of the other kind, or (a registration) begun by
    /// another session (thrown: the taking rolls back). A response that then fails a check must
    /// commit the taking alone, so a challenge is never tried twice.
    static func take(
        _ ceremonyId: String, kind: Kind, sessionId: String?, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> [UInt8] {
        guard let id = Base64URL.decode(ceremonyId), id.count == 32,
            let entry = try Ephemeral.take(.passkeyCeremony, key: SHA256.hash(id), db: db)
        else { throw invalid("unknown or used") }
        guard entry.expiresAt > now else { throw invalid("expired") }
        guard entry.number == kind.rawValue else { throw invalid("of the other kind") }
        if kind == .registration {
            guard let began = entry.note, let sessionId, ConstantTime.equal(Array(began.utf8), Array(sessionId.utf8))
            else { throw invalid("begun by another session") }
        }
        guard let challenge = entry.value, challenge.count == 32 else { throw invalid("without a challenge") }
        return challenge
    }

    static func invalid(_ why: String) -> FrontdoorError {
        FrontdoorError(
            .invalidTicket, "The passkey ceremony is unknown, used or expired. Please begin again.",
            detail: "passkey ceremony \(why)")
    }
}
