/// The `events` claim of a Security Event Token from Google's Cross-Account Protection (RISC):
/// a map from event-type URI to that event's payload (RFC 8417 section 2.2), possibly several
/// events in one SET. Each payload names its Google account by `subject`, `iss-sub` (the Google
/// ID token's `iss` and `sub`) or `id_token_claims` (`sub`, maybe `email`), as Google's guide says.
public struct RISCEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case sessionsRevoked = "sessions-revoked"
        case tokensRevoked = "tokens-revoked"
        case tokenRevoked = "token-revoked"
        case accountDisabled = "account-disabled"
        case accountEnabled = "account-enabled"
        case accountPurged = "account-purged"
        case credentialChangeRequired = "account-credential-change-required"
        case verification

        public var uri: String {
            switch self {
            case .tokensRevoked, .tokenRevoked: RISCEvent.oauthPrefix + rawValue
            default: RISCEvent.riscPrefix + rawValue
            }
        }
    }

    static let riscPrefix = "https://schemas.openid.net/secevent/risc/event-type/"
    static let oauthPrefix = "https://schemas.openid.net/secevent/oauth/event-type/"
    /// More than any SET carries; a larger map is not Google's.
    static let maxEvents = 16

    /// nil: a type we do not act on.
    public let kind: Kind?
    /// The Google `sub`; nil for the types without an account subject (`token-revoked`,
    /// `verification`) or a subject type we cannot read.
    public let subject: String?
    /// `account-disabled`'s `reason`: `hijacking`, `bulk-account`, or nil.
    public let reason: String?
    /// `verification`'s `state`, as sent (the caller shortens it for a log).
    public let state: String?

    public var typeName: String { kind?.rawValue ?? "other" }

    /// Every event of the map. `issuers` are the ones an `iss-sub` subject may name (Google's).
    public static func parse(events: JSONValue?, issuers: [String]) throws(EventRefusal) -> [RISCEvent] {
        guard let members = events?.objectValue else { throw .request("SET events: not an object") }
        guard !members.isEmpty else { throw .request("SET events: empty") }
        guard members.count <= maxEvents else { throw .request("SET events: more than \(maxEvents)") }
        var out: [RISCEvent] = []
        for (uri, payload) in members {
            guard case .object = payload else { throw .request("SET events: a payload is not an object") }
            let kind = Kind.allCases.first { $0.uri == uri }
            switch kind {
            case nil, .tokenRevoked?:
                out.append(RISCEvent(kind: kind, subject: nil, reason: nil, state: nil))
            case .verification?:
                var state: String?
                if let value = payload["state"], !value.isNull {
                    guard let text = value.stringValue else { throw .request("SET verification: state") }
                    state = text
                }
                out.append(RISCEvent(kind: kind, subject: nil, reason: nil, state: state))
            case let account?:
                var reason: String?
                if let value = payload["reason"], !value.isNull {
                    guard let text = value.stringValue else { throw .request("SET events: reason") }
                    reason = text
                }
                out.append(RISCEvent(
                    kind: account, subject: try subject(payload["subject"], issuers: issuers), reason: reason, state: nil))
            }
        }
        return out
    }

    /// The Google `sub` of a subject identifier; nil for a subject type we cannot read.
    static func subject(_ value: JSONValue?, issuers: [String]) throws(EventRefusal) -> String? {
        guard let value, case .object = value else { throw .request("SET events: subject is not an object") }
        let sub = value["sub"]?.stringValue
        let valid = sub.map { !$0.isEmpty && $0.utf8.count <= TokenVerifier.maxSubjectBytes } ?? false
        switch value["subject_type"]?.stringValue {
        case "iss-sub"?:
            guard let iss = value["iss"]?.stringValue, issuers.contains(iss) else {
                throw .request("SET events: subject iss is not Google's")
            }
            guard valid else { throw .request("SET events: subject sub") }
            return sub
        case "id_token_claims"?:
            guard valid else { throw .request("SET events: subject sub") }
            return sub
        default:
            return nil
        }
    }
}
