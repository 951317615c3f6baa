/// `apple-notify`: Apple's server-to-server notifications for Sign in with Apple (DESIGN.md, "What
/// the two act on"). Verified as rule 1 verifies a sign-in token, recorded by `jti` in the
/// transaction of what it causes, answered 200 `{"received": true}` (a repeat, an unknown type or
/// `sub` too: Apple retries anything but a 200), 400 `invalid_token` for a notification that is not
/// Apple's, 503 when Apple's keys cannot be had (Apple retries; nothing unverified is acted on).
public enum AppleNotify {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        guard let apple = context.config.apple else {
            throw .internal("config: apple: not configured, yet apple-notify was called")
        }
        do {
            let token = try AppleNotification.payload(of: context.request.body)
            let checked = try EventTokens.verify(
                token, keysUrl: apple.keysUrl, client: keysClient(apple, context: context), policy: policy(apple),
                context: context)
            let notification = try AppleNotification.parse(events: checked.claims["events"])
            try act(notification, checked: checked, context: context)
            return CGIResponse(status: 200, body: .object([("received", true)]))
        } catch .failed(let error) {
            throw error
        } catch {
            FileIO.log("frontdoor endpoint=apple-notify detail=\(error)")
            return CGIResponse(
                status: 400,
                body: .object([("error", "invalid_token"), ("message", "The notification was not accepted.")]))
        }
    }

    public static func policy(_ apple: Config.Apple) -> EventPolicy {
        EventPolicy(issuers: [AppleToken.issuer], audiences: apple.notificationAudiences, checksExpiry: true)
    }

    /// Direct mode fetches Apple's keys as sign-in does. In relay mode the box may have no IPv4,
    /// which Apple's key host needs, or it may have it (relay mode also keeps Apple's team key off
    /// the box): `AppleKeysRoute` tries directly, then through `apple.keysProxy`; with neither,
    /// only the cached copy serves (fresh, or expired within the key cache's grace).
    static func keysClient(_ apple: Config.Apple, context: RequestContext) -> () -> HTTPClient {
        if apple.mode == .direct { return context.httpClient }
        return { AppleKeysRoute(direct: context.httpClient(), proxy: apple.keysProxy, http: context.config.http) }
    }

    static func act(_ notification: AppleNotification, checked: CheckedEvent, context: RequestContext)
        throws(EventRefusal)
    {
        do {
            let db = try context.database()
            let auditKey = try DeletionAudit.key(config: context.config)
            var actions = ProviderEventActions(
                context: context, db: db, auditKey: auditKey, eventTime: notification.eventTime ?? checked.issuedAt)
            // Verified, nothing written: a second delivery of the same event may run through here.
            TestHooks.pause("provider-event-verified")
            let outcome = try db.transaction { () throws(FrontdoorError) -> ProviderEventStore.Outcome? in
                actions.startAttempt()
                guard try ProviderEventStore.claim(
                    .apple, jti: checked.jti, types: notification.typeName, db: db, now: context.now)
                else { return nil }
                let outcome = try apply(notification, actions: &actions, auditKey: auditKey)
                try ProviderEventStore.settle(.apple, jti: checked.jti, outcome: outcome, db: db)
                // The row and the change are written, nothing is committed: the crash suite kills here.
                TestHooks.pause("provider-event-acted")
                return outcome
            }
            ProviderEventActions.log("apple-notify", types: notification.typeName, outcome: outcome?.rawValue ?? "repeat")
            actions.afterAnswer()
        } catch {
            throw .failed(error)
        }
    }

    static func apply(
        _ notification: AppleNotification, actions: inout ProviderEventActions, auditKey: [UInt8]
    ) throws(FrontdoorError) -> ProviderEventStore.Outcome {
        guard let kind = notification.kind, let subject = notification.subject else { return .ignored }
        let db = actions.db
        guard let accountId = try ProviderEventStore.account(.apple, subject: subject, db: db) else {
            // Our own revocation at a deletion makes Apple send this for a `sub` we no longer have.
            if kind == .consentRevoked,
                try ProviderEventStore.confirmRevocation(
                    subjectHash: AppleRevocationStore.subjectHash(subject, auditKey: auditKey),
                    now: actions.context.now, db: db)
            {
                return .echo
            }
            return .noAccount
        }
        switch kind {
        case .consentRevoked:
            // The person stopped using Apple for the app: signed out, the link kept, so signing in
            // with Apple again returns them to this account.
            _ = try actions.endSessions(of: accountId)
            return .applied
        case .accountDeleted:
            try actions.providerDeleted(.apple, subject: subject, accountId: accountId)
            return .applied
        case .emailDisabled, .emailEnabled:
            // Only the relay address that is the account's own: nothing else is ours to stop.
            guard notification.isPrivateEmail, let email = notification.email,
                try ProviderEventStore.emailKey(of: accountId, db: db) == EmailAddress.matchKey(email)
            else { return .ignored }
            try ProviderEventStore.setRelayMail(
                appleSubject: subject, on: kind == .emailEnabled, at: actions.time, db: db)
            return .applied
        }
    }
}
