/// `account`: the person's own copy of their data, their name, and the settings of rule 18.
/// Every settings change but `changePassword` needs a recent sign-in: otherwise
/// `reauthenticationRequired(methods:)`, and nothing changes.
extension Frontdoor {
    public func account() async throws(FrontdoorError) -> Account {
        try await call("account", .object([("action", "get")]), bearer: .required)
    }

    /// Sets the name, or removes it with nil.
    public func setName(_ name: String?) async throws(FrontdoorError) -> Account {
        try await call("account", .object([("action", "update"), ("name", name.map(JSONBody.string) ?? .null)]), bearer: .required)
    }

    /// The current password proves the person: no recent sign-in needed. Other sessions end.
    public func changePassword(current: String, new: String) async throws(FrontdoorError) -> PasswordChange {
        let body = JSONBody.object([
            ("action", "change_password"), ("currentPassword", .string(current)), ("newPassword", .string(new)),
        ])
        return try await call("account", body, bearer: .required)
    }

    /// A password for an account that has none (then email and password sign in too).
    public func setPassword(_ newPassword: String) async throws(FrontdoorError) {
        struct Answer: Decodable { let changed: Bool }
        let _: Answer = try await call(
            "account", .object([("action", "set_password"), ("newPassword", .string(newPassword))]), bearer: .required)
    }

    /// Mails a code to `newEmail`; `confirm(ticket:code:reauthenticating: true)` then makes it the
    /// account's address and keeps this session.
    public func changeEmail(to newEmail: String, acceptAsTyped: Bool = false) async throws(FrontdoorError) -> EmailChange {
        let body = JSONBody.object([
            ("action", "change_email"), ("newEmail", .string(newEmail)), ("acceptAsTyped", acceptAsTyped ? .bool(true) : nil),
        ])
        return try await call("account", body, bearer: .required)
    }

    /// Adds Google as a way in.
    public func linkGoogle(idToken: String, rawNonce: String? = nil) async throws(FrontdoorError) -> Account {
        let body = JSONBody.object([
            ("action", "link"), ("provider", "google"), ("idToken", .string(idToken)), ("rawNonce", .text(rawNonce)),
        ])
        return try await call("account", body, bearer: .required)
    }

    /// Adds Apple as a way in.
    public func linkApple(_ credential: AppleCredential) async throws(FrontdoorError) -> Account {
        let body = JSONBody.object([
            ("action", "link"), ("provider", "apple"), ("identityToken", .string(credential.identityToken)),
            ("rawNonce", .string(credential.nonce.raw)),
        ])
        return try await call("account", body, bearer: .required)
    }

    /// Removes a way in (never the last). For Apple, a fresh authorization code lets the server
    /// revoke Sign in with Apple as a deletion does.
    public func unlink(_ provider: Provider, appleAuthorizationCode: String? = nil) async throws(FrontdoorError) -> Account {
        let body = JSONBody.object([
            ("action", "unlink"), ("provider", .string(provider.rawValue)),
            ("appleAuthorizationCode", .text(appleAuthorizationCode)),
        ])
        return try await call("account", body, bearer: .required)
    }
}
