/// A credential public key from its COSE_Key (RFC 9052 section 7, RFC 9053 section 7.1, RFC 8230
/// section 4), checked and turned into the project's OpenSSL `PublicKey`.
///
/// Accepted: `{1: 2, 3: -7, -1: 1, -2: x, -3: y}` (EC2, ES256, P-256, 32-byte coordinates, the
/// point on the curve) and `{1: 3, 3: -257, -1: n, -2: e}` (RSA, RS256, n of 2048 to 4096 bits,
/// e odd and from 3 to 2^32 - 1, both in minimal bytes as RFC 8230 writes them). L3 section 6.5.1
/// says the key MUST carry `alg` and no other OPTIONAL parameter, so any further label is refused,
/// as is every other `kty`, `crv` and `alg`, and an `alg` of another key type.
public struct CredentialPublicKey: Sendable {
    public let algorithm: COSEAlgorithm
    /// The COSE_Key exactly as the authenticator sent it: what the credential record stores, and
    /// what `parse` reads again at each sign-in.
    public let bytes: [UInt8]
    let key: PublicKey

    /// RSA moduli outside this range are refused. Every platform passkey is ES256; Windows Hello's
    /// RS256 keys are 2048 bits.
    public static let rsaBits = 2048...4096
    /// The exponent's bytes at most (65537 is 3); larger ones buy nothing and cost each check.
    static let maximumExponentBytes = 4

    /// A stored or received COSE_Key: exactly one canonical CBOR map, nothing after it.
    public static func parse(_ bytes: [UInt8]) throws(PasskeyError) -> CredentialPublicKey {
        let value: CBORValue
        do {
            value = try CBORReader.decode(bytes, limits: .coseKey)
        } catch {
            throw error.passkey
        }
        return try make(value, bytes: bytes)
    }

    /// The key from an already-decoded COSE_Key map and the bytes it was read from.
    static func make(_ value: CBORValue, bytes: [UInt8]) throws(PasskeyError) -> CredentialPublicKey {
        guard let entries = value.mapEntries else { throw .refused(.keyType) }
        guard let alg = value[integer: 3]?.integerValue, let algorithm = COSEAlgorithm(rawValue: alg) else {
            throw .refused(.algorithm)
        }
        let kty = value[integer: 1]?.integerValue
        switch algorithm {
        case .es256:
            // Five distinct labels, all of them required ones: nothing else is in the map.
            guard kty == 2, entries.count == 5, value[integer: -1] == .integer(1),
                let x = value[integer: -2]?.bytesValue, let y = value[integer: -3]?.bytesValue
            else { throw .refused(.keyType) }
            do {
                return CredentialPublicKey(algorithm: algorithm, bytes: bytes, key: try PublicKey.p256(x: x, y: y))
            } catch {
                throw .refused(.publicKey)
            }
        case .rs256:
            guard kty == 3, entries.count == 4, let n = value[integer: -1]?.bytesValue,
                let e = value[integer: -2]?.bytesValue
            else { throw .refused(.keyType) }
            guard let top = n.first, top != 0, rsaBits.contains(n.count * 8 - top.leadingZeroBitCount),
                let eTop = e.first, eTop != 0, e.count <= maximumExponentBytes
            else { throw .refused(.publicKey) }
            do {
                // PublicKey.rsa refuses an even modulus and an exponent that is even or 1.
                return CredentialPublicKey(
                    algorithm: algorithm, bytes: bytes, key: try PublicKey.rsa(modulus: n, exponent: e))
            } catch {
                throw .refused(.publicKey)
            }
        }
    }

    /// Whether `signature` is this key's over `message`, in WebAuthn's forms (L3 section 6.5.5):
    /// ES256 an ASN.1 DER `Ecdsa-Sig-Value`, RS256 the PKCS#1 v1.5 signature as it is.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        switch algorithm {
        case .es256:
            guard let raw = ECDSASignature.raw(fromDER: signature) else { return false }
            return key.verify(.es256, signature: raw, message: message)
        case .rs256:
            return key.verify(.rs256, signature: signature, message: message)
        }
    }
}
