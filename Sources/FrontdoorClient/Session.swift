import Foundation

/// What every sign-in answers (the session body). The client keeps it in its `SessionStore`.
public struct Session: Codable, Equatable, Sendable {
    public let accountId: String
    /// The bearer token: a secret. Never log it.
    public let sessionToken: String
    /// The session's public handle (`account()` lists it; `signOut(.session(id))` ends it).
    public let sessionId: String
    public let sessionExpiresAt: Date
    /// True when this sign-in made the account.
    public let created: Bool
    public let email: String?
    public let providers: [Provider]
    /// True when a sign-in sent while signed in proved the same session again (rule 18).
    public let reauthenticated: Bool?
}

/// What the session store keeps of a session: enough to call the server and to show who is signed in.
public struct StoredSession: Codable, Equatable, Sendable {
    public let accountId: String
    public let sessionToken: String
    public let sessionId: String
    public let sessionExpiresAt: Date

    public init(accountId: String, sessionToken: String, sessionId: String, sessionExpiresAt: Date) {
        self.accountId = accountId
        self.sessionToken = sessionToken
        self.sessionId = sessionId
        self.sessionExpiresAt = sessionExpiresAt
    }

    init(_ session: Session) {
        self.init(
            accountId: session.accountId, sessionToken: session.sessionToken, sessionId: session.sessionId,
            sessionExpiresAt: session.sessionExpiresAt)
    }
}

/// The session check's answer (`session`): who the stored session belongs to, now.
public struct SessionInfo: Codable, Equatable, Sendable {
    public let accountId: String
    public let sessionId: String
    /// After any renewal this check made (sessions slide while the app is used).
    public let sessionExpiresAt: Date
    public let email: String?
    public let emailVerified: Bool
    public let providers: [Provider]
}
