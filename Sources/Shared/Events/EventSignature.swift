/// `Frontdoor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme
/// Stripe's receivers already know. `t` is the time of the attempt: each attempt is signed afresh,
/// so a receiver can refuse old signatures without refusing late deliveries.
public enum EventSignature {
    public static let headerName = "Frontdoor-Signature"
    public static let idHeaderName = "Frontdoor-Event-Id"
    /// How old a `t` the receivers of docs/events.md (and the development one) accept.
    public static let toleranceSeconds: Int64 = 300

    public static func header(body: [UInt8], secret: [UInt8], time: UnixTime) -> String {
        "t=\(time),v1=" + Hex.encode(mac(body: body, secret: secret, time: time))
    }

    static func mac(body: [UInt8], secret: [UInt8], time: UnixTime) -> [UInt8] {
        HMACSHA256.mac(key: secret, message: Array("\(time).".utf8) + body)
    }

    /// Why a signature is refused, for the development receiver's log.
    public enum Refusal: String, Sendable, Error {
        case malformed = "malformed header"
        case stale = "t older than 5 minutes (or in the future)"
        case mismatch = "no v1 matches"
    }

    /// What a receiver does: every `v1` is compared in constant time, and a `t` more than
    /// `tolerance` seconds from `now` is refused.
    public static func verify(
        header: String?, body: [UInt8], secret: [UInt8], now: UnixTime, tolerance: Int64 = toleranceSeconds
    ) -> Refusal? {
        guard let header else { return .malformed }
        var time: UnixTime?
        var candidates: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return .malformed }
            let name = pair[0].trimmingWhitespace()
            let value = pair[1].trimmingWhitespace()
            if name == "t" { time = UnixTime(value) }
            if name == "v1" { candidates.append(Array(value.utf8)) }
        }
        guard let time, !candidates.isEmpty else { return .malformed }
        guard abs(now - time) <= tolerance else { return .stale }
        // The lowercase hex text compared as it is: no decoding step that could leak timing.
        let expected = Array(Hex.encode(mac(body: body, secret: secret, time: time)).utf8)
        var matched = false
        for candidate in candidates where constantTimeEqual(candidate, expected) { matched = true }
        return matched ? nil : .mismatch
    }

    /// Equal bytes, in time that depends on the lengths only.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool { ConstantTime.equal(a, b) }
}
