import Shared

/// The fake's `accounts:signInWithIdp` and the ID tokens it mints.
extension FakeFirebase {
    static func signInWithIdp(
        _ request: LoopbackHTTPServer.Request, state: Locked<State>
    ) -> LoopbackHTTPServer.Behaviour {
        let behaviour = state.withLock { s -> SignInBehaviour in
            s.signInRequests += 1
            return s.signIn
        }
        switch behaviour {
        case .hang(let seconds): return .hang(seconds: seconds)
        case .error(let status, let message): return failure(status, message)
        default: break
        }
        guard let body = try? JSONParser.parse(request.body) else { return failure(400, "INVALID_JSON") }
        guard body["requestUri"]?.stringValue?.isEmpty == false else { return failure(400, "MISSING_REQUEST_URI") }
        let form = DevProvider.splitQuery("/?" + (body["postBody"]?.stringValue ?? "")).1
        guard form["providerId"] == "apple.com" else {
            return failure(400, "INVALID_PROVIDER_ID : Provider Id is not supported.")
        }
        guard let appleToken = form["id_token"] else { return failure(400, "INVALID_IDP_RESPONSE : Missing id_token") }
        let (appleKeys, bundleIds) = state.withLock { ($0.appleKeys(), $0.bundleIds) }
        let verified: VerifiedToken
        do {
            let keys = try JSONWebKeySet.parse(Array(JWTMinter.jwks(appleKeys).utf8))
            let policy = ClaimsPolicy(issuers: [FakeApple.issuer], audiences: bundleIds)
            verified = try TokenVerifier.verify(appleToken, keys: keys, policy: policy, now: Clock.now())
        } catch {
            return failure(400, "INVALID_IDP_RESPONSE : The supplied auth credential is malformed or has expired.")
        }
        guard let rawNonce = form["nonce"], let nonce = verified.claims["nonce"]?.stringValue else {
            return failure(400, "MISSING_OR_INVALID_NONCE : Nonce is missing in the request.")
        }
        guard nonce == FakeApple.nonceClaim(rawNonce) else {
            return failure(
                400,
                "MISSING_OR_INVALID_NONCE : The nonce in ID Token does not match the SHA256 hash of the raw nonce.")
        }
        // The real service takes an Apple credential once: firebase-ios-sdk#4434, and the captured
        // 400 in capawesome-team/capacitor-firebase#204. The emulator does not check this.
        let duplicate = state.withLock { s -> Bool in
            guard s.refuseDuplicateCredentials else { return false }
            return !s.acceptedCredentials.insert(appleToken).inserted
        }
        if duplicate {
            return failure(
                400, "MISSING_OR_INVALID_NONCE : Duplicate credential received. Please try again with a new credential.")
        }
        let secure = body["returnSecureToken"] == true
        guard let answer = state.withLock({ s in signIn(verified, secure: secure, behaviour: behaviour, state: &s) })
        else { return failure(500, "INTERNAL") }
        if case .acceptThenHang(let seconds) = behaviour { return .hang(seconds: seconds) }
        return .respond(.json(JSONValue.object(answer).serialized))
    }

    /// The answer's members, the user found or made as the real service would.
    private static func signIn(
        _ verified: VerifiedToken, secure: Bool, behaviour: SignInBehaviour, state s: inout State
    ) -> [(String, JSONValue)]? {
        var members: [(String, JSONValue)] = [
            ("kind", "identitytoolkit#VerifyAssertionResponse"),
            ("federatedId", .string(FakeApple.issuer + "/" + verified.subject)), ("providerId", "apple.com"),
        ]
        if let email = verified.email {
            members.append(("email", .string(email)))
            members.append(("emailVerified", .bool(verified.emailVerified)))
        }
        let byEmail = verified.email.flatMap { email in
            s.users.values.first { $0.appleSub == nil && $0.email?.lowercased() == email.lowercased() }
        }
        switch behaviour {
        case .needConfirmation:
            // The existing user's localId, no tokens (the Auth emulator's idp.spec.ts asserts no idToken).
            guard let existing = byEmail else { return nil }
            return members + [
                ("needConfirmation", true), ("localId", .string(existing.localId)),
                ("verifiedProvider", .array(["google.com"])),
            ]
        default: break
        }
        let now = Clock.now()
        var user: User
        var isNew = false
        if let existing = s.users.values.first(where: { $0.appleSub == verified.subject }) {
            user = existing
        } else if s.linkByEmail, verified.emailVerified, var linked = byEmail {
            // One account per email address: a verified IdP email joins the project's user.
            linked.appleSub = verified.subject
            user = linked
        } else {
            guard let localId = try? randomId(21), let refresh = try? randomId(48) else { return nil }
            TestLogs.register(refresh)
            user = User(localId: localId, appleSub: verified.subject, email: verified.email,
                        emailVerified: verified.emailVerified, refreshToken: refresh, authTime: now, createdAt: now)
            s.created += 1
            isNew = true
        }
        user.authTime = now
        s.users[user.localId] = user
        members.append(("localId", .string(user.localId)))
        if isNew { members.append(("isNewUser", true)) }
        if case .mfaPending = behaviour {
            return members + [
                ("mfaPendingCredential", "AMzJoSl-fake-pending-credential"),
                ("mfaInfo", .array([.object([("mfaEnrollmentId", "fake-enrollment"), ("phoneInfo", "+1******1234")])])),
            ]
        }
        guard secure else { return members }
        if case .omitIdToken = behaviour {} else {
            guard let token = try? idToken(for: user, state: &s) else { return nil }
            members.append(("idToken", .string(token)))
        }
        if case .omitRefreshToken = behaviour {} else { members.append(("refreshToken", .string(user.refreshToken))) }
        members.append(("expiresIn", "3600"))
        return members
    }

    /// A Firebase ID token for `user`, shaped like the real ones, with the test's overrides.
    static func idToken(for user: User, state s: inout State) throws -> String {
        guard let key = s.firebaseKeys.first else { throw FakeGoogle.FakeError.noKey }
        let now = Clock.now()
        var identities: [(String, JSONValue)] = []
        if let sub = user.appleSub { identities.append(("apple.com", .array([.string(sub)]))) }
        if let email = user.email { identities.append(("email", .array([.string(email)]))) }
        var claims: [(String, JSONValue)] = [
            ("iss", .string("https://securetoken.google.com/" + projectId)), ("aud", .string(projectId)),
            ("auth_time", .number(Double(user.authTime))), ("user_id", .string(user.localId)),
            ("sub", .string(user.localId)), ("iat", .number(Double(now))), ("exp", .number(Double(now + 3600))),
        ]
        if let email = user.email {
            claims.append(("email", .string(email)))
            claims.append(("email_verified", .bool(user.emailVerified)))
        }
        let provider: JSONValue = user.appleSub == nil ? "password" : "apple.com"
        claims.append(("firebase", .object([("identities", .object(identities)), ("sign_in_provider", provider)])))
        for (name, value) in s.claimOverrides {
            claims.removeAll { $0.0 == name }
            if !value.isNull { claims.append((name, value)) }
        }
        let token = try JWTMinter.mint(claims: claims, key: key)
        s.idTokens[token] = user.localId
        // RS256 is deterministic: the same claims in the same second give the same, now fresh, token.
        s.expiredTokens.remove(token)
        return token
    }
}
