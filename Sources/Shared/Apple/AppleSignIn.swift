/// `signin-apple`: Apple's identity token and the raw nonce in, a session out. Relay mode has
/// Firebase check the token (the host may lack the IPv4 Apple needs); direct mode checks it
/// against Apple's keys.
public enum AppleSignIn {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        guard let apple = context.config.apple else {
            throw .internal("config: apple: not configured, yet signin-apple was called")
        }
        // Every request, whatever its outcome, leaves a little tidying for after its answer.
        let afterwards = AppleAfterAnswer(context: context)
        context.runAfterAnswer { afterwards.run() }

        let identityToken = try context.body.requiredString("identityToken", maxBytes: CompactJWS.maxTokenBytes)
        let rawNonce = try context.body.requiredString("rawNonce", maxBytes: 512)
        let name = try displayName(context.body)
        let deviceName = try PersonText.deviceName(context.body)
        let token = try AppleToken.precheck(
            identityToken, rawNonce: rawNonce, bundleIds: apple.bundleIds, now: context.now)

        let db = try context.database()
        let policy = AppleToken.policy(bundleIds: apple.bundleIds)
        // A token that passed the checks above costs a nonce row and (relay) a Firebase call, so
        // such attempts are counted per client, and given back when they turn out genuine.
        let limits = context.config.limits.appleSignIn(client: context.client, secret: try context.rateLimitSecret())
        let claimed = try db.transaction { () throws(FrontdoorError) -> Bool in
            // Kept while the token could still pass the expiry check, skew included.
            guard try Nonces.claim(hash: token.nonceHash, until: token.expiresAt + policy.clockSkew, db: db) else {
                return false
            }
            try RateLimits.hit(limits, db: db, now: context.now)
            return true
        }
        guard claimed else { throw .invalidToken("apple: nonce already used") }
        do throws(FrontdoorError) {
            let identity: ProviderIdentity
            switch apple.mode {
            case .relay:
                guard let firebase = context.config.firebase else { throw .internal("config: firebase: missing") }
                identity = try relayIdentity(token, rawNonce: rawNonce, name: name, firebase: firebase,
                                             context: context, afterwards: afterwards)
            case .direct:
                identity = try directIdentity(
                    token, name: name, policy: policy, keysUrl: apple.keysUrl, context: context)
            }
            return try ProviderSignIn.signIn(
                identity, db: db, config: context.config, now: context.now, deviceName: deviceName
            ) {
                () throws(FrontdoorError) in try RateLimits.refund(limits, db: db, now: context.now)
            }.response
        } catch {
            if error.code == .upstreamUnavailable {
                Nonces.release(hash: token.nonceHash, db: db)
                _ = try? db.transaction { () throws(FrontdoorError) in try RateLimits.refund(limits, db: db, now: context.now) }
            }
            throw error
        }
    }

    /// Rule 4: Firebase verifies Apple's token and nonce and answers with its own ID token, which
    /// is verified like a Google token. Firebase checked the very token we hold, so once its
    /// answer names the same Apple `sub`, that token's claims (email included) can be trusted.
    static func relayIdentity(
        _ apple: AppleToken, rawNonce: String, name: String?, firebase: Config.Firebase, context: RequestContext,
        afterwards: AppleAfterAnswer
    ) throws(FrontdoorError) -> ProviderIdentity {
        let relay = FirebaseRelay(firebase: firebase, client: context.httpClient())
        let signedIn = try relay.signInWithIdp(appleToken: apple.raw, rawNonce: rawNonce)
        // A relay user exists from here on: whatever happens next, it is deleted after the answer.
        afterwards.pending = RelayCleanup.Pending(
            localId: signedIn.localId, idToken: signedIn.idToken, refreshToken: signedIn.refreshToken)
        afterwards.pending?.recordId = try RelayCleanup.record(
            localId: signedIn.localId, refreshToken: signedIn.refreshToken, db: try context.database(),
            now: context.now)
        guard let idToken = signedIn.idToken else { throw .upstream("relay signInWithIdp: 200 without an idToken") }

        let subject = try relayAppleSubject(idToken: idToken, localId: signedIn.localId, firebase: firebase,
                                            context: context)
        guard subject == apple.subject else {
            throw .invalidToken("relay: firebase.identities apple.com is not the Apple token's sub")
        }
        return ProviderIdentity(
            provider: .apple, subject: apple.subject, email: apple.email, emailVerified: apple.emailVerified,
            authoritativeForEmail: true, name: name)
    }

    /// Verifies the relay's Firebase ID token like a Google token (issuer and audience the project,
    /// `sub` the relay user, signed in with apple.com) and returns the Apple `sub` inside it.
    static func relayAppleSubject(
        idToken: String, localId: String, firebase: Config.Firebase, context: RequestContext
    ) throws(FrontdoorError) -> String {
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
        guard let subject = claims?["identities"]?["apple.com"]?.arrayValue?.first?.stringValue else {
            throw .invalidToken("relay: firebase.identities has no apple.com")
        }
        return subject
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
            let relay = FirebaseRelay(firebase: firebase, client: context.httpClient())
            if let pending { RelayCleanup.finish(pending, relay: relay, db: db, now: Clock.now()) }
            // One retry costs at most a refresh and a delete; stop before the process's ceiling can cut one short.
            let perTry = Int64(2 * config.http.totalTimeoutSeconds) + 1
            let ceiling = context.now + config.processLifetimeSeconds
            RelayCleanup.retryDue(relay: relay, db: db, now: Clock.now()) { Clock.now() + perTry < ceiling }
        }
        // Revocations a deletion could not finish are retried by sign-ins too.
        AppleRevocation.AfterAnswer(context: context, plan: nil).retryDue(db: db)
    }
}
