/// Passkeys (rule 17): signing in with one, and the signed-in person's own.
extension Frontdoor {
    public func beginPasskeySignIn() async throws(FrontdoorError) -> PasskeyAssertionOptions {
        try await call("signin-passkey", .object([("action", "begin")]))
    }

    public func finishPasskeySignIn(
        _ options: PasskeyAssertionOptions, credential: PasskeyAssertionCredential, reauthenticating: Bool = false
    ) async throws(FrontdoorError) -> Session {
        let body = JSONBody.object([
            ("action", "finish"), ("ceremonyId", .string(options.ceremonyId)), ("credential", credential.json),
            ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("signin-passkey", body, bearer: .ifReauthenticating(reauthenticating)))
    }

    /// Needs a recent sign-in, and a proven address (or none).
    public func beginPasskeyRegistration() async throws(FrontdoorError) -> PasskeyRegistrationOptions {
        try await call("passkey", .object([("action", "register_begin")]), bearer: .required)
    }

    /// `name`: what the list shows ("iPhone").
    public func finishPasskeyRegistration(
        _ options: PasskeyRegistrationOptions, credential: PasskeyRegistrationCredential, name: String? = nil
    ) async throws(FrontdoorError) -> AddedPasskey {
        let body = JSONBody.object([
            ("action", "register_finish"), ("ceremonyId", .string(options.ceremonyId)), ("credential", credential.json),
            ("name", .text(name)),
        ])
        return try await call("passkey", body, bearer: .required)
    }

    public func passkeys() async throws(FrontdoorError) -> [Passkey] {
        struct Answer: Decodable { let passkeys: [Passkey] }
        let answer: Answer = try await call("passkey", .object([("action", "list")]), bearer: .required)
        return answer.passkeys
    }

    /// Ends no session, not even those the passkey made.
    public func deletePasskey(id: String) async throws(FrontdoorError) {
        struct Answer: Decodable { let deleted: Bool }
        let _: Answer = try await call("passkey", .object([("action", "delete"), ("passkeyId", .string(id))]), bearer: .required)
    }
}
