import Shared

extension FuzzTargets {
    static let applePolicy = EventPolicy(
        issuers: ["https://appleid.apple.com"], audiences: ["com.example.frontdoor"], checksExpiry: true)
    static let riscPolicy = EventPolicy(
        issuers: GoogleRISC.issuers, audiences: ["fuzz.apps.googleusercontent.com"], checksExpiry: false)

    /// The two providers' event parsers (issue 23): the input as Apple's body (`{"payload": JWT}`)
    /// and as Google's raw SET, each through the compact JWS, the signature layer against the fixed
    /// key set, the event claims and its `events`, whatever the signature said (so the fuzzer
    /// reaches them without forging); then the input itself as an `events` claim of each.
    public static func events(_ input: [UInt8]) {
        if let token = try? AppleNotification.payload(of: input) { eventToken(token, apple: true) }
        eventToken(String(decoding: input, as: UTF8.self), apple: false)
        _ = try? AppleNotification.parse(events: .string(String(decoding: input, as: UTF8.self)))
        if let json = try? JSONParser.parse(input) {
            _ = try? AppleNotification.parse(events: json)
            _ = try? RISCEvent.parse(events: json, issuers: GoogleRISC.issuers)
        }
    }

    static func eventToken(_ token: String, apple: Bool) {
        guard let jws = try? CompactJWS.parse(token) else { return }
        _ = try? verifySignature(of: jws, with: keySet)
        guard let claims = try? jws.claims(),
            let checked = try? EventTokens.checkClaims(claims, policy: apple ? applePolicy : riscPolicy, now: now)
        else { return }
        if apple {
            _ = try? AppleNotification.parse(events: checked.claims["events"])
        } else {
            _ = try? RISCEvent.parse(events: checked.claims["events"], issuers: GoogleRISC.issuers)
        }
    }
}
