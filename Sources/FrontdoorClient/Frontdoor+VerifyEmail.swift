/// `verify-email`: proof before a join, the account's own address, and password reset.
extension Frontdoor {
    /// Mails a code for a `proofRequired`, `needsProof` or `EmailChange` ticket.
    public func sendCode(ticket: String) async throws(FrontdoorError) -> CodeSent {
        try await call("verify-email", .object([("action", "send_code"), ("ticket", .string(ticket))]))
    }

    /// Completes a ticket with the mailed code: the join, the own address, or an address change.
    /// `reauthenticating` (the signed-in person's own address or address change): the stored
    /// session is proven again in place rather than a second one made.
    public func confirm(ticket: String, code: String, reauthenticating: Bool = false) async throws(FrontdoorError) -> Session {
        let body = JSONBody.object([
            ("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code)), ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("verify-email", body, bearer: .ifReauthenticating(reauthenticating)))
    }

    /// Completes a `proofRequired` ticket whose methods include `.password` with the account's password.
    public func confirm(ticket: String, password: String) async throws(FrontdoorError) -> Session {
        let body = JSONBody.object([
            ("action", "confirm"), ("ticket", .string(ticket)), ("password", .string(password)),
            ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("verify-email", body))
    }

    /// Whether the signed-in account's address is proven; if not, a ticket to prove it by code.
    public func verifyOwnEmail() async throws(FrontdoorError) -> OwnEmail {
        struct Answer: Decodable {
            let emailVerified: Bool
            let ticket: String?
            let email: String?
            let methods: [ProofMethod]?
        }
        let answer: Answer = try await call("verify-email", .object([("action", "verify_own_email")]), bearer: .required)
        guard !answer.emailVerified else { return .verified }
        guard let ticket = answer.ticket, let email = answer.email else { throw .unreadableAnswer(status: 200) }
        return .needsProof(ticket: ticket, email: email, methods: answer.methods ?? [])
    }

    /// Asks for a reset code to `email`: the same answer whether or not an account has it.
    public func requestPasswordReset(email: String) async throws(FrontdoorError) -> PasswordReset {
        try await call("verify-email", .object([("action", "reset_request"), ("email", .string(email))]))
    }

    /// Sets a new password with the mailed code; every other session ends, and this phone is signed in.
    public func resetPassword(ticket: String, code: String, newPassword: String) async throws(FrontdoorError) -> Session {
        let body = JSONBody.object([
            ("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
            ("password", .string(newPassword)), ("deviceName", .text(deviceName)),
        ])
        return try remember(await call("verify-email", body))
    }
}
