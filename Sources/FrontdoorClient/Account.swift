import Foundation

/// The account as stored (`account` `get`): everything the server keeps about the person, and no
/// secret. The person's own copy of their data.
public struct Account: Codable, Equatable, Sendable {
    public struct LinkedProvider: Codable, Equatable, Sendable {
        public let provider: Provider
        public let linkedAt: Date
    }

    public struct Device: Codable, Equatable, Sendable {
        public let sessionId: String
        public let deviceName: String?
        public let createdAt: Date
        public let lastUsedAt: Date?
        public let expiresAt: Date
        /// The session asking.
        public let current: Bool
    }

    public let accountId: String
    public let email: String?
    public let emailVerified: Bool
    public let name: String?
    public let createdAt: Date
    public let hasPassword: Bool
    public let providers: [LinkedProvider]
    public let sessions: [Device]
    public let passkeys: [Passkey]?
}

/// One of the account's passkeys (`passkey` `list`, `account` `get`).
public struct Passkey: Codable, Equatable, Sendable {
    public let passkeyId: String
    public let name: String?
    public let createdAt: Date
    public let lastUsedAt: Date?
}
