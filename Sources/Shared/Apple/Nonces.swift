/// Rule 5: each nonce signs in once. Claimed with a unique insert before anything leaves the box,
/// kept until the token it came with has expired, released only when the sign-in ends in 503.
public enum Nonces {
    /// The shortest raw nonce `signin-apple` takes. Apple's sample makes 32 random characters; a
    /// short one could be guessed, and it keys the relay answer kept for a retry (`RelayAttempts`).
    public static let minimumRawCharacters = 32

    /// `signin-apple`'s `rawNonce`: a string of 32 to 512 characters, else 400 `invalid_request`.
    static func rawNonce(_ body: JSONValue) throws(FrontdoorError) -> String {
        let raw = try body.requiredString("rawNonce", maxBytes: 512)
        guard raw.count >= minimumRawCharacters else {
            throw .invalidRequest(
                "rawNonce must be at least \(minimumRawCharacters) characters: the phone's random one-off value.")
        }
        return raw
    }

    /// `signin-google`'s optional `rawNonce`, by the same rules; nil when not sent (absent or null).
    static func optionalRawNonce(_ body: JSONValue) throws(FrontdoorError) -> String? {
        guard let value = body["rawNonce"], !value.isNull else { return nil }
        return try rawNonce(body)
    }

    /// Whether a token's `nonce` claim is the lowercase hex SHA-256 of `rawNonce` (never base64,
    /// never upper case: the form Apple and Firebase use, and the kits send Google).
    static func matches(claim: String?, rawNonce: String) -> Bool {
        guard let claim else { return false }
        return ConstantTime.equal(Array(claim.utf8), Array(Hex.encode(SHA256.hash(Array(rawNonce.utf8))).utf8))
    }

    /// True when this request is the first to use the nonce; false for a replay.
    public static func claim(hash: [UInt8], until expiresAt: UnixTime, db: Database) throws(FrontdoorError) -> Bool {
        try Ephemeral.claim(.nonce, key: hash, until: expiresAt, db: db)
    }

    /// Gives the nonce back after a 503, so the phone can try again with the same Apple token.
    /// A release that fails leaves the nonce spent: the phone then starts over, which is safe.
    public static func release(hash: [UInt8], db: Database) {
        do {
            try Ephemeral.remove(.nonce, key: hash, db: db)
        } catch {
            FileIO.log("frontdoor nonce=release-failed detail=\(error.detail ?? error.message)")
        }
    }
}
