/// Each `signInWithIdp` the relay sends is marked, in the transaction that claims its nonce,
/// until its answer has been handled. A mark that stays (no answer after sending, a 5xx, a process
/// killed before it wrote its record) stands for a Firebase user that may exist and that nobody
/// knows. The same person's next relay sign-in reaches that user (Firebase finds it by the Apple
/// `sub`): if a mark for that `sub` exists and the user was created after the mark, the user is
/// the one the lost call made, and it is the relay's to delete. The mark holds an HMAC of the
/// Apple `sub`, never the `sub`. Marks are `Ephemeral.Kind.relaySend` rows keyed by that HMAC
/// and then the nonce hash, so a `sub`'s marks are one range of the key.
enum RelaySends {
    /// After this a mark goes, and its user, if any, is the console's.
    static let keepSeconds: Int64 = 30 * 86_400
    /// Firebase's clock against ours when comparing a creation time with a mark.
    static let clockSlack: Int64 = 60

    static func subjectKey(_ subject: String, secret: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: secret, message: Array("frontdoor relay send:".utf8) + Array(subject.utf8))
    }

    /// Inside the transaction that claims the nonce, so a mark exists before anything is sent.
    static func mark(nonceHash: [UInt8], subjectKey: [UInt8], db: Database, now: UnixTime) throws(FrontdoorError) {
        _ = try Ephemeral.claim(.relaySend, key: subjectKey + nonceHash, since: now, until: now + keepSeconds, db: db)
    }

    /// The answer is handled (or the request never left): the mark goes.
    static func clear(_ send: RelayUser.Send, db: Database) throws(FrontdoorError) {
        try Ephemeral.remove(.relaySend, key: send.subjectKey + send.nonceHash, db: db)
    }

    /// The earliest mark for this `sub` other than this request's own.
    static func earliest(subjectKey: [UInt8], besides nonceHash: [UInt8], db: Database) throws(FrontdoorError)
        -> UnixTime?
    {
        try Ephemeral.earliestSince(.relaySend, prefix: subjectKey, besides: subjectKey + nonceHash, db: db)
    }

    /// The user those marks stood for is found: they go.
    static func clearSubject(_ subjectKey: [UInt8], db: Database) throws(FrontdoorError) {
        try Ephemeral.remove(.relaySend, prefix: subjectKey, db: db)
    }
}
