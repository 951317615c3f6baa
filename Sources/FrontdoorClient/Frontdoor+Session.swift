/// The session's own calls: the check when the app starts, signing out, deleting the account.
extension Frontdoor {
    /// "Am I still signed in": nil when no session is kept or the server says it is gone (it is
    /// then forgotten). A failure to reach the server throws and keeps the session.
    public func checkSession() async throws(FrontdoorError) -> SessionInfo? {
        guard try storedSession() != nil else { return nil }
        do {
            return try await call("session", nil, bearer: .required)
        } catch .unauthorized {
            return nil
        }
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
