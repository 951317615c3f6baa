/// Revoking Sign in with Apple after a deletion's answer (rule 6), for the same Apple account
/// only: the fresh token is verified (through the relay, or against Apple's keys), its `sub` must
/// be the deleted account's and its `c_hash` must match the code, or nothing is revoked. Every
/// outcome goes to `apple_revocations` and syslog; a failure of the network is retried by later
/// requests while the code can still work.
public enum AppleRevocation {
    /// What the deletion handed over, in memory only.
    struct Plan {
        let id: String
        let mode: Config.Apple.Mode
        let fresh: FreshAppleAuthorization
        /// Prechecked before the answer: issuer, audience, expiry, nonce.
        let token: AppleToken
        /// The deleted account's Apple `sub` that the token claimed.
        let subject: String
        /// Relay mode: the mark of its `signInWithIdp`, written with the plan.
        var relaySend: RelayUser.Send? = nil
    }

    enum Outcome {
        /// With a note worth recording (direct mode: whether `c_hash` matched the code).
        case revoked(String?)
        /// A check failed: nothing was revoked, nothing will be.
        case mismatch(String)
        /// Refused, misconfigured or out of time: not retried.
        case failed(String)
        case retry(String, AppleRevocationStore.Kept)

        var state: String {
            switch self {
            case .revoked: "revoked"
            case .mismatch: "mismatch"
            case .failed: "failed"
            case .retry: "retry"
            }
        }

        var detail: String? {
            switch self {
            case .revoked(let note): note
            case .mismatch(let why), .failed(let why), .retry(let why, _): why
            }
        }

        var kept: AppleRevocationStore.Kept? {
            if case .retry(_, let kept) = self { return kept }
            return nil
        }
    }

    /// The after-answer work of `delete-account` (its own revocation, then due retries and relay
    /// clean-ups) and of `signin-apple` (the retries), within a deadline inside the process's ceiling.
    final class AfterAnswer {
        let context: RequestContext
        let plan: Plan?
        let deadline: UnixTime

        init(context: RequestContext, plan: Plan?) {
            self.context = context
            self.plan = plan
            let config = context.config
            deadline = context.now + min(config.deletion.revocationBudgetSeconds, config.processLifetimeSeconds - 1)
        }

        /// Whether `calls` more outbound calls fit before the deadline, each at its longest.
        func hasTime(calls: Int = 1) -> Bool {
            let perCall = Int64(context.config.http.totalTimeoutSeconds.rounded(.up))
            return Clock.now() + perCall * Int64(calls) <= deadline
        }

        func run() {
            let db: Database
            do {
                db = try context.database()
            } catch {
                let detail = error.detail ?? error.message
                SysLog.error("frontdoor apple-revocation result=store-unavailable detail=\(detail)")
                return
            }
            if let plan {
                let outcome = revoke(plan, db: db)
                AppleRevocationStore.settle(
                    id: plan.id, mode: plan.mode, outcome: outcome, attempts: 1, db: db, now: Clock.now())
            }
            retryDue(db: db)
            if let firebase = context.config.firebase, context.config.apple?.mode == .relay {
                let deleter = RelayDeleter(context: context, firebase: firebase, db: db)
                RelayCleanup.retryDue(deleter: deleter, db: db, now: Clock.now()) { hasTime(calls: 2) }
            }
        }

        /// Later requests' share of the retries: a few due rows, while time lasts.
        func retryDue(db: Database) {
            guard let apple = context.config.apple, hasTime(calls: 2) else { return }
            for due in AppleRevocationStore.claimDue(db: db, now: Clock.now()) {
                guard hasTime(calls: 2) else { return }
                let outcome: Outcome
                switch due.mode {
                case .relay: outcome = retryRelay(due, db: db)
                case .direct: outcome = retryDirect(due, apple: apple)
                }
                AppleRevocationStore.settle(
                    id: due.id, mode: due.mode, outcome: outcome, attempts: due.attempts, db: db, now: Clock.now())
            }
        }

        func revoke(_ plan: Plan, db: Database) -> Outcome {
            guard let apple = context.config.apple else { return .failed("apple not configured") }
            switch plan.mode {
            case .relay:
                guard let firebase = context.config.firebase else { return .failed("firebase not configured") }
                return RelayRevocation(after: self, firebase: firebase, db: db).revoke(plan)
            case .direct:
                return DirectRevocation(after: self, apple: apple).revoke(plan)
            }
        }

        private func retryRelay(_ due: AppleRevocationStore.Due, db: Database) -> Outcome {
            guard let firebase = context.config.firebase else { return .failed("firebase not configured") }
            return RelayRevocation(after: self, firebase: firebase, db: db).retry(due)
        }

        private func retryDirect(_ due: AppleRevocationStore.Due, apple: Config.Apple) -> Outcome {
            DirectRevocation(after: self, apple: apple).retry(due)
        }
    }
}
