import Shared

/// The fake's deletions (by ID token; by `localId` through the Admin API), securetoken's refresh
/// and `v2/accounts:revokeToken`.
extension FakeFirebase {
    /// `accounts:delete` with the user's own ID token. Past the recent sign-in (`auth_time`, which a
    /// refresh keeps) the real service answers `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` (firebase-js-sdk
    /// `api/errors.ts`; firebase-ios-sdk `AuthBackend.swift`); Google's Auth emulator never does.
    static func delete(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        guard let token = (try? JSONParser.parse(request.body))?["idToken"]?.stringValue else {
            return failure(400, "MISSING_ID_TOKEN")
        }
        let result = state.withLock { s -> String? in
            if s.failDeletions != 0 {
                if s.failDeletions > 0 { s.failDeletions -= 1 }
                return "UNAVAILABLE"
            }
            guard let localId = s.idTokens[token] else { return "INVALID_ID_TOKEN" }
            if s.expiredTokens.contains(token) { return "TOKEN_EXPIRED" }
            guard let user = s.users[localId] else { return "USER_NOT_FOUND" }
            if let window = s.recentSignInWindow, Clock.now() - user.authTime > window {
                return "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
            }
            s.users[localId] = nil
            s.deleted += 1
            return nil
        }
        switch result {
        case nil: return .respond(.json(#"{"kind":"identitytoolkit#DeleteAccountResponse"}"#))
        case "UNAVAILABLE": return failure(503, "UNAVAILABLE", status: "UNAVAILABLE")
        case let reason?: return failure(400, reason)
        }
    }

    /// `projects/{projectId}/accounts:delete` with `{"localId"}` and `Authorization: Bearer` an
    /// access token from the fake OAuth endpoint (firebase-admin-node `auth-api-request.ts`);
    /// no API key needed. `USER_NOT_FOUND` for a user that is not there.
    static func adminDelete(
        _ request: LoopbackHTTPServer.Request, path: String, state: Locked<State>
    ) -> LoopbackHTTPServer.Behaviour {
        if let refused = adminRefusal(request, path: path, operation: "accounts:delete", state: state) { return refused }
        guard let localId = (try? JSONParser.parse(request.body))?["localId"]?.stringValue else {
            return failure(400, "MISSING_LOCAL_ID")
        }
        let removed = state.withLock { s -> Bool in
            guard s.users.removeValue(forKey: localId) != nil else { return false }
            s.adminDeleted += 1
            return true
        }
        guard removed else { return failure(400, "USER_NOT_FOUND") }
        return .respond(.json(#"{"kind":"identitytoolkit#DeleteAccountResponse"}"#))
    }

    /// What the Admin API answers before looking at the body: a POST to this project's path with
    /// an access token from the fake OAuth endpoint, else 404, 403 or 401 as Google does; nil to go on.
    static func adminRefusal(
        _ request: LoopbackHTTPServer.Request, path: String, operation: String, state: Locked<State>
    ) -> LoopbackHTTPServer.Behaviour? {
        guard request.method == "POST" else { return failure(404, "NOT_FOUND") }
        guard path == "/v1/projects/\(projectId)/\(operation)" else {
            return failure(403, "The caller does not have permission", status: "PERMISSION_DENIED")
        }
        let bearer = request.header("authorization").flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
        }
        guard let bearer, let expires = state.current.oauth.issued[bearer], expires > Clock.now() else {
            return failure(
                401, "Request had invalid authentication credentials. Expected OAuth 2 access token.",
                status: "UNAUTHENTICATED")
        }
        if let (status, message) = state.current.adminFailure { return failure(status, message) }
        return nil
    }

    /// `projects/{projectId}/accounts:lookup` with `{"localId": [uid, …]}` and an access token, as
    /// firebase-admin-node's `getAccountInfoByUid` sends it. The users found; none found is a 200
    /// without `users` (Google's Auth emulator, firebase-tools `src/emulator/auth/operations.ts`
    /// `lookup`: "Drop users property if no users are found", for firebase-admin-node#1078).
    static func adminLookup(
        _ request: LoopbackHTTPServer.Request, path: String, state: Locked<State>
    ) -> LoopbackHTTPServer.Behaviour {
        if let refused = adminRefusal(request, path: path, operation: "accounts:lookup", state: state) { return refused }
        state.withLock { $0.adminLookups += 1 }
        if let (status, message) = state.current.adminLookupFailure { return failure(status, message) }
        let wanted = (try? JSONParser.parse(request.body))?["localId"]?.arrayValue?.compactMap { $0.stringValue } ?? []
        let users = state.current.users
        let found = wanted.compactMap { users[$0] }.map { user -> JSONValue in
            .object([
                ("localId", .string(user.localId)), ("createdAt", .string(String(user.createdAt * 1000))),
                ("lastLoginAt", .string(String(user.authTime * 1000))),
            ])
        }
        var body: [(String, JSONValue)] = [("kind", "identitytoolkit#GetAccountInfoResponse")]
        if !found.isEmpty { body.append(("users", .array(found))) }
        return .respond(.json(JSONValue.object(body).serialized))
    }

    /// Records the request, then answers as told: normally a 200 with an empty object when the
    /// ID token belongs to a live user and the request names apple.com and a CODE.
    static func revokeToken(
        _ request: LoopbackHTTPServer.Request, state: Locked<State>
    ) -> LoopbackHTTPServer.Behaviour {
        let body = try? JSONParser.parse(request.body)
        let behaviour = state.withLock { s -> SignInBehaviour in
            let idToken = body?["idToken"]?.stringValue ?? ""
            let valid = s.idTokens[idToken].map { s.users[$0] != nil && !s.expiredTokens.contains(idToken) } ?? false
            s.revocations.append(Revocation(
                providerId: body?["providerId"]?.stringValue, tokenType: body?["tokenType"]?.stringValue,
                token: body?["token"]?.stringValue, idTokenValid: valid, hasRedirectUri: body?["redirectUri"] != nil))
            return s.revoke
        }
        switch behaviour {
        case .hang(let seconds), .acceptThenHang(let seconds): return .hang(seconds: seconds)
        case .error(let status, let message): return failure(status, message)
        default: break
        }
        guard let revocation = state.current.revocations.last, revocation.idTokenValid else {
            return failure(400, "INVALID_ID_TOKEN")
        }
        guard revocation.providerId == "apple.com", revocation.tokenType == "CODE", revocation.token != nil else {
            return failure(400, "INVALID_ARGUMENT")
        }
        return .respond(.json("{}"))
    }

    static func refresh(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        let form = DevProvider.splitQuery("/?" + request.bodyText).1
        guard form["grant_type"] == "refresh_token", let refreshToken = form["refresh_token"] else {
            return failure(400, "INVALID_GRANT_TYPE")
        }
        let minted = state.withLock { s -> Result<(User, String), RefreshRefusal> in
            guard let user = s.users.values.first(where: { $0.refreshToken == refreshToken }) else {
                return .failure(RefreshRefusal(code: s.deletedUserRefresh == .userNotFound
                    ? "USER_NOT_FOUND" : "INVALID_REFRESH_TOKEN"))
            }
            guard let token = try? idToken(for: user, state: &s) else { return .failure(RefreshRefusal(code: "")) }
            return .success((user, token))
        }
        switch minted {
        case .failure(let refusal) where refusal.code.isEmpty: return failure(500, "INTERNAL")
        case .failure(let refusal): return failure(400, refusal.code)
        case .success(let (user, token)):
            let body = JSONValue.object([
                ("access_token", .string(token)), ("expires_in", "3600"), ("token_type", "Bearer"),
                ("refresh_token", .string(user.refreshToken)), ("id_token", .string(token)),
                ("user_id", .string(user.localId)), ("project_id", .string(projectId)),
            ])
            return .respond(.json(body.serialized))
        }
    }

    /// `accounts:lookup` with the user's own ID token (firebase-js-sdk's `GET_ACCOUNT_INFO`; the Auth
    /// emulator's `lookup`): the user, its `createdAt` in milliseconds as a string.
    static func lookup(_ request: LoopbackHTTPServer.Request, state: Locked<State>) -> LoopbackHTTPServer.Behaviour {
        guard let token = (try? JSONParser.parse(request.body))?["idToken"]?.stringValue else {
            return failure(400, "MISSING_ID_TOKEN")
        }
        let user = state.withLock { s -> User? in s.idTokens[token].flatMap { s.users[$0] } }
        guard let user else { return failure(400, "USER_NOT_FOUND") }
        let body = JSONValue.object([
            ("kind", "identitytoolkit#GetAccountInfoResponse"),
            ("users", .array([.object([
                ("localId", .string(user.localId)), ("createdAt", .string(String(user.createdAt * 1000))),
                ("lastLoginAt", .string(String(user.authTime * 1000))),
            ])])),
        ])
        return .respond(.json(body.serialized))
    }

    struct RefreshRefusal: Error {
        let code: String
    }
}
