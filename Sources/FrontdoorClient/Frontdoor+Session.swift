/// The session's own calls: the check when the app starts, signing out, deleting the account.
extension Frontdoor {
    /// "Am I still signed in": nil when no session is kept or the server says it is gone (it is
    /// then forgotten). A failure to reach the server throws and keeps the session.
    /// A renewal the check made (sessions slide while the app is used) is kept, and told to
    /// `sessionChanges` as `.renewed`.
    public func checkSession() async throws(FrontdoorError) -> SessionInfo? {
        guard let stored = try storedSession() else { return nil }
        let info: SessionInfo
        do {
            info = try await call("session", nil, bearer: .required)
        } catch .unauthorized {
            return nil
        }
        if info.sessionId == stored.sessionId, info.sessionExpiresAt != stored.sessionExpiresAt {
            let renewed = StoredSession(
                accountId: stored.accountId, sessionToken: stored.sessionToken, sessionId: stored.sessionId,
                sessionExpiresAt: info.sessionExpiresAt)
            do {
                try store.save(renewed)
            } catch {
                throw .sessionStore(String(describing: error))
            }
            changes.send(.renewed(renewed))
        }
        return info
    }

    /// Ends sessions (`sign-out`); answers how many ended. Ending this phone's session forgets it.
    @discardableResult
    public func signOut(_ scope: SignOutScope = .current) async throws(FrontdoorError) -> Int {
        struct Answer: Decodable { let ended: Int }
        let body: JSONBody
        var endsThisOne = false
        switch scope {
        case .current:
            body = .object([("scope", "current")])
            endsThisOne = true
        case .others: body = .object([("scope", "others")])
        case .all:
            body = .object([("scope", "all")])
            endsThisOne = true
        case .session(let id):
            body = .object([("sessionId", .string(id))])
            endsThisOne = try storedSession()?.sessionId == id
        }
        let answer: Answer = try await call("sign-out", body, bearer: .required)
        if endsThisOne { try forgetSession() }
        return answer.ended
    }

    /// Deletes the account (`delete-account`) and forgets the session. For an account with Apple,
    /// pass a fresh Apple authorization (a new sheet with a new nonce, just before) so the server
    /// can revoke Sign in with Apple; without one the answer is `.notRequested`.
    public func deleteAccount(apple: AppleCredential? = nil) async throws(FrontdoorError) -> AppleRevocationStatus {
        struct Answer: Decodable { let appleRevocation: AppleRevocationStatus }
        let body = JSONBody.object([
            ("appleAuthorizationCode", .text(apple?.authorizationCode)),
            ("appleIdentityToken", .text(apple?.identityToken)), ("appleRawNonce", .text(apple?.nonce.raw)),
        ])
        let answer: Answer = try await call("delete-account", body, bearer: .required)
        try forgetSession()
        return answer.appleRevocation
    }
}
