/// One of Apple's server-to-server notifications for Sign in with Apple, read in every form Apple
/// has been seen to send (docs/provider-events.md): the body `{"payload": "<JWT>"}`, and the JWT's
/// `events` claim as a JSON object (Apple's documentation) or a string holding one (what arrives:
/// Apple forum thread 655485, mozilla/fxa, serverpod); `event_time` in seconds (the docs) or
/// milliseconds (the wire); `account-delete` (the older docs and every library) or
/// `account-deleted` (today's docs); `is_private_email` a string or a boolean.
public struct AppleNotification: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case consentRevoked = "consent-revoked"
        case accountDeleted = "account-deleted"
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
    }

    /// nil: a type we do not act on (answered 200 all the same, so Apple does not retry it).
    public let kind: Kind?
    /// The Apple `sub`; nil only for a type we do not act on.
    public let subject: String?
    /// `event_time` in whole seconds; nil when absent.
    public let eventTime: UnixTime?
    public let email: String?
    /// `true` or `"true"`.
    public let isPrivateEmail: Bool

    /// What the store's row says of the type: a known name, never a value from the sender.
    public var typeName: String { kind?.rawValue ?? "other" }

    /// Apple's body: a JSON object whose `payload` is the JWT (no content type is relied on).
    public static func payload(of body: [UInt8]) throws(EventRefusal) -> String {
        let json: JSONValue
        do {
            json = try JSONParser.parse(body)
        } catch {
            throw .request("notification body is not JSON")
        }
        guard case .object = json else { throw .request("notification body is not an object") }
        guard let payload = json["payload"]?.stringValue else { throw .request("notification payload is not a string") }
        return payload
    }

    /// The `events` claim of a checked token.
    public static func parse(events: JSONValue?) throws(EventRefusal) -> AppleNotification {
        let event: JSONValue
        switch events {
        case .string(let text)?:
            do {
                event = try JSONParser.parse(Array(text.utf8))
            } catch {
                throw .request("notification events: a string that is not JSON")
            }
        case .object?: event = events ?? .null
        default: throw .request("notification events: neither an object nor a string")
        }
        guard case .object = event else { throw .request("notification events: not an object") }
        guard let type = event["type"]?.stringValue else { throw .request("notification events: type") }
        let kind = type == "account-delete" ? .accountDeleted : Kind(rawValue: type)
        var subject: String?
        if let value = event["sub"], !value.isNull {
            guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= TokenVerifier.maxSubjectBytes else {
                throw .request("notification events: sub")
            }
            subject = text
        }
        if kind != nil && subject == nil { throw .request("notification events: sub missing") }
        let eventTime = try seconds(event["event_time"])
        var email: String?
        if let value = event["email"], !value.isNull {
            guard let text = value.stringValue, text.utf8.count <= 1024 else { throw .request("notification events: email") }
            email = text
        }
        let isPrivate: Bool
        switch event["is_private_email"] {
        case .none, .some(.null), .some(.bool(false)), .some(.string("false")): isPrivate = false
        case .some(.bool(true)), .some(.string("true")): isPrivate = true
        default: throw .request("notification events: is_private_email")
        }
        return AppleNotification(
            kind: kind, subject: subject, eventTime: eventTime, email: email, isPrivateEmail: isPrivate)
    }

    /// Milliseconds past 10^11 (1973 in seconds, 1970 plus a day in milliseconds), else seconds.
    static func seconds(_ value: JSONValue?) throws(EventRefusal) -> UnixTime? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.numberValue, number >= 0, number < 9_007_199_254_740_992 else {
            throw .request("notification events: event_time")
        }
        let seconds = number > 100_000_000_000 ? number / 1000 : number
        return UnixTime(seconds.rounded(.down))
    }
}
