/// `passkey`: a signed-in person adds, lists and deletes their passkeys (rule 17). Every action
/// takes the session's bearer token; a registration is finished only by the session that began it.
public enum PasskeyEndpoint {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let passkeys = try PasskeySignIn.configured(context)
        switch try context.body.requiredString("action", maxBytes: 64) {
        case "register_begin": return try registerBegin(context, passkeys)
        case "register_finish": return try registerFinish(context, passkeys)
        case "list": return try list(context)
        case "delete": return try delete(context)
        default: throw .invalidRequest("action must be \"register_begin\", \"register_finish\", \"list\" or \"delete\".")
        }
    }

    /// The live session behind the bearer token: its account and public id.
    static func session(_ context: RequestContext, _ db: Database) throws(FrontdoorError) -> LiveSession {
        guard let token = context.request.bearerToken, Sessions.isWellFormed(token) else { throw Sessions.unauthorized }
        let (session, verdict) = try Sessions.judged(
            db, tokenHash: Sessions.hash(token), now: context.now, policy: context.config.sessions, whole: false)
        guard SessionPolicy.admits(verdict, now: context.now) else { throw Sessions.unauthorized }
        return session
    }

    /// The stored form of the bearer token `session` admitted.
    static func bearerHash(_ context: RequestContext) throws(FrontdoorError) -> [UInt8] {
        guard let token = context.request.bearerToken, Sessions.isWellFormed(token) else { throw Sessions.unauthorized }
        return Sessions.hash(token)
    }

    /// Only to an account whose email is proven or that has none (rule 17). Its email and name.
    static func eligible(_ accountId: String, _ db: Database) throws(FrontdoorError) -> (String?, String?) {
        guard let row = try db.query(
            "SELECT email, email_verified, name FROM accounts WHERE id = ?", [.text(accountId)]
        ).first else { throw Sessions.unauthorized }
        let email = row.text(0)
        guard email == nil || row.int(1) == 1 else {
            throw FrontdoorError(
                .emailNotVerified, "Verify your email address before adding a passkey.",
                detail: "passkey refused: the account's email is not proven")
        }
        return (email, row.text(2))
    }

    static func registerBegin(_ context: RequestContext, _ passkeys: Config.Passkeys) throws(FrontdoorError) -> CGIResponse {
        let db = try context.database()
        let limits = context.config.limits
        let secret = try context.rateLimitSecret()
        let options = try db.transaction { () throws(FrontdoorError) -> JSONValue in
            let session = try session(context, db)
            // Rule 18: a stolen session alone must not add a lasting way in (issue 29). First,
            // before every refusal of its own.
            try RecentSignIn.require(
                tokenHash: try bearerHash(context), accountId: session.accountId, db: db,
                policy: context.config.sessions, now: context.now)
            let (email, name) = try eligible(session.accountId, db)
            // A full account is told before its phone makes a passkey we would refuse, and counts nothing.
            try PasskeyStore.refuseIfFull(session.accountId, db: db)
            try RateLimits.hit(
                limits.passkeyBegin(client: context.client, network: context.network, secret: secret)
                    + [limits.passkeyRegistration(accountId: session.accountId, secret: secret)],
                db: db, now: context.now)
            let handle = try PasskeyStore.userHandle(session.accountId, db: db)
            let begun = try PasskeyCeremonies.begin(.registration, sessionId: session.sessionId, db: db, now: context.now)
            let excluded = try PasskeyStore.credentials(session.accountId, db: db).map { (id, transports) -> JSONValue in
                .object([
                    ("type", "public-key"), ("id", .string(Base64URL.encode(id))),
                    ("transports", .array(transports.map(JSONValue.string))),
                ])
            }
            // The phone shows `name` in its passkey list; an account with neither email nor name
            // shows the service's name.
            let userName = email ?? name ?? passkeys.rpName
            let publicKey: JSONValue = .object([
                ("rp", .object([("id", .string(passkeys.rpId)), ("name", .string(passkeys.rpName))])),
                ("user", .object([
                    ("id", .string(Base64URL.encode(handle))), ("name", .string(userName)),
                    ("displayName", .string(name ?? userName)),
                ])),
                ("challenge", .string(Base64URL.encode(begun.challenge))),
                ("pubKeyCredParams", .array([
                    .object([("type", "public-key"), ("alg", .number(Double(COSEAlgorithm.es256.rawValue)))]),
                    .object([("type", "public-key"), ("alg", .number(Double(COSEAlgorithm.rs256.rawValue)))]),
                ])),
                ("timeout", .number(Double(PasskeyCeremonies.lifetimeSeconds * 1000))),
                ("attestation", "none"),
                ("authenticatorSelection", .object([("residentKey", "required"), ("userVerification", "required")])),
                ("excludeCredentials", .array(excluded)),
            ])
            return .object([("ceremonyId", .string(begun.ceremonyId)), ("publicKey", publicKey)])
        }
        return CGIResponse(status: 200, body: options)
    }

    static func registerFinish(_ context: RequestContext, _ passkeys: Config.Passkeys) throws(FrontdoorError) -> CGIResponse {
        let ceremonyId = try context.body.requiredString("ceremonyId", maxBytes: 64)
        guard let credential = context.body["credential"] else { throw .invalidRequest("credential is required.") }
        let name = try PersonText.optional(context.body, "name", maxBytes: 64)
        let response: RegistrationResponse
        do throws(PasskeyError) {
            response = try PasskeyCredentialJSON.registration(credential)
        } catch {
            throw error.frontdoorError
        }
        let db = try context.database()
        typealias Added = (createdAt: UnixTime, notice: PasskeyNotice?)
        // A response that fails a check returns its refusal: the ceremony's taking commits alone.
        let outcome = try db.transaction { () throws(FrontdoorError) -> Result<Added, FrontdoorError> in
            let session = try session(context, db)
            let challenge = try PasskeyCeremonies.take(
                ceremonyId, kind: .registration, sessionId: session.sessionId, db: db, now: context.now)
            _ = try eligible(session.accountId, db)
            let registered: RegisteredPasskey
            do throws(PasskeyError) {
                registered = try PasskeyRegistration.verify(
                    response, challenge: challenge, relyingParty: passkeys.relyingParty)
            } catch {
                return .failure(error.frontdoorError)
            }
            // Again here: two ceremonies begun under the cap may both finish.
            try PasskeyStore.refuseIfFull(session.accountId, db: db)
            try PasskeyStore.insert(registered, session: session, name: name, db: db, now: context.now)
            try Events.record(
                .linked(provider: "passkey"), accountId: session.accountId, in: db, config: context.config, now: context.now)
            let notice = try PasskeyNotice.read(session, passkeyName: name, config: context.config, db: db, now: context.now)
            // The crash suite kills a registration here: its credential, event and the ceremony's
            // removal written, nothing committed.
            TestHooks.pause("passkey-registered")
            return .success((context.now, notice))
        }
        let (createdAt, notice) = try outcome.get()
        if let notice { context.runAfterAnswer { notice.send(context) } }
        return CGIResponse(status: 200, body: .object([
            ("passkeyId", .string(Base64URL.encode(response.credentialId))),
            ("createdAt", .string(Clock.rfc3339(createdAt))),
        ]))
    }

    static func list(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let db = try context.database()
        let listed = try db.transaction { () throws(FrontdoorError) -> JSONValue in
            try PasskeyStore.list(try session(context, db).accountId, db: db)
        }
        return CGIResponse(status: 200, body: .object([("passkeys", listed)]))
    }

    /// Ends no session: a passkey is a way in, not a sign-in. Removing a way in is rule 18's: it
    /// needs a recent sign-in, and the account's last passkey goes only when another way in
    /// remains (`WaysIn`).
    static func delete(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let passkeyId = try context.body.requiredString("passkeyId", maxBytes: 2048)
        let db = try context.database()
        let notice = try db.transaction { () throws(FrontdoorError) -> SettingsNotice? in
            let accountId = try session(context, db).accountId
            try RecentSignIn.require(
                tokenHash: try bearerHash(context), accountId: accountId, db: db, policy: context.config.sessions,
                now: context.now)
            try PasskeyStore.delete(passkeyId, accountId: accountId, db: db, now: context.now)
            let left = try db.query("SELECT 1 FROM passkeys WHERE account_id = ? LIMIT 1", [.text(accountId)])
            if left.isEmpty, let ways = try WaysIn.of(accountId, db: db), ways.isEmpty {
                throw FrontdoorError(
                    .lastSignInMethod, "This is the account's last way to sign in. Add another before removing it.")
            }
            return try SettingsNotice.read(.passkeyRemoved, accountId: accountId, config: context.config, db: db, now: context.now)
        }
        if let notice { context.runAfterAnswer { notice.send(context) } }
        return CGIResponse(status: 200, body: .object([("deleted", true)]))
    }
}
