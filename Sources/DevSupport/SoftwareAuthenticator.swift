import Shared

/// A passkey authenticator in software, for the tests (and, later, `make run`'s development
/// provider): one credential (ES256 on P-256, or RS256), which makes registrations with
/// attestation `none` and assertions for any challenge, origin and RP ID, as a phone's platform
/// authenticator and client would, byte for byte in W3C WebAuthn L3's layouts (sections 5.8.1,
/// 6.1, 6.5). `Spoil` spoils any one part, so each check of the verification is shown refusing
/// exactly what it must.
public struct SoftwareAuthenticator: Sendable {
    public let algorithm: COSEAlgorithm
    public let credentialId: [UInt8]
    public let aaguid: [UInt8]
    private let key: SigningKey

    /// What a phone's passkey sets: UP, UV, and BE and BS for a synced credential.
    public static let defaultFlags: AuthenticatorFlags = [.userPresent, .userVerified, .backupEligible, .backupState]

    public init(algorithm: COSEAlgorithm = .es256, rsaBits: Int = 2048, credentialId: [UInt8]? = nil) throws {
        self.algorithm = algorithm
        key = try algorithm == .es256 ? SigningKey.p256(kid: "passkey") : SigningKey.rsa(bits: rsaBits, kid: "passkey")
        self.credentialId = try credentialId ?? SecureRandom.bytes(32)
        aaguid = [UInt8](repeating: 0, count: 16)
    }

    /// One part of a response made wrong (or unusual); the defaults spoil nothing.
    public struct Spoil: Sendable {
        /// The client data's `type` instead of the ceremony's.
        public var type: String?
        /// Signed for this challenge instead of the ceremony's.
        public var challenge: [UInt8]?
        /// `crossOrigin` written with this value (absent otherwise, as iOS sends it).
        public var crossOrigin: Bool?
        public var topOrigin: String?
        /// More client data members (`androidPackageName`, anything a client may add).
        public var clientDataMembers: [(String, JSONValue)] = []
        /// The client data exactly as given, in place of what would be written.
        public var clientDataJSON: [UInt8]?
        /// The authenticator data's rpIdHash is this RP ID's.
        public var rpId: String?
        public var removeFlags: AuthenticatorFlags = []
        public var addFlags: AuthenticatorFlags = []
        public var signCount: UInt32 = 0
        /// Extension outputs written after the rest, with ED set (`.map([])` writes an empty map).
        public var extensions: CBORValue?
        /// Bytes after the authenticator data's last part.
        public var trailingBytes: [UInt8] = []
        /// One bit of the signature flipped.
        public var signature = false
        /// A signature exactly as given, in place of the real one.
        public var rawSignature: [UInt8]?
        /// The COSE key of the attested data.
        public var key: KeySpoil?
        /// The attested data's credential id, when it should differ from `rawId`.
        public var attestedCredentialId: [UInt8]?
        public var format = "none"
        public var statement: CBORValue = .map([])
        /// The attestation object's CBOR.
        public var shape: ShapeSpoil?

        public init() {}
    }

    public enum KeySpoil: Sendable {
        /// `alg` (label 3) holds this instead.
        case algorithm(Int64)
        case keyType(Int64)
        /// `crv` (label -1) of an EC2 key.
        case curve(Int64)
        /// The point's y changed, so it is not on P-256.
        case offCurve
        /// y as the compressed form's sign bit (a boolean), as COSE allows and L3 forbids.
        case compressedPoint
        /// x one byte short.
        case shortCoordinate
        /// A `kid` (label 2) beside the required labels.
        case extraLabel
        /// The labels in reverse order.
        case unsorted
        /// These bytes in place of the key.
        case raw([UInt8])
    }

    public enum ShapeSpoil: Sendable {
        /// The map with an indefinite length (`0xBF … 0xFF`).
        case indefiniteLength
        /// The map under tag 24 ("encoded CBOR data item").
        case tagged
        /// `fmt` twice.
        case duplicateKey
        /// The authData length in a longer head than it needs.
        case nonShortestLength
        /// A fourth member.
        case extraMember
        /// One byte after the map.
        case trailingByte
        /// `authData`, `fmt`, `attStmt`: not canonical, and accepted (the map is not signed).
        case unsortedKeys
    }

    /// The credential's public key as a COSE_Key, in canonical order: what the record stores.
    public func coseKey() -> [UInt8] { CBORWriter.encode(coseKeyValue(nil)) }

    /// A registration (`navigator.credentials.create()` with attestation `none`) for this
    /// challenge, origin and RP ID.
    public func register(
        challenge: [UInt8], rpId: String, origin: String, transports: [String] = ["internal", "hybrid"],
        spoil: Spoil = Spoil()
    ) throws -> RegistrationResponse {
        let clientData = clientDataJSON(.create, challenge: challenge, origin: origin, spoil: spoil)
        var attested = aaguid
        let id = spoil.attestedCredentialId ?? credentialId
        attested += [UInt8(id.count >> 8 & 0xFF), UInt8(id.count & 0xFF)] + id
        attested += keyBytes(spoil.key)
        let data = authenticatorData(rpId: rpId, attested: attested, spoil: spoil)
        return RegistrationResponse(
            credentialId: credentialId, clientDataJSON: clientData,
            attestationObject: attestationObject(data, spoil: spoil), transports: transports)
    }

    /// An assertion (`navigator.credentials.get()`) for this challenge, origin and RP ID, with
    /// the account's user handle (nil: none sent).
    public func assert(
        challenge: [UInt8], rpId: String, origin: String, userHandle: [UInt8]?, spoil: Spoil = Spoil()
    ) throws -> AssertionResponse {
        let clientData = clientDataJSON(.get, challenge: challenge, origin: origin, spoil: spoil)
        let data = authenticatorData(rpId: rpId, attested: nil, spoil: spoil)
        var signature = try sign(data + SHA256.hash(clientData))
        if spoil.signature { signature[signature.count / 2] ^= 0x01 }
        return AssertionResponse(
            credentialId: credentialId, clientDataJSON: clientData, authenticatorData: data,
            signature: spoil.rawSignature ?? signature, userHandle: userHandle)
    }

    /// The `credential` JSON a phone's app sends (`PublicKeyCredential.toJSON()`).
    public static func json(_ response: RegistrationResponse) -> JSONValue {
        credential(response.credentialId, [
            ("clientDataJSON", .string(Base64URL.encode(response.clientDataJSON))),
            ("attestationObject", .string(Base64URL.encode(response.attestationObject))),
            ("transports", .array(response.transports.map { .string($0) })),
        ])
    }

    public static func json(_ response: AssertionResponse) -> JSONValue {
        credential(response.credentialId, [
            ("clientDataJSON", .string(Base64URL.encode(response.clientDataJSON))),
            ("authenticatorData", .string(Base64URL.encode(response.authenticatorData))),
            ("signature", .string(Base64URL.encode(response.signature))),
            ("userHandle", response.userHandle.map { .string(Base64URL.encode($0)) } ?? .null),
        ])
    }

    private static func credential(_ id: [UInt8], _ response: [(String, JSONValue)]) -> JSONValue {
        let rawId = JSONValue.string(Base64URL.encode(id))
        return .object([
            ("id", rawId), ("rawId", rawId), ("type", "public-key"), ("response", .object(response)),
            ("authenticatorAttachment", "platform"), ("clientExtensionResults", .object([])),
        ])
    }

    /// `{"type","challenge","origin"}` as iOS writes it, then any members the spoil adds.
    private func clientDataJSON(_ ceremony: ClientData.Ceremony, challenge: [UInt8], origin: String, spoil: Spoil)
        -> [UInt8]
    {
        if let raw = spoil.clientDataJSON { return raw }
        var members: [(String, JSONValue)] = [
            ("type", .string(spoil.type ?? ceremony.rawValue)),
            ("challenge", .string(Base64URL.encode(spoil.challenge ?? challenge))), ("origin", .string(origin)),
        ]
        if let crossOrigin = spoil.crossOrigin { members.append(("crossOrigin", .bool(crossOrigin))) }
        if let topOrigin = spoil.topOrigin { members.append(("topOrigin", .string(topOrigin))) }
        return Array(JSONValue.object(members + spoil.clientDataMembers).serialized.utf8)
    }

    private func authenticatorData(rpId: String, attested: [UInt8]?, spoil: Spoil) -> [UInt8] {
        var flags = Self.defaultFlags
        if attested != nil { flags.insert(.attestedCredentialData) }
        if spoil.extensions != nil { flags.insert(.extensionData) }
        flags.subtract(spoil.removeFlags)
        flags.formUnion(spoil.addFlags)
        var data = SHA256.hash(Array((spoil.rpId ?? rpId).utf8)) + [flags.rawValue]
        data += (0..<4).map { UInt8(truncatingIfNeeded: spoil.signCount >> (8 * (3 - $0))) }
        data += attested ?? []
        if let extensions = spoil.extensions { data += CBORWriter.encode(extensions) }
        return data + spoil.trailingBytes
    }

    private func attestationObject(_ data: [UInt8], spoil: Spoil) -> [UInt8] {
        let fmt: (key: CBORValue, value: CBORValue) = (.text("fmt"), .text(spoil.format))
        let statement: (key: CBORValue, value: CBORValue) = (.text("attStmt"), spoil.statement)
        let authData: (key: CBORValue, value: CBORValue) = (.text("authData"), .bytes(data))
        let canonical = CBORWriter.encode(.map([fmt, statement, authData]))
        switch spoil.shape {
        case nil:
            return canonical
        case .indefiniteLength?:
            return [0xBF] + canonical.dropFirst() + [0xFF]
        case .tagged?:
            return [0xD8, 24] + canonical
        case .duplicateKey?:
            return CBORWriter.encode(.map([fmt, statement, authData, fmt]))
        case .nonShortestLength?:
            // The authData's head: a 2-byte length however short the data is.
            let prefix = CBORWriter.encode(.map([fmt, statement]))
            return [0xA3] + prefix.dropFirst() + CBORWriter.encode(.text("authData"))
                + [0x59, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        case .extraMember?:
            return CBORWriter.encode(.map([fmt, statement, authData, (.text("extra"), .integer(1))]))
        case .trailingByte?:
            return canonical + [0x00]
        case .unsortedKeys?:
            return CBORWriter.encode(.map([authData, fmt, statement]))
        }
    }

    private func keyBytes(_ spoil: KeySpoil?) -> [UInt8] {
        if case .raw(let bytes)? = spoil { return bytes }
        if case .unsorted? = spoil, case .map(let entries) = coseKeyValue(nil) {
            return CBORWriter.encode(.map(entries.reversed()))
        }
        return CBORWriter.encode(coseKeyValue(spoil))
    }

    private func coseKeyValue(_ spoil: KeySpoil?) -> CBORValue {
        let jwk = key.publicJWK()
        func member(_ name: String) -> [UInt8] { jwk[name]?.stringValue.flatMap { Base64URL.decode($0) } ?? [] }
        var entries: [(key: CBORValue, value: CBORValue)]
        switch algorithm {
        case .es256:
            var x = member("x")
            var y: CBORValue = .bytes(member("y"))
            if case .offCurve? = spoil, case .bytes(var bytes) = y {
                bytes[31] ^= 0x01
                y = .bytes(bytes)
            }
            if case .compressedPoint? = spoil { y = .bool(true) }
            if case .shortCoordinate? = spoil { x.removeLast() }
            var curve: Int64 = 1
            if case .curve(let other)? = spoil { curve = other }
            entries = [(.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(curve)),
                       (.integer(-2), .bytes(x)), (.integer(-3), y)]
        case .rs256:
            entries = [(.integer(1), .integer(3)), (.integer(3), .integer(-257)), (.integer(-1), .bytes(member("n"))),
                       (.integer(-2), .bytes(member("e")))]
        }
        switch spoil {
        case .algorithm(let alg)?: entries[1].value = .integer(alg)
        case .keyType(let kty)?: entries[0].value = .integer(kty)
        case .extraLabel?: entries.append((.integer(2), .bytes([1, 2, 3])))
        default: break
        }
        return CBORWriter.canonicalMap(entries)
    }

    /// ES256 in DER, as authenticators send it; RS256 as it is.
    private func sign(_ message: [UInt8]) throws -> [UInt8] {
        let signature = try key.sign(message)
        guard algorithm == .es256 else { return signature }
        guard let der = ECDSASignature.der(fromRaw: signature) else { throw SigningKeyError(step: "DER") }
        return der
    }
}
