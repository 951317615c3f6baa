import Shared

/// `make run`'s phone with passkeys: the app and its platform authenticator in one, over
/// `SoftwareAuthenticator`. It takes the begin answer of `passkey` or `signin-passkey` as the app
/// would, checks the RP ID as a phone checks the domain's association, makes the credential (or
/// the assertion) as iOS or Android would, and answers the finish body the app then posts.
/// Passkeys live in memory, one per account handle (as a real phone keeps one per RP ID and
/// user), until the provider stops.
public final class DevPhone: Sendable {
    public enum Platform: String, Sendable {
        case ios, android
    }

    public struct Failure: Error, Sendable {
        public let message: String
    }

    struct Passkey: Sendable {
        let authenticator: SoftwareAuthenticator
        let userHandle: [UInt8]
    }

    public let rpId: String
    /// The origin each platform's client writes for the app: `https://<rpId>` on iOS, the signing
    /// key's hash on Android.
    public let origins: [Platform: String]
    private let passkeys = Locked<[Passkey]>([])

    public init(rpId: String, origins: [Platform: String]) {
        self.rpId = rpId
        self.origins = origins
    }

    public var count: Int { passkeys.withLock { $0.count } }

    /// `register_begin`'s answer in, `register_finish`'s body out.
    public func create(_ begin: JSONValue, platform: Platform = .ios, name: String? = nil) throws(Failure) -> JSONValue {
        let options = begin["publicKey"]
        guard let ceremonyId = begin["ceremonyId"]?.stringValue, let options,
            let challenge = options["challenge"]?.stringValue.flatMap(Base64URL.decode),
            let handle = options["user"]?["id"]?.stringValue.flatMap(Base64URL.decode)
        else { throw Failure(message: "not a register_begin answer: ceremonyId, publicKey.challenge and publicKey.user.id") }
        try checkRP(options["rp"]?["id"]?.stringValue)
        let excluded = (options["excludeCredentials"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        // As a phone does (InvalidStateError): it holds a passkey the server says the account has.
        if passkeys.withLock({ $0.contains { excluded.contains(Base64URL.encode($0.authenticator.credentialId)) } }) {
            throw Failure(message: "this phone already has a passkey for this account (excludeCredentials)")
        }
        let passkey: Passkey
        let response: RegistrationResponse
        do {
            passkey = Passkey(authenticator: try SoftwareAuthenticator(), userHandle: handle)
            response = try passkey.authenticator.register(challenge: challenge, rpId: rpId, origin: try origin(platform))
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "the authenticator failed: \(error)")
        }
        passkeys.withLock { list in
            list.removeAll { $0.userHandle == handle }
            list.append(passkey)
        }
        var body: [(String, JSONValue)] = [
            ("action", "register_finish"), ("ceremonyId", .string(ceremonyId)),
            ("credential", SoftwareAuthenticator.json(response)),
        ]
        if let name { body.append(("name", .string(name))) }
        return .object(body)
    }

    /// `signin-passkey` `begin`'s answer in, `finish`'s body out: the passkey the person picks is
    /// the one made last (discoverable credentials: the server names none).
    public func get(_ begin: JSONValue, platform: Platform = .ios, deviceName: String? = nil) throws(Failure) -> JSONValue {
        let options = begin["publicKey"]
        guard let ceremonyId = begin["ceremonyId"]?.stringValue, let options,
            let challenge = options["challenge"]?.stringValue.flatMap(Base64URL.decode)
        else { throw Failure(message: "not a signin-passkey begin answer: ceremonyId and publicKey.challenge") }
        try checkRP(options["rpId"]?.stringValue)
        guard let passkey = passkeys.withLock({ $0.last }) else {
            throw Failure(message: "this phone has no passkey for \(rpId) yet: register one first")
        }
        let response: AssertionResponse
        do {
            response = try passkey.authenticator.assert(
                challenge: challenge, rpId: rpId, origin: try origin(platform), userHandle: passkey.userHandle)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "the authenticator failed: \(error)")
        }
        var body: [(String, JSONValue)] = [
            ("action", "finish"), ("ceremonyId", .string(ceremonyId)), ("credential", SoftwareAuthenticator.json(response)),
        ]
        if let deviceName { body.append(("deviceName", .string(deviceName))) }
        return .object(body)
    }

    /// A phone uses only the RP ID its app is associated with.
    private func checkRP(_ asked: String?) throws(Failure) {
        guard asked == rpId else {
            throw Failure(message: "the RP ID \(asked ?? "(none)") is not \(rpId), the domain this phone's app is associated with")
        }
    }

    private func origin(_ platform: Platform) throws(Failure) -> String {
        guard let origin = origins[platform] else { throw Failure(message: "no \(platform.rawValue) app is configured") }
        return origin
    }
}
