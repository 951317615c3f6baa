/// Relay mode: Firebase verifies the fresh Apple token (`signInWithIdp`), its Google-signed ID
/// token names the Apple `sub`, and Identity Toolkit's `revokeToken` takes the code with that ID
/// token. The relay user it makes is cleaned up as a sign-in's is, once the revocation settles.
struct RelayRevocation {
    typealias Outcome = AppleRevocation.Outcome
    let after: AppleRevocation.AfterAnswer
    let firebase: Config.Firebase
    let db: Database
    var context: RequestContext { after.context }
    var relay: FirebaseRelay { FirebaseRelay(firebase: firebase, client: context.httpClient()) }

    func revoke(_ plan: AppleRevocation.Plan) -> Outcome {
        // signInWithIdp, maybe Firebase's keys, revokeToken.
        guard after.hasTime(calls: 3) else { return .failed("no time left for the relay") }
        let signedIn: FirebaseRelay.SignedIn
        do {
            signedIn = try relay.signInWithIdp(appleToken: plan.token.raw, rawNonce: plan.fresh.rawNonce)
        } catch {
            // Without keeping the Apple token (it holds the email) there is nothing to retry with.
            let detail = error.detail ?? error.message
            return error.code == .invalidToken ? .mismatch(detail) : .failed(detail)
        }
        var pending = RelayCleanup.Pending(
            localId: signedIn.localId, idToken: signedIn.idToken, refreshToken: signedIn.refreshToken)
        pending.recordId = try? RelayCleanup.record(
            localId: signedIn.localId, refreshToken: signedIn.refreshToken, db: db, now: Clock.now())
        let outcome = checkAndSend(plan, signedIn: signedIn, recordId: pending.recordId)
        if case .retry(_, let kept) = outcome {
            // The relay user's ID token is what a retry revokes with: the user stays until then.
            hold(recordId: kept.relayCleanupId, until: kept.until)
        } else {
            RelayCleanup.finish(pending, relay: relay, db: db, now: Clock.now())
        }
        return outcome
    }

    /// A waiting row keeps the code and its relay user's clean-up record, never the relay's ID
    /// token (it names the person's email and Apple `sub`): a fresh one comes from the record's
    /// refresh token, which names nobody.
    func retry(_ due: AppleRevocationStore.Due) -> Outcome {
        guard let code = due.kept.code, let recordId = due.kept.relayCleanupId else {
            return .failed("nothing kept to retry with")
        }
        guard let row = try? db.query(
            "SELECT relay_uid, refresh_token FROM relay_cleanups WHERE id = ?", [.integer(recordId)]).first,
            let localId = row.text(0), var refreshToken = row.text(1)
        else { return .failed("the relay user's clean-up record is gone") }
        let idToken: String
        do throws(FrontdoorError) {
            guard let fresh = try relay.refresh(refreshToken: refreshToken) else {
                return .failed("the relay user is gone: nothing to revoke with")
            }
            idToken = fresh.idToken
            if let next = fresh.refreshToken, next != refreshToken {
                refreshToken = next
                _ = try? db.run(
                    "UPDATE relay_cleanups SET refresh_token = ? WHERE id = ?", [.text(next), .integer(recordId)])
            }
        } catch {
            return .retry(error.detail ?? error.message, due.kept)
        }
        let outcome = send(code: code, idToken: idToken, kept: due.kept)
        if outcome.kept == nil {
            var pending = RelayCleanup.Pending(localId: localId, idToken: idToken, refreshToken: refreshToken)
            pending.recordId = recordId
            RelayCleanup.finish(pending, relay: relay, db: db, now: Clock.now())
        }
        return outcome
    }

    private func checkAndSend(_ plan: AppleRevocation.Plan, signedIn: FirebaseRelay.SignedIn, recordId: Int64?)
        -> Outcome
    {
        guard let idToken = signedIn.idToken else { return .failed("relay signInWithIdp: 200 without an idToken") }
        let subject: String
        do {
            subject = try AppleSignIn.relayAppleSubject(
                idToken: idToken, localId: signedIn.localId, firebase: firebase, context: context)
        } catch {
            let detail = error.detail ?? error.message
            return error.code == .invalidToken ? .mismatch(detail) : .failed(detail)
        }
        // Firebase verified the very token we hold; with its sub confirmed, its c_hash can be trusted.
        guard subject == plan.subject else { return .mismatch("relay: the Apple sub is not the deleted account's") }
        guard FreshAppleAuthorization.codeMatches(plan.fresh.code, hash: plan.fresh.claimedCodeHash) else {
            return .mismatch("c_hash does not match the authorization code")
        }
        guard let recordId else { return .failed("relay clean-up record not written: not revoking without it") }
        // Kept for a retry: the code and the clean-up record, not the ID token (see `retry`).
        let kept = AppleRevocationStore.Kept(
            code: plan.fresh.code, relayCleanupId: recordId,
            until: context.now + AppleRevocationStore.codeLifetimeSeconds)
        return send(code: plan.fresh.code, idToken: idToken, kept: kept)
    }

    private func send(code: String, idToken: String, kept: AppleRevocationStore.Kept) -> Outcome {
        guard after.hasTime() else { return .retry("out of time before revokeToken", kept) }
        switch relay.revokeAppleCode(code, idToken: idToken) {
        case .done: return .revoked
        case .transient(let detail): return .retry(detail, kept)
        case .refused(let detail): return .failed(detail)
        }
    }

    /// Keeps other processes' clean-up retries off the relay user until the revocation's window ends.
    private func hold(recordId: Int64?, until: UnixTime) {
        guard let recordId else { return }
        _ = try? db.run(
            "UPDATE relay_cleanups SET next_attempt_at = ? WHERE id = ?",
            [.integer(until + RelayCleanup.ownerLeaseSeconds), .integer(recordId)])
    }

}
