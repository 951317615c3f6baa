import Foundation

/// `signin-passkey` `begin`'s answer: what the phone's passkey sheet needs to sign in.
public struct PasskeyAssertionOptions: Equatable, Sendable {
    public let ceremonyId: String
    public let rpId: String
    public let challenge: Data
}

/// `passkey` `register_begin`'s answer: what the phone's passkey sheet needs to make a passkey.
public struct PasskeyRegistrationOptions: Equatable, Sendable {
    public let ceremonyId: String
    public let rpId: String
    public let rpName: String
    /// The account's user handle: random, never its id or email.
    public let userId: Data
    public let userName: String
    public let userDisplayName: String
    public let challenge: Data
    /// The account's passkeys, which the phone must not register again.
    public let excludedCredentialIds: [Data]
}

extension PasskeyAssertionOptions: Decodable {
    private struct Wire: Decodable {
        struct PublicKey: Decodable {
            let rpId: String
            let challenge: String
        }
        let ceremonyId: String
        let publicKey: PublicKey
    }

    public init(from decoder: any Decoder) throws {
        let wire = try Wire(from: decoder)
        ceremonyId = wire.ceremonyId
        rpId = wire.publicKey.rpId
        challenge = try PasskeyWire.bytes(wire.publicKey.challenge, decoder)
    }
}

extension PasskeyRegistrationOptions: Decodable {
    private struct Wire: Decodable {
        struct PublicKey: Decodable {
            struct RelyingParty: Decodable {
                let id: String
                let name: String
            }
            struct User: Decodable {
                let id: String
                let name: String
                let displayName: String
            }
            struct Descriptor: Decodable { let id: String }
            let rp: RelyingParty
            let user: User
            let challenge: String
            let excludeCredentials: [Descriptor]?
        }
        let ceremonyId: String
        let publicKey: PublicKey
    }

    public init(from decoder: any Decoder) throws {
        let wire = try Wire(from: decoder)
        ceremonyId = wire.ceremonyId
        rpId = wire.publicKey.rp.id
        rpName = wire.publicKey.rp.name
        userId = try PasskeyWire.bytes(wire.publicKey.user.id, decoder)
        userName = wire.publicKey.user.name
        userDisplayName = wire.publicKey.user.displayName
        challenge = try PasskeyWire.bytes(wire.publicKey.challenge, decoder)
        excludedCredentialIds = try (wire.publicKey.excludeCredentials ?? []).map { try PasskeyWire.bytes($0.id, decoder) }
    }
}

/// Binary values of the ceremonies: base64url without padding.
enum PasskeyWire {
    static func bytes(_ text: String, _ decoder: any Decoder) throws -> Data {
        guard let bytes = ByteText.fromBase64URL(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64url"))
        }
        return Data(bytes)
    }

    static func text(_ data: Data) -> JSONBody { .string(ByteText.base64URL(data)) }

    /// `PublicKeyCredential.toJSON()`'s shape, which the server reads.
    static func credential(id: Data, response: [(String, JSONBody?)]) -> JSONBody {
        .object([
            ("id", text(id)), ("rawId", text(id)), ("type", "public-key"), ("response", .object(response)),
            ("authenticatorAttachment", "platform"), ("clientExtensionResults", .object([])),
        ])
    }
}
