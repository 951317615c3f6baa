import Foundation

/// A code was mailed for a ticket (`verify-email` `send_code`).
public struct CodeSent: Codable, Equatable, Sendable {
    public let codeExpiresAt: Date
}

/// A password reset was asked for (`reset_request`): the same answer whether or not an account
/// has the address. The code (if any) comes by mail; `resetPassword` takes both.
public struct PasswordReset: Codable, Equatable, Sendable {
    public let ticket: String
    public let codeExpiresAt: Date
}

/// Whether the signed-in account's address is proven (`verify_own_email`).
public enum OwnEmail: Equatable, Sendable {
    case verified
    /// Send a code with `sendCode(ticket:)`, then `confirm(ticket:code:)`.
    case needsProof(ticket: String, email: String, methods: [ProofMethod])
}

/// A code went to the new address (`account` `change_email`); `confirm(ticket:code:)` makes it the account's.
public struct EmailChange: Codable, Equatable, Sendable {
    public let ticket: String
    public let email: String
    public let codeExpiresAt: Date
}

/// The password was changed (`account` `change_password`); `ended`: the other sessions it ended.
public struct PasswordChange: Codable, Equatable, Sendable {
    public let changed: Bool
    public let ended: Int?
}

/// A passkey was registered (`passkey` `register_finish`).
public struct AddedPasskey: Codable, Equatable, Sendable {
    public let passkeyId: String
    public let createdAt: Date
}

/// Which sessions `signOut` ends.
public enum SignOutScope: Equatable, Sendable {
    /// This phone's session.
    case current
    /// Every other session of the account ("sign out my other devices").
    case others
    /// Every session, this one too.
    case all
    /// One session of the account's, by its `sessionId` (from `account()`).
    case session(String)
}
