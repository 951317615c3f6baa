/// `google-risc`: Google's Cross-Account Protection, Security Event Tokens pushed as RFC 8935 says
/// (DESIGN.md, "What the two act on"). The SET is checked with Google's keys (the key cache sign-in
/// keeps warm), recorded by `jti` with what it causes, and answered 202 with no body (a repeat or
/// an unknown `sub` too), or 400 with RFC 8935's `{"err", "description"}`.
public enum GoogleRISC {
    /// The issuer as Google's discovery document names it, and as its guide's example SET and the
    /// peers' tests write it, with a trailing slash: both are Google's.
    public static let issuers = ["https://accounts.google.com", "https://accounts.google.com/"]

    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        guard let google = context.config.google else {
            throw .internal("config: google: not configured, yet google-risc was called")
        }
        do {
            // The raw SET, whatever the Content-Type (RFC 8935 sends application/secevent+jwt).
            let token = String(decoding: context.request.body, as: UTF8.self).trimmingASCIISpaces()
            let checked = try EventTokens.verify(
                token, keysUrl: google.certsUrl, client: context.httpClient,
                policy: EventPolicy(issuers: issuers, audiences: google.clientIds, checksExpiry: false), context: context)
            let events = try RISCEvent.parse(events: checked.claims["events"], issuers: issuers)
            // RFC 8417's `toe`, the time of the event, when given; else when the SET was made.
            let time = (try? EventTokens.numericDate(checked.claims["toe"], "toe")) ?? checked.issuedAt
            try act(events, checked: checked, eventTime: time, context: context)
            return .empty(status: 202)
        } catch .failed(let error) {
            throw error
        } catch {
            FileIO.log("frontdoor endpoint=google-risc detail=\(error)")
            return CGIResponse(
                status: 400, body: .object([("err", .string(error.riscCode)), ("description", .string(description(error)))]))
        }
    }

    /// A sentence for each code, naming no value of the SET.
    static func description(_ refusal: EventRefusal) -> String {
        switch refusal {
        case .request, .failed: "The request is not a Security Event Token this receiver accepts."
        case .key: "The SET's signature or key was not accepted."
        case .issuer: "The SET's issuer is not Google."
        case .audience: "The SET is not addressed to this service's client ids."
        case .stale: "The SET is older than this receiver accepts."
        }
    }

    static func act(_ events: [RISCEvent], checked: CheckedEvent, eventTime: UnixTime, context: RequestContext)
        throws(EventRefusal)
    {
        let types = events.map(\.typeName).joined(separator: ",")
        do {
            let db = try context.database()
            let auditKey = try DeletionAudit.key(config: context.config)
            var actions = ProviderEventActions(context: context, db: db, auditKey: auditKey, eventTime: eventTime)
            // Verified, nothing written: a second delivery of the same event may run through here.
            TestHooks.pause("provider-event-verified")
            let outcome = try db.transaction { () throws(FrontdoorError) -> ProviderEventStore.Outcome? in
                actions.startAttempt()
                guard try ProviderEventStore.claim(.google, jti: checked.jti, types: types, db: db, now: context.now)
                else { return nil }
                var outcomes: [ProviderEventStore.Outcome] = []
                for event in events { outcomes.append(try apply(event, actions: &actions)) }
                let outcome: ProviderEventStore.Outcome =
                    outcomes.contains(.applied) ? .applied : outcomes.contains(.noAccount) ? .noAccount : .ignored
                try ProviderEventStore.settle(.google, jti: checked.jti, outcome: outcome, db: db)
                // The row and the change are written, nothing is committed: the crash suite kills here.
                TestHooks.pause("provider-event-acted")
                return outcome
            }
            ProviderEventActions.log("google-risc", types: types, outcome: outcome?.rawValue ?? "repeat")
            actions.afterAnswer()
        } catch {
            throw .failed(error)
        }
    }

    static func apply(_ event: RISCEvent, actions: inout ProviderEventActions) throws(FrontdoorError)
        -> ProviderEventStore.Outcome
    {
        guard let kind = event.kind else { return .ignored }
        let db = actions.db
        switch kind {
        case .verification:
            let line = "frontdoor endpoint=google-risc verification state=\(loggable(event.state))"
            FileIO.log(line)
            SysLog.info(line)
            return .ignored
        case .tokenRevoked:
            // A refresh token of another API: we keep none.
            return .ignored
        default:
            break
        }
        guard let subject = event.subject else { return .ignored }
        guard let accountId = try ProviderEventStore.account(.google, subject: subject, db: db) else { return .noAccount }
        switch kind {
        case .sessionsRevoked, .tokensRevoked, .credentialChangeRequired:
            _ = try actions.endSessions(of: accountId)
        case .accountDisabled:
            // Google's guide: end sessions on `hijacking`; for every reason, no Google sign-in and
            // no recovery mail to the Google address until `account-enabled`.
            try ProviderEventStore.block(
                googleSubject: subject, at: actions.time, accountId: accountId, db: db, now: actions.context.now)
            if event.reason == "hijacking" { try actions.takeBack(accountId) }
            if event.reason == "bulk-account" {
                SysLog.warning("frontdoor endpoint=google-risc account=\(accountId) reason=bulk-account blocked")
            }
        case .accountEnabled:
            try ProviderEventStore.unblock(
                googleSubject: subject, at: actions.time, accountId: accountId, db: db, now: actions.context.now)
        case .accountPurged:
            try actions.providerDeleted(.google, subject: subject, accountId: accountId)
        case .verification, .tokenRevoked:
            return .ignored
        }
        return .applied
    }

    /// `stream:verify`'s state as the operator chose it, or its hash when it holds anything else.
    static func loggable(_ state: String?) -> String {
        guard let state else { return "-" }
        let plain = !state.isEmpty && state.utf8.count <= 64 && state.utf8.allSatisfy { LedgerEntry.isIdByte($0) || $0 == UInt8(ascii: ".") }
        return plain ? state : "sha256:" + String(Hex.encode(SHA256.hash(Array(state.utf8))).prefix(16))
    }
}
