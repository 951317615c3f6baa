/// `signin-passkey`: a discoverable credential's assertion in, a session out (rule 17), the same
/// session body as every other sign-in.
public enum PasskeySignIn {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let passkeys = try configured(context)
        switch try context.body.requiredString("action", maxBytes: 64) {
        case "begin": return try begin(context, passkeys)
        case "finish": return try finish(context, passkeys)
        default: throw .invalidRequest("action must be \"begin\" or \"finish\".")
        }
    }

    /// No `passkeys` section: no passkeys, and both endpoints answer 404.
    static func configured(_ context: RequestContext) throws(FrontdoorError) -> Config.Passkeys {
        guard let passkeys = context.config.passkeys else {
            throw FrontdoorError(.notFound, "Passkeys are not offered here.", detail: "config: passkeys: not configured")
        }
        return passkeys
    }

    static func begin(_ context: RequestContext, _ passkeys: Config.Passkeys) throws(FrontdoorError) -> CGIResponse {
        let db = try context.database()
        let limits = context.config.limits.passkeyBegin(
            client: context.client, network: context.network, secret: try context.rateLimitSecret())
        // Counted with the ceremony's row, so concurrent begins cannot all slip under the limit.
        let begun = try db.transaction { () throws(FrontdoorError) -> PasskeyCeremonies.Begun in
            try RateLimits.hit(limits, db: db, now: context.now)
            return try PasskeyCeremonies.begin(.signIn, sessionId: nil, db: db, now: context.now)
        }
        return CGIResponse(status: 200, body: .object([
            ("ceremonyId", .string(begun.ceremonyId)),
            ("publicKey", .object([
                ("challenge", .string(Base64URL.encode(begun.challenge))), ("rpId", .string(passkeys.rpId)),
                ("timeout", .number(Double(PasskeyCeremonies.lifetimeSeconds * 1000))),
                ("userVerification", "required"), ("allowCredentials", .array([])),
            ])),
        ]))
    }

    static func finish(_ context: RequestContext, _ passkeys: Config.Passkeys) throws(FrontdoorError) -> CGIResponse {
        let ceremonyId = try context.body.requiredString("ceremonyId", maxBytes: 64)
        guard let credential = context.body["credential"] else { throw .invalidRequest("credential is required.") }
        let deviceName = try PersonText.deviceName(context.body)
        let reauth = try Reauthentication.bearer(context)
        let response: AssertionResponse
        do throws(PasskeyError) {
            response = try PasskeyCredentialJSON.assertion(credential)
        } catch {
            throw error.frontdoorError
        }
        let db = try context.database()
        // A response that fails a check returns its refusal, so that the transaction commits the
        // ceremony's taking and nothing else: its challenge is spent, never tried twice.
        let outcome = try db.transaction { () throws(FrontdoorError) -> Result<SessionBody, FrontdoorError> in
            let challenge = try PasskeyCeremonies.take(ceremonyId, kind: .signIn, sessionId: nil, db: db, now: context.now)
            // An unknown credential is refused as a failed check: nothing says which ids exist.
            guard let (accountId, stored) = try PasskeyStore.find(response.credentialId, db: db) else {
                return .failure(FrontdoorError(
                    .invalidCredentials, "The passkey was not accepted.", detail: "passkey unknown credential"))
            }
            let verified: VerifiedAssertion
            do throws(PasskeyError) {
                verified = try PasskeyAssertion.verify(
                    response, challenge: challenge, relyingParty: passkeys.relyingParty, credential: stored)
            } catch {
                return .failure(error.frontdoorError)
            }
            try PasskeyStore.recordUse(response.credentialId, verified, db: db, now: context.now)
            if verified.counterWentBackwards || verified.backupEligibilityChanged || verified.backupStateChanged {
                SysLog.warning(
                    "frontdoor endpoint=signin-passkey account=\(accountId) counter_backwards=\(verified.counterWentBackwards) "
                        + "backup_eligibility_changed=\(verified.backupEligibilityChanged) "
                        + "backup_state_changed=\(verified.backupStateChanged)")
            }
            let body = try ProviderSignIn.startSession(
                db: db, accountId: accountId, created: false, config: context.config, now: context.now,
                deviceName: deviceName, reauth: reauth)
            // The crash suite kills a sign-in here: the ceremony taken, the record and the session
            // written, nothing committed.
            TestHooks.pause("passkey-signed-in")
            return .success(body)
        }
        return try outcome.get().response
    }
}
