/// One account event as the app's receiver gets it (DESIGN.md, "Events"). The body is built once,
/// when the change is written, and stored as sent: a deletion's event needs nothing of the
/// account's rows, which are gone by the time it is delivered.
public struct Event: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case created = "account.created"
        case linked = "account.linked"
        case emailVerified = "account.email_verified"
        case deleted = "account.deleted"
        case unlinked = "account.unlinked"
        case updated = "account.updated"
    }

    public let id: String
    public let kind: Kind
    public let accountId: String
    public let occurredAt: UnixTime
    /// The account's sign-in methods once the change is made (for a deletion: what it had), sorted.
    public let providers: [String]
    /// `account.linked` and `account.unlinked` only: the method that joined (`google`, `apple`,
    /// `password`, `passkey`), or that went.
    public let provider: String?
    /// `account.updated` only: what changed (`password` or `email`), never the new value.
    public let changed: [String]?

    public init(
        id: String, kind: Kind, accountId: String, occurredAt: UnixTime, providers: [String], provider: String? = nil,
        changed: [String]? = nil
    ) {
        self.id = id
        self.kind = kind
        self.accountId = accountId
        self.occurredAt = occurredAt
        self.providers = providers
        self.provider = provider
        self.changed = changed
    }

    /// A new, random id: 128 bits, base64url. The receiver de-duplicates by it.
    static func newId() throws(FrontdoorError) -> String {
        Base64URL.encode(try SecureRandom.bytes(16))
    }

    /// The JSON body, exactly as it is signed and sent. No email, name, token or provider subject.
    public var body: String {
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("type", .string(kind.rawValue)), ("accountId", .string(accountId)),
            ("occurredAt", .string(Clock.rfc3339(occurredAt))), ("providers", .array(providers.map(JSONValue.string))),
        ]
        if let provider { members.append(("provider", .string(provider))) }
        if let changed { members.append(("changed", .array(changed.map(JSONValue.string)))) }
        return JSONValue.object(members).serialized
    }
}
