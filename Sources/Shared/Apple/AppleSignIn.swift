/// `signin-apple`: Apple's identity token and the raw nonce in, a session out. Relay mode has
/// Firebase check the token (the host may lack the IPv4 Apple needs); direct mode checks it
/// against Apple's keys.
public enum AppleSignIn {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let deviceName = try PersonText.deviceName(context.body)
        let language = try MailLanguage.fromBody(context.body)
        return try withIdentity(context, beforeToken: { () throws(FrontdoorError) -> Reauthentication? in
            try Reauthentication.bearer(context)
        }) { (identity, reauth, alongside) throws(FrontdoorError) -> CGIResponse in
            try ProviderSignIn.signIn(
                identity, db: try context.database(), config: context.config, now: context.now,
                deviceName: deviceName, language: language, reauth: reauth, alongside: alongside
            ).response
        }
    }

    /// Everything `signin-apple` does to learn who an Apple identity token (`identityToken`,
    /// `rawNonce`, `givenName`, `familyName` of the body) is, whoever asks: the precheck, the
    /// nonce claimed, the relay through Firebase or Apple's own keys, the limits, the relay user
    /// deleted after the answer, the kept answer of a retry. `beforeToken` runs once the body has
    /// been read and before the nonce is spent (a refusal there costs nothing); `act` gets the
    /// verified identity and must run `alongside` inside the transaction that acts on it (it gives
    /// back the attempt counted against the limit, and a kept retry's record), or neither commits.
    /// `account` `link` takes the same path.
    static func withIdentity<Prepared>(
        _ context: RequestContext, beforeToken: () throws(FrontdoorError) -> Prepared,
        act: (ProviderIdentity, Prepared, () throws(FrontdoorError) -> Void) throws(FrontdoorError) -> CGIResponse
    ) throws(FrontdoorError) -> CGIResponse {
        guard let apple = context.config.apple else {
            throw .internal("config: apple: not configured, yet an Apple token was sent")
        }
        // Every request, whatever its outcome, leaves a little tidying for after its answer.
        let afterwards = AppleAfterAnswer(context: context)
        context.runAfterAnswer { afterwards.run() }

        let identityToken = try context.body.requiredString("identityToken", maxBytes: CompactJWS.maxTokenBytes)
        let rawNonce = try Nonces.rawNonce(context.body)
        let name = try displayName(context.body)
        let prepared = try beforeToken()
        let token = try AppleToken.precheck(
            identityToken, rawNonce: rawNonce, audiences: apple.audiences, now: context.now)

        let db = try context.database()
        let policy = AppleToken.policy(audiences: apple.audiences)
        let tokenHash = SHA256.hash(Array(identityToken.utf8))
        // A token that passed the checks above costs a nonce row and (relay) a Firebase call, so
        // such attempts are counted per client, and given back when they turn out genuine.
        let secret = try context.rateLimitSecret()
        let limits = context.config.limits.appleSignIn(client: context.client, secret: secret)
        let send = apple.mode == .relay
            ? RelayUser.Send(nonceHash: token.nonceHash, subjectKey: RelaySends.subjectKey(token.subject, secret: secret))
            : nil
        let claim = try db.transaction { () throws(FrontdoorError) -> Claim in
            // Kept while the token could still pass the expiry check, skew included.
            if try Nonces.claim(hash: token.nonceHash, until: token.expiresAt + policy.clockSkew, db: db) {
                try RateLimits.hit(limits, db: db, now: context.now)
                if let send {
                    try RelaySends.mark(nonceHash: send.nonceHash, subjectKey: send.subjectKey, db: db, now: context.now)
                }
                return .fresh
            }
            // The same token and nonce again, after a 503 that kept what Firebase answered.
            guard apple.mode == .relay, let kept = try RelayAttempts.claim(
                nonceHash: token.nonceHash, tokenHash: tokenHash, lease: context.config.processLifetimeSeconds,
                db: db, now: context.now)
            else { return .replay }
            try RateLimits.hit(limits, db: db, now: context.now)
            return .kept(kept)
        }
        if case .replay = claim { throw .invalidToken("apple: nonce already used") }
        let progress = RelayProgress()
        do throws(FrontdoorError) {
            let identity: ProviderIdentity
            switch (apple.mode, claim) {
            case (.relay, .kept(let kept)):
                guard let firebase = context.config.firebase else { throw .internal("config: firebase: missing") }
                progress.firebaseMayHaveIt = true
                identity = try resumedIdentity(
                    token, kept: kept, rawNonce: rawNonce, tokenHash: tokenHash, name: name, firebase: firebase,
                    context: context)
            case (.relay, _):
                guard let firebase = context.config.firebase else { throw .internal("config: firebase: missing") }
                identity = try relayIdentity(token, rawNonce: rawNonce, tokenHash: tokenHash, name: name,
                                             firebase: firebase, send: send, context: context,
                                             afterwards: afterwards, progress: progress)
            case (.direct, _):
                identity = try directIdentity(
                    token, name: name, policy: policy, keysUrl: apple.keysUrl, context: context)
            }
            return try act(identity, prepared) { () throws(FrontdoorError) in
                try RateLimits.refund(limits, db: db, now: context.now)
                if case .kept = claim { try RelayAttempts.drop(nonceHash: token.nonceHash, tokenHash: tokenHash, db: db) }
            }
        } catch {
            let retryInvited = error.code == .upstreamUnavailable && !error.startsOver
            if error.code == .upstreamUnavailable {
                // Rule 5 and Firebase's refusal of a credential it has taken: the nonce comes back
                // only when Firebase cannot have seen it.
                if !progress.firebaseMayHaveIt { Nonces.release(hash: token.nonceHash, db: db) }
                _ = try? db.transaction { () throws(FrontdoorError) in try RateLimits.refund(limits, db: db, now: context.now) }
            }
            // Only an answer nobody can know keeps the mark: a user Firebase may have made stays findable.
            if case .fresh = claim, let send, !error.startsOver { try? RelaySends.clear(send, db: db) }
            if case .kept = claim {
                // Another 503 leaves it for the next retry; any other answer ends it.
                if retryInvited {
                    RelayAttempts.release(nonceHash: token.nonceHash, tokenHash: tokenHash, db: db)
                } else {
                    try? RelayAttempts.drop(nonceHash: token.nonceHash, tokenHash: tokenHash, db: db)
                }
            }
            throw error
        }
    }

    enum Claim {
        case fresh
        case kept(RelayAttempts.Kept)
        case replay
    }

    /// Whether this request's Apple credential may have reached Firebase.
    final class RelayProgress {
        var firebaseMayHaveIt = false
    }

    /// Rule 4: Firebase verifies Apple's token and nonce and answers with its own ID token, which
    /// is verified like a Google token. Firebase checked the very token we hold, so once its
    /// answer names the same Apple `sub`, that token's claims (email included) can be trusted.
    static func relayIdentity(
        _ apple: AppleToken, rawNonce: String, tokenHash: [UInt8], name: String?, firebase: Config.Firebase,
        send: RelayUser.Send?, context: RequestContext, afterwards: AppleAfterAnswer, progress: RelayProgress
    ) throws(FrontdoorError) -> ProviderIdentity {
        let relay = FirebaseRelay(firebase: firebase, client: context.httpClient())
        let sentAt = Clock.now()
        progress.firebaseMayHaveIt = true
        let signedIn: FirebaseRelay.SignedIn
        do {
            signedIn = try relay.signInWithIdp(appleToken: apple.raw, rawNonce: rawNonce)
        } catch {
            if error.requestNeverSent { progress.firebaseMayHaveIt = false }
            throw error
        }
        let adopted = try RelayUser.adopt(
            signedIn, appleSubject: apple.subject, sentAt: sentAt, send: send, relay: relay, context: context
        ) { pending in afterwards.pending = pending }
        guard adopted.namesApple else {
            throw .invalidToken("relay: firebase.identities apple.com is not the Apple token's sub")
        }
        let subjects: [String]
        do {
            subjects = try relayAppleSubjects(idToken: signedIn.idToken, localId: signedIn.localId, firebase: firebase,
                                              context: context)
        } catch {
            guard error.code == .upstreamUnavailable else { throw error }
            // Firebase has the credential and answered; its keys are what failed. The phone's retry
            // with the same token and nonce completes from what is kept, without Firebase.
            do {
                try RelayAttempts.keep(
                    nonceHash: apple.nonceHash, tokenHash: tokenHash, localId: signedIn.localId,
                    idToken: signedIn.idToken, rawNonce: rawNonce, serverKey: try DeletionAudit.key(config: context.config),
                    db: try context.database(), now: context.now)
            } catch {
                throw .startOver("relay: Firebase's answer could not be kept for a retry: \(error.detail ?? error.message)")
            }
            throw error
        }
        return try identity(apple, relaySubjects: subjects, name: name)
    }

    /// The phone's retry of a relay sign-in whose Firebase answer was kept: the same checks on
    /// the kept ID token, and no second `signInWithIdp` (Firebase would refuse the credential).
    static func resumedIdentity(
        _ apple: AppleToken, kept: RelayAttempts.Kept, rawNonce: String, tokenHash: [UInt8], name: String?,
        firebase: Config.Firebase, context: RequestContext
    ) throws(FrontdoorError) -> ProviderIdentity {
        TestHooks.pause("relay-resume")
        let serverKey = try DeletionAudit.key(config: context.config)
        guard let idToken = RelayAttempts.open(
            kept, rawNonce: rawNonce, serverKey: serverKey, nonceHash: apple.nonceHash, tokenHash: tokenHash)
        else { throw .invalidToken("relay: the kept sign-in does not open with this nonce") }
        let subjects = try relayAppleSubjects(
            idToken: idToken, localId: kept.localId, firebase: firebase, context: context)
        return try identity(apple, relaySubjects: subjects, name: name)
    }

    /// The person, once the relay's verified ID token names the Apple token's `sub`: Firebase
    /// checked the very token we hold, so its claims (email included) can be trusted.
    static func identity(
        _ apple: AppleToken, relaySubjects subjects: [String], name: String?
    ) throws(FrontdoorError) -> ProviderIdentity {
        guard subjects.contains(apple.subject) else {
            throw .invalidToken("relay: firebase.identities apple.com is not the Apple token's sub")
        }
        return ProviderIdentity(
            provider: .apple, subject: apple.subject, email: apple.email, emailVerified: apple.emailVerified,
            authoritativeForEmail: true, name: name)
    }

    /// Verifies the relay's Firebase ID token like a Google token (issuer and audience the project,
    /// `sub` the relay user, signed in with apple.com) and returns the Apple `sub`s inside it
    /// (`firebase.identities["apple.com"]`: one, for a relay user).
    static func relayAppleSubjects(
        idToken: String, localId: String, firebase: Config.Firebase, context: RequestContext
    ) throws(FrontdoorError) -> [String] {
        let issuer = "https://securetoken.google.com/" + firebase.projectId
        let policy = ClaimsPolicy(issuers: [issuer], audiences: [firebase.projectId])
        let verified = try IssuerTokens.verify(idToken, keysUrl: firebase.certsUrl, policy: policy, context: context)
        guard verified.subject == localId else {
            throw .invalidToken("relay: Firebase sub is not the relay user")
        }
        let claims = verified.claims["firebase"]
        guard claims?["sign_in_provider"]?.stringValue == "apple.com" else {
            throw .invalidToken("relay: firebase.sign_in_provider is not apple.com")
        }
        guard let subjects = claims?["identities"]?["apple.com"]?.arrayValue?.compactMap({ $0.stringValue }),
            !subjects.isEmpty
        else { throw .invalidToken("relay: firebase.identities has no apple.com") }
        return subjects
    }

    /// Direct mode: Apple's own keys, the same claim rules.
    static func directIdentity(
        _ apple: AppleToken, name: String?, policy: ClaimsPolicy, keysUrl: String, context: RequestContext
    ) throws(FrontdoorError) -> ProviderIdentity {
        let verified = try IssuerTokens.verify(apple.raw, keysUrl: keysUrl, policy: policy, context: context)
        return ProviderIdentity(
            provider: .apple, subject: verified.subject, email: verified.email, emailVerified: verified.emailVerified,
            authoritativeForEmail: true, name: name)
    }

    /// Apple gives the name to the phone only the first time; it is kept only when an account is made.
    /// Refused like signin-email's `name` when either part holds a control, bidi or other
    /// format character (Apple passes on whatever the person typed at Apple).
    static func displayName(_ body: JSONValue) throws(FrontdoorError) -> String? {
        let given = try PersonText.optional(body, "givenName", maxBytes: 256) ?? ""
        let family = try PersonText.optional(body, "familyName", maxBytes: 256) ?? ""
        let name = [given, family].filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? nil : name
    }
}

/// What a `signin-apple` process does once its answer is out: delete the relay user it made,
/// retry a few older deletions. Outcomes go to the store and syslog. (Expired nonces go with the
/// other expired rows: `Housekeeping`.)
final class AppleAfterAnswer {
    let context: RequestContext
    var pending: RelayCleanup.Pending?

    init(context: RequestContext) {
        self.context = context
    }

    func run() {
        let db: Database
        do {
            db = try context.database()
        } catch {
            SysLog.error("frontdoor signin-apple after-answer: store unavailable: \(error.detail ?? error.message)")
            return
        }
        let config = context.config
        if config.apple?.mode == .relay, let firebase = config.firebase {
            let deleter = RelayDeleter(context: context, firebase: firebase, db: db)
            // One try costs at most a refresh and a delete (or a token and an Admin API delete);
            // stop before the process's ceiling can cut one short.
            let perTry = Int64(2 * config.http.totalTimeoutSeconds) + 1
            let ceiling = context.now + config.processLifetimeSeconds
            let hasTime = { Clock.now() + perTry < ceiling }
            if let pending { RelayCleanup.finish(pending, deleter: deleter, db: db, hasTime: hasTime) }
            RelayCleanup.retryDue(deleter: deleter, db: db, now: Clock.now(), hasTime: hasTime)
        }
        // Revocations a deletion could not finish are retried by sign-ins too.
        AppleRevocation.AfterAnswer(context: context, plan: nil).retryDue(db: db)
    }
}
