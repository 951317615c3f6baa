/// Relay mode: Firebase verifies the fresh Apple token (`signInWithIdp`), its Google-signed ID
/// token names the Apple `sub`, and Identity Toolkit's `revokeToken` takes the code with that ID
/// token. The relay user it makes is cleaned up as a sign-in's is, once the revocation settles,
/// and a revocation waits for a retry only while that user can still delete itself.
struct RelayRevocation {
    typealias Outcome = AppleRevocation.Outcome
    /// Time kept at the end of the relay user's recent-sign-in window for deleting it, after the
    /// last retry of its revocation.
    static let deletionMargin: Int64 = 60

    let after: AppleRevocation.AfterAnswer
    let firebase: Config.Firebase
    let db: Database
    var context: RequestContext { after.context }
    var relay: FirebaseRelay { FirebaseRelay(firebase: firebase, client: context.httpClient()) }
    var deleter: RelayDeleter { RelayDeleter(context: context, firebase: firebase, db: db) }

    func revoke(_ plan: AppleRevocation.Plan) -> Outcome {
        // signInWithIdp, maybe Firebase's keys, revokeToken.
        guard after.hasTime(calls: 3) else { return .failed("no time left for the relay") }
        let sentAt = Clock.now()
        let send = plan.relaySend
        let signedIn: FirebaseRelay.SignedIn
        do {
            signedIn = try relay.signInWithIdp(appleToken: plan.token.raw, rawNonce: plan.fresh.rawNonce)
        } catch {
            // Only an answer nobody can know keeps the mark (see `RelaySends`).
            if let send, !error.startsOver { try? RelaySends.clear(send, db: db) }
            // Without keeping the Apple token (it holds the email) there is nothing to retry with.
            let detail = error.detail ?? error.message
            return error.code == .invalidToken ? .mismatch(detail) : .failed(detail)
        }
        var pending: RelayCleanup.Pending?
        let adopted: RelayUser.Adopted
        do {
            adopted = try RelayUser.adopt(
                signedIn, appleSubject: plan.subject, sentAt: sentAt, send: send, relay: relay, context: context
            ) { pending = $0 }
        } catch {
            if let pending { RelayCleanup.finish(pending, deleter: deleter, db: db) { after.hasTime(calls: 2) } }
            return .failed("relay clean-up record not written: not revoking without it")
        }
        let outcome = adopted.namesApple
            ? checkAndSend(plan, signedIn: signedIn, pending: adopted.pending)
            : .mismatch("relay: the Apple sub is not the deleted account's")
        if case .retry(_, let kept) = outcome {
            // The relay user's ID token is what a retry revokes with: the user stays until then.
            hold(recordId: kept.relayCleanupId, until: kept.until)
        } else if let pending = adopted.pending {
            RelayCleanup.finish(pending, deleter: deleter, db: db) { after.hasTime(calls: 2) }
        }
        return outcome
    }

    /// A waiting row keeps the code and its relay user's clean-up record, never the relay's ID
    /// token (it names the person's email and Apple `sub`): a fresh one comes from the record's
    /// refresh token, which names nobody, and only while the user's sign-in is recent enough for
    /// it to be deleted after.
    func retry(_ due: AppleRevocationStore.Due) -> Outcome {
        guard let code = due.kept.code, let recordId = due.kept.relayCleanupId else {
            return .failed("nothing kept to retry with")
        }
        guard let row = try? db.query(
            "SELECT relay_uid, refresh_token, state, delete_by_token_until FROM relay_cleanups WHERE id = ?",
            [.integer(recordId)]).first,
            let localId = row.text(0),
            var refreshToken = SealedColumn.open(row.text(1), db: db, binding: SealedColumn.relayRefreshToken(localId)),
            row.text(2) == RelayCleanup.State.token.rawValue,
            let until = row.int(3)
        else { return .failed("the relay user's clean-up record is gone or past its window") }
        guard Clock.now() + Self.deletionMargin <= until else {
            // No revoking now; what is left of the window goes to deleting the user (the clean-up
            // retries of this very process come next).
            _ = try? db.run("UPDATE relay_cleanups SET next_attempt_at = 0 WHERE id = ?", [.integer(recordId)])
            return .failed("past the relay user's deletion window")
        }
        let idToken: String
        do throws(FrontdoorError) {
            switch try relay.refresh(refreshToken: refreshToken) {
            case .fresh(let fresh, let next):
                idToken = fresh
                if let next, next != refreshToken {
                    refreshToken = next
                    if let sealed = try? SealedColumn.seal(next, db: db, binding: SealedColumn.relayRefreshToken(localId)) {
                        _ = try? db.run("UPDATE relay_cleanups SET refresh_token = ? WHERE id = ?", [sealed, .integer(recordId)])
                    }
                }
            case .gone(let detail), .unusable(let detail):
                return .failed("the relay user cannot revoke any more: \(detail)")
            }
        } catch {
            return .retry(error.detail ?? error.message, due.kept)
        }
        let outcome = send(code: code, idToken: idToken, kept: due.kept)
        if outcome.kept == nil {
            let pending = RelayCleanup.Pending(
                localId: localId, idToken: idToken, refreshToken: refreshToken, recordId: recordId,
                deleteByTokenUntil: until)
            RelayCleanup.finish(pending, deleter: deleter, db: db) { after.hasTime(calls: 2) }
        }
        return outcome
    }

    private func checkAndSend(
        _ plan: AppleRevocation.Plan, signedIn: FirebaseRelay.SignedIn, pending: RelayCleanup.Pending?
    ) -> Outcome {
        let subjects: [String]
        do {
            subjects = try AppleSignIn.relayAppleSubjects(
                idToken: signedIn.idToken, localId: signedIn.localId, firebase: firebase, context: context)
        } catch {
            let detail = error.detail ?? error.message
            return error.code == .invalidToken ? .mismatch(detail) : .failed(detail)
        }
        // Firebase verified the very token we hold; with its sub confirmed, its c_hash can be trusted.
        guard subjects.contains(plan.subject) else {
            return .mismatch("relay: the Apple sub is not the deleted account's")
        }
        if let gate = FreshAppleAuthorization.codeHashMismatch(plan.fresh.code, hash: plan.fresh.claimedCodeHash) {
            return .mismatch(gate)
        }
        // Kept for a retry: the code and the clean-up record, not the ID token (see `retry`), while
        // the code lives and the relay user can still be deleted after.
        let until = min(
            context.now + AppleRevocationStore.codeLifetimeSeconds,
            (pending?.deleteByTokenUntil ?? 0) - Self.deletionMargin)
        guard let recordId = pending?.recordId, until > Clock.now() else {
            return send(code: plan.fresh.code, idToken: signedIn.idToken, kept: nil)
        }
        let kept = AppleRevocationStore.Kept(code: plan.fresh.code, relayCleanupId: recordId, until: until)
        return send(code: plan.fresh.code, idToken: signedIn.idToken, kept: kept)
    }

    /// Without `kept` a failure that could be retried is final: nothing would be left to retry with.
    private func send(code: String, idToken: String, kept: AppleRevocationStore.Kept?) -> Outcome {
        guard after.hasTime() else {
            return kept.map { .retry("out of time before revokeToken", $0) } ?? .failed("out of time before revokeToken")
        }
        switch relay.revokeAppleCode(code, idToken: idToken) {
        case .done: return .revoked(nil)
        case .transient(let detail): return kept.map { .retry(detail, $0) } ?? .failed(detail)
        case .refused(let detail): return .failed(detail)
        }
    }

    /// Keeps other processes' clean-up retries off the relay user until the revocation's window
    /// ends, which leaves `deletionMargin` of the user's own window for deleting it.
    private func hold(recordId: Int64?, until: UnixTime) {
        guard let recordId else { return }
        _ = try? db.run(
            "UPDATE relay_cleanups SET next_attempt_at = ? WHERE id = ?", [.integer(until), .integer(recordId)])
    }
}
