/// The sign-ins: Google, Apple, email and password. Each answers the session body, which the
/// client keeps. `reauthenticating`: see `Frontdoor`.
extension Frontdoor {
    /// `signin-google` with the ID token Credential Manager (or Google's SDK) gave the phone.
    /// `rawNonce`: the raw value whose `hashed` form was the request's nonce, when one was set.
    public func signInWithGoogle(
        idToken: String, rawNonce: String? = nil, reauthenticating: Bool = false
    ) async throws(FrontdoorError) -> Session {
        let body = JSONBody.object([
            ("idToken", .string(idToken)), ("rawNonce", .text(rawNonce)), ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("signin-google", body, bearer: .ifReauthenticating(reauthenticating)))
    }

    /// `signin-google` with the nonce whose `hashed` value the app gave Google (GoogleSignIn's
    /// `nonce:`, Credential Manager's `setNonce`): send one every time, so that the server can
    /// require it (`google.requireNonce`).
    public func signInWithGoogle(idToken: String, nonce: Nonce, reauthenticating: Bool = false) async throws(FrontdoorError)
        -> Session
    {
        try await signInWithGoogle(idToken: idToken, rawNonce: nonce.raw, reauthenticating: reauthenticating)
    }

    /// `signin-apple` with what Apple's sheet gave. A 503 `upstreamUnavailable(startOver: false)`
    /// invites the same credential again after a few seconds; `startOver: true` needs a new sheet.
    public func signInWithApple(
        _ credential: AppleCredential, reauthenticating: Bool = false
    ) async throws(FrontdoorError) -> Session {
        let body = JSONBody.object([
            ("identityToken", .string(credential.identityToken)), ("rawNonce", .string(credential.nonce.raw)),
            ("givenName", .text(credential.givenName)), ("familyName", .text(credential.familyName)),
            ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("signin-apple", body, bearer: .ifReauthenticating(reauthenticating)))
    }

    /// `signin-email` `register`: a new password account. `acceptAsTyped` keeps an address the
    /// server took for a slip (`invalidEmail(suggestion:)`).
    public func register(
        email: String, password: String, name: String? = nil, acceptAsTyped: Bool = false
    ) async throws(FrontdoorError) -> Session {
        let body = JSONBody.object([
            ("action", "register"), ("email", .string(email)), ("password", .string(password)),
            ("name", .text(name)), ("acceptAsTyped", acceptAsTyped ? .bool(true) : nil), ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("signin-email", body))
    }

    /// `signin-email` `login`.
    public func signIn(email: String, password: String, reauthenticating: Bool = false) async throws(FrontdoorError)
        -> Session
    {
        let body = JSONBody.object([
            ("action", "login"), ("email", .string(email)), ("password", .string(password)),
            ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("signin-email", body, bearer: .ifReauthenticating(reauthenticating)))
    }
}
