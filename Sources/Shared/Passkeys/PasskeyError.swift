/// Why a passkey response was not accepted, as a stable code (`code`) for logs and tests.
///
/// `malformed`: it cannot be read as WebAuthn's structures at all (base64url, JSON, CBOR, byte
/// layouts, sizes): 400 `invalid_request`. `refused`: it was read, and a check of W3C WebAuthn
/// L3 section 7.1 or 7.2 failed: 401 `invalid_credentials`. Neither carries a value the sender
/// chose, except the key hash of an `android:apk-key-hash:` origin we refused: it is public, and
/// it is what an operator needs to add a missing signing key (issue 24).
public enum PasskeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(Malformed)
    case refused(Refusal)

    public enum Malformed: Sendable, Equatable {
        case cbor(CBORError)
        /// `clientDataJSON` is not UTF-8 JSON text of an object.
        case clientData
        /// A binary member (`clientDataJSON`, `authenticatorData`, `attestationObject`,
        /// `signature`, `userHandle`, the credential id) is longer than its limit.
        case tooLarge(String)
        /// Authenticator data shorter than its flags say (or than 37 bytes).
        case authenticatorDataTruncated
        /// Bytes after the attested credential data and the extensions the flags announce.
        case trailingBytes
        /// The credential id is shorter than 16 or longer than 1023 bytes (L3 section 4, and
        /// section 7.1: longer ids SHOULD fail the registration).
        case credentialIdLength
        /// The attestation object is not `{"fmt": text, "attStmt": map, "authData": bytes}`.
        case attestationObject
        /// The extensions (ED) are not a map with text keys.
        case extensions
        /// The `credential` JSON: a member missing, of the wrong type, or not strict base64url
        /// (its name).
        case credential(String)

        public var code: String {
            switch self {
            case .cbor(let error): error.rawValue
            case .clientData: "client_data_unreadable"
            case .tooLarge(let member): "too_large:\(member)"
            case .authenticatorDataTruncated: "authenticator_data_truncated"
            case .trailingBytes: "authenticator_data_trailing_bytes"
            case .credentialIdLength: "credential_id_length"
            case .attestationObject: "attestation_object_shape"
            case .extensions: "extensions_shape"
            case .credential(let member): "credential_member:\(member)"
            }
        }
    }

    public enum Refusal: Sendable, Equatable {
        /// `type` is not this ceremony's (`webauthn.create`, `webauthn.get`).
        case type
        /// `challenge` is not the base64url of this ceremony's challenge.
        case challenge
        /// `origin` is not an allowed origin. An Android origin's key hash is kept for the log
        /// (nil for any other origin, which is the sender's text).
        case origin(androidKeyHash: String?)
        /// `crossOrigin` is true (or not a boolean): frontdoor is never framed.
        case crossOrigin
        /// `topOrigin` is present: only a cross-origin frame has one.
        case topOrigin
        case rpIdHash
        case userPresence
        case userVerification
        /// BS set without BE (L3 sections 7.1 and 7.2 both refuse it).
        case backupState
        /// A registration without attested credential data (AT clear).
        case attestedDataMissing
        /// An assertion with attested credential data (AT set).
        case attestedDataInAssertion
        /// `fmt` is not `none`.
        case attestationFormat
        /// `none` with a non-empty `attStmt`.
        case attestationStatement
        /// The COSE key's `alg` is not ES256 (-7) or RS256 (-257), or not one the ceremony allowed.
        case algorithm
        /// The COSE key is not a key of its `alg`'s type: `kty`, `crv`, a member missing or of
        /// the wrong type, or any parameter beyond the required ones (L3 section 6.5.1).
        case keyType
        /// The key itself: a point not on P-256, an RSA modulus outside 2048 to 4096 bits, an
        /// exponent that is not odd and from 3 to 2^32 - 1, or numbers not in their minimal bytes.
        case publicKey
        /// The response's credential id is not the attested one (registration) or the stored
        /// credential's (assertion).
        case credentialId
        /// The user handle is absent, empty, or not the handle of the credential's account.
        case userHandle
        case signature

        public var code: String {
            switch self {
            case .type: "client_data_type"
            case .challenge: "challenge"
            case .origin(let hash): hash.map { "origin:android:apk-key-hash:\($0)" } ?? "origin"
            case .crossOrigin: "cross_origin"
            case .topOrigin: "top_origin"
            case .rpIdHash: "rp_id_hash"
            case .userPresence: "user_presence"
            case .userVerification: "user_verification"
            case .backupState: "backup_state_without_eligibility"
            case .attestedDataMissing: "attested_data_missing"
            case .attestedDataInAssertion: "attested_data_in_assertion"
            case .attestationFormat: "attestation_format"
            case .attestationStatement: "attestation_statement"
            case .algorithm: "algorithm"
            case .keyType: "key_type"
            case .publicKey: "public_key"
            case .credentialId: "credential_id"
            case .userHandle: "user_handle"
            case .signature: "signature"
            }
        }
    }

    public var code: String {
        switch self {
        case .malformed(let why): why.code
        case .refused(let why): why.code
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): "passkey response malformed: \(why.code)"
        case .refused(let why): "passkey response refused: \(why.code)"
        }
    }

    /// The answer: 400 `invalid_request` or 401 `invalid_credentials`, the reason on stderr only.
    public var frontdoorError: FrontdoorError {
        switch self {
        case .malformed:
            .invalidRequest("The passkey response could not be read.", detail: description)
        case .refused:
            FrontdoorError(.invalidCredentials, "The passkey was not accepted.", detail: description)
        }
    }
}

extension CBORError {
    var passkey: PasskeyError { .malformed(.cbor(self)) }
}
