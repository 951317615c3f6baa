/// Rule 5 meets Firebase's refusal of a credential it has already accepted: once
/// `signInWithIdp` has answered, the phone's retry with the same Apple token and nonce must not
/// reach Firebase again. When a later step fails in a way worth retrying (Firebase's keys could
/// not be fetched), the answer is kept here for a few minutes and the retry completes from it.
///
/// What is kept is the relay user's id and its Firebase ID token, sealed (AES-256-GCM) with a key
/// derived from the server key and the raw nonce, which the server never stores: the row is
/// unreadable without the phone's retry, even to someone holding a copy of the database, and a
/// guessed nonce opens nothing without the server key (which no backup of the store holds). The
/// raw nonce has at least 32 characters (`Nonces.minimumRawCharacters`). The ID token names the
/// person (email, Apple `sub`); sealed, it names nobody. The relay user itself is deleted as usual
/// after the answer: a Google-signed ID token stays verifiable for its hour after its user is gone.
/// Rows sealed under the first derivation (the raw nonce alone) were dropped by the migration
/// `sealedUnderServerKey`: their retry answers 401 and the phone starts over.
enum RelayAttempts {
    static let keepSeconds: Int64 = 300

    struct Kept {
        let localId: String
        let sealed: [UInt8]
    }

    static func key(rawNonce: String, serverKey: [UInt8]) -> [UInt8] {
        let secret = HMACSHA256.mac(key: serverKey, message: Array("frontdoor relay attempt v2".utf8))
        return HMACSHA256.mac(key: secret, message: Array(rawNonce.utf8))
    }

    static func keep(
        nonceHash: [UInt8], tokenHash: [UInt8], localId: String, idToken: String, rawNonce: String,
        serverKey: [UInt8], db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        let sealed = try Sealed.seal(
            Array(idToken.utf8), key: key(rawNonce: rawNonce, serverKey: serverKey), associated: nonceHash + tokenHash)
        // One per nonce: only the request that claimed the nonce afresh gets this far.
        _ = try Ephemeral.claim(
            .relayAttempt, key: nonceHash + tokenHash, value: sealed, note: localId, until: now + keepSeconds, db: db)
    }

    /// Takes the kept attempt for this nonce and token, if there is one nobody else is working on,
    /// for `lease` seconds. Inside the caller's transaction.
    static func claim(nonceHash: [UInt8], tokenHash: [UInt8], lease: Int64, db: Database, now: UnixTime)
        throws(FrontdoorError) -> Kept?
    {
        guard let row = try Ephemeral.lease(.relayAttempt, key: nonceHash + tokenHash, until: now + lease, now: now, db: db),
            let localId = row.note, let sealed = row.value
        else { return nil }
        return Kept(localId: localId, sealed: sealed)
    }

    /// The ID token, or nil when the box does not open with this raw nonce.
    static func open(
        _ kept: Kept, rawNonce: String, serverKey: [UInt8], nonceHash: [UInt8], tokenHash: [UInt8]
    ) -> String? {
        Sealed.open(kept.sealed, key: key(rawNonce: rawNonce, serverKey: serverKey), associated: nonceHash + tokenHash)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Another 503: the next retry may take it again.
    static func release(nonceHash: [UInt8], tokenHash: [UInt8], db: Database) {
        _ = try? Ephemeral.endLease(.relayAttempt, key: nonceHash + tokenHash, db: db)
    }

    static func drop(nonceHash: [UInt8], tokenHash: [UInt8], db: Database) throws(FrontdoorError) {
        try Ephemeral.remove(.relayAttempt, key: nonceHash + tokenHash, db: db)
    }
}
