/// Whether the user a `signInWithIdp` 200 names is this sign-in's own relay user, the only kind
/// frontdoor may keep a record of and delete. Firebase may answer with another user of the
/// project: an existing account it signed the credential into (one account per email address),
/// or one that only needs confirming. A shared project's real users must never be deleted.
enum RelayUser {
    struct Adopted {
        /// Set when the user is ours: its record is written and it is deleted after the answer.
        let pending: RelayCleanup.Pending?
        /// Whether the ID token's `sub` is the user and its `firebase.identities["apple.com"]`
        /// holds the Apple token's `sub`.
        let namesApple: Bool
    }

    /// This call's mark (`RelaySends`).
    struct Send {
        let nonceHash: [UInt8]
        let subjectKey: [UInt8]
    }

    /// Reads the ID token Firebase answered with (over TLS, from Firebase itself; its signature is
    /// checked later, before anything is trusted for the sign-in), and writes the clean-up record
    /// when the user is ours: it names the Apple `sub`, and Firebase made it for this call
    /// (`isNewUser`), or it is a relay user whose record we still hold, or it was created after an
    /// earlier call for the same `sub` that never got its answer (`RelaySends`). This call's mark
    /// goes either way: its answer is handled.
    static func adopt(
        _ signedIn: FirebaseRelay.SignedIn, appleSubject: String, sentAt: UnixTime, send: Send?,
        relay: FirebaseRelay, context: RequestContext, onPending: (RelayCleanup.Pending) -> Void
    ) throws(FrontdoorError) -> Adopted {
        let namesApple = Self.namesApple(idToken: signedIn.idToken, localId: signedIn.localId, appleSubject: appleSubject)
        let db = try context.database()
        var ours = namesApple && signedIn.isNewUser
        if namesApple && !ours { ours = try RelayCleanup.isKnown(localId: signedIn.localId, db: db) }
        var lost = false
        if namesApple && !ours, let send,
            let marked = try RelaySends.earliest(subjectKey: send.subjectKey, besides: send.nonceHash, db: db),
            let created = relay.createdAt(idToken: signedIn.idToken), created + RelaySends.clockSlack >= marked
        {
            ours = true
            lost = true
        }
        // Firebase keeps one user per Apple `sub`: once one naming it is reached, every mark for the
        // `sub` is settled (that user was the lost calls', or they made none).
        guard ours else {
            if let send {
                if namesApple {
                    try RelaySends.clearSubject(send.subjectKey, db: db)
                } else {
                    try RelaySends.clear(send, db: db)
                }
            }
            SysLog.warning(
                "frontdoor relay-user uid=\(signedIn.localId) result=not-ours new=\(signedIn.isNewUser) "
                    + "names-apple-sub=\(namesApple) (neither kept nor deleted: the relay needs a project of its own)")
            return Adopted(pending: nil, namesApple: namesApple)
        }
        var pending = RelayCleanup.Pending(
            localId: signedIn.localId, idToken: signedIn.idToken, refreshToken: signedIn.refreshToken, recordId: nil,
            deleteByTokenUntil: sentAt + RelayCleanup.deleteByTokenWindowSeconds)
        // A relay user exists from here on: whatever happens next, it is deleted after the answer.
        onPending(pending)
        let lease = RelayCleanup.ownerLease(context.config)
        pending.recordId = try db.transaction { () throws(FrontdoorError) -> Int64 in
            let id = try RelayCleanup.record(
                localId: signedIn.localId, refreshToken: signedIn.refreshToken, sentAt: sentAt, lease: lease, db: db,
                now: Clock.now())
            if let send { try RelaySends.clearSubject(send.subjectKey, db: db) }
            return id
        }
        onPending(pending)
        if lost {
            SysLog.info("frontdoor relay-user uid=\(signedIn.localId) result=found (made by a call that got no answer)")
        }
        return Adopted(pending: pending, namesApple: true)
    }

    static func namesApple(idToken: String, localId: String, appleSubject: String) -> Bool {
        guard let claims = try? CompactJWS.parse(idToken).claims(), claims["sub"]?.stringValue == localId,
            let identities = claims["firebase"]?["identities"]?["apple.com"]?.arrayValue
        else { return false }
        return identities.contains { $0.stringValue == appleSubject }
    }
}
