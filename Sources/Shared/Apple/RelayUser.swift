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

    /// Reads the ID token Firebase answered with (over TLS, from Firebase itself; its signature is
    /// checked later, before anything is trusted for the sign-in), and writes the clean-up record
    /// when the user is ours: it names the Apple `sub`, and Firebase made it for this call
    /// (`isNewUser`) or it is a relay user whose record we still hold.
    static func adopt(
        _ signedIn: FirebaseRelay.SignedIn, appleSubject: String, sentAt: UnixTime, context: RequestContext,
        onPending: (RelayCleanup.Pending) -> Void
    ) throws(FrontdoorError) -> Adopted {
        let namesApple = Self.namesApple(idToken: signedIn.idToken, localId: signedIn.localId, appleSubject: appleSubject)
        let db = try context.database()
        var ours = namesApple && signedIn.isNewUser
        if namesApple && !ours { ours = try RelayCleanup.isKnown(localId: signedIn.localId, db: db) }
        guard ours else {
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
        pending.recordId = try RelayCleanup.record(
            localId: signedIn.localId, refreshToken: signedIn.refreshToken, sentAt: sentAt,
            lease: RelayCleanup.ownerLease(context.config), db: db, now: Clock.now())
        onPending(pending)
        return Adopted(pending: pending, namesApple: true)
    }

    static func namesApple(idToken: String, localId: String, appleSubject: String) -> Bool {
        guard let claims = try? CompactJWS.parse(idToken).claims(), claims["sub"]?.stringValue == localId,
            let identities = claims["firebase"]?["identities"]?["apple.com"]?.arrayValue
        else { return false }
        return identities.contains { $0.stringValue == appleSubject }
    }
}
