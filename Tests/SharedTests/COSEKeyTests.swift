import DevSupport
import Shared
import Testing

@Suite struct COSEKeyTests {
    typealias F = PasskeyFixtures
    typealias Spoil = SoftwareAuthenticator.KeySpoil

    /// The COSE key an authenticator of `algorithm` writes, spoiled, as the attested data carries it.
    func attestedKey(_ algorithm: COSEAlgorithm, _ spoil: Spoil) throws -> [UInt8] {
        let response = try F.authenticator(algorithm).register(
            challenge: F.challenge, rpId: F.rpId, origin: F.origin, spoil: F.spoil { $0.key = spoil })
        let object = try CBORReader.decode(response.attestationObject, limits: .attestationObject)
        let data = try #require(object[text: "authData"]?.bytesValue)
        let idLength = Int(data[53]) << 8 | Int(data[54])
        return Array(data[(55 + idLength)...])
    }

    /// A synthetic RSA key: an odd modulus of `bits` bits (nothing here factors it).
    func rsaKey(bits: Int, exponent: [UInt8] = [1, 0, 1], modulusPrefix: [UInt8] = []) -> [UInt8] {
        var n = [UInt8](repeating: 0x5A, count: (bits + 7) / 8)
        n[0] = UInt8(1 << ((bits - 1) % 8)) | (bits % 8 == 1 ? 0 : 1)
        n[n.count - 1] |= 1
        return CBORWriter.encode(.map([
            (.integer(1), .integer(3)), (.integer(3), .integer(-257)), (.integer(-1), .bytes(modulusPrefix + n)),
            (.integer(-2), .bytes(exponent)),
        ]))
    }

    @Test func acceptsTheAuthenticatorsKeys() throws {
        for algorithm in COSEAlgorithm.allCases {
            let bytes = try F.authenticator(algorithm).coseKey()
            let key = try CredentialPublicKey.parse(bytes)
            #expect(key.algorithm == algorithm)
            #expect(key.bytes == bytes)
        }
        // ES256 starts A5 01 02 03 26 20 01 21 58 20 (L3 section 6.5.1.1); RS256 A4 01 03 03 39 01 00.
        #expect(try F.es256.get().coseKey().prefix(10) == [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20])
        #expect(try F.rs256.get().coseKey().prefix(7) == [0xA4, 0x01, 0x03, 0x03, 0x39, 0x01, 0x00])
    }

    /// The example EC2 key of L3 section 6.5.1.1, in its CTAP2 canonical encoding.
    @Test func acceptsTheSpecsExampleKey() throws {
        let bytes = F.hex(
            "a501020326200121582065eda5a12577c2bae829437fe338701a10aaa375e1bb5b5de108de439c08551d"
                + "2258201e52ed75701163f7f9e40ddf9f341b3dc9ba860af7e0ca7ca7e9eecd0084d19c")
        #expect(try CredentialPublicKey.parse(bytes).algorithm == .es256)
    }

    @Test func refusesOtherAlgorithmsAndMismatchedKeyTypes() throws {
        // EdDSA, ES384, PS256, and nothing at all where alg should be.
        for alg: Int64 in [-8, -35, -37, 0, 7, 257] {
            #expect(throws: PasskeyError.refused(.algorithm), "\(alg)") {
                try CredentialPublicKey.parse(attestedKey(.es256, .algorithm(alg)))
            }
        }
        // An EC2 key claiming RS256, an RSA key claiming ES256, an OKP kty.
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.es256, .algorithm(-257))) }
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.rs256, .algorithm(-7))) }
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.es256, .keyType(1))) }
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.rs256, .keyType(2))) }
        // P-384 and Ed25519 curves under ES256; a compressed point; a kid beside the required labels.
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.es256, .curve(2))) }
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.es256, .curve(6))) }
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.es256, .compressedPoint)) }
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.es256, .extraLabel)) }
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse(attestedKey(.rs256, .extraLabel)) }
        // Not a map, and a map missing y.
        #expect(throws: PasskeyError.refused(.keyType)) { try CredentialPublicKey.parse([0x80]) }
        #expect(throws: PasskeyError.refused(.keyType)) {
            try CredentialPublicKey.parse(F.hex("a40102032620012158200000000000000000000000000000000000000000000000000000000000000001"))
        }
    }

    @Test func refusesPointsOffTheCurveAndShortCoordinates() throws {
        #expect(throws: PasskeyError.refused(.publicKey)) { try CredentialPublicKey.parse(attestedKey(.es256, .offCurve)) }
        #expect(throws: PasskeyError.refused(.publicKey)) { try CredentialPublicKey.parse(attestedKey(.es256, .shortCoordinate)) }
        // The point at infinity's encoding and a coordinate at the field prime: not points on P-256.
        let zeros = [UInt8](repeating: 0, count: 32)
        let p = F.hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
        for (x, y) in [(zeros, zeros), (p, zeros)] {
            let bytes = CBORWriter.encode(.map([
                (.integer(1), .integer(2)), (.integer(3), .integer(-7)), (.integer(-1), .integer(1)),
                (.integer(-2), .bytes(x)), (.integer(-3), .bytes(y)),
            ]))
            #expect(throws: PasskeyError.refused(.publicKey)) { try CredentialPublicKey.parse(bytes) }
        }
    }

    @Test func boundsRSAKeys() throws {
        for bits in [2048, 3072, 4096] {
            #expect(try CredentialPublicKey.parse(rsaKey(bits: bits)).algorithm == .rs256, "\(bits)")
        }
        for bits in [1024, 2047, 4097, 7000] {
            #expect(throws: PasskeyError.refused(.publicKey), "\(bits)") { try CredentialPublicKey.parse(rsaKey(bits: bits)) }
        }
        // RSA-8192's key is past the COSE key's 1 KiB before its size is even looked at.
        #expect(throws: PasskeyError.malformed(.cbor(.tooLarge))) { try CredentialPublicKey.parse(rsaKey(bits: 8192)) }
        // Exponents: even, 1, a leading zero, five bytes; a modulus with a leading zero byte.
        for exponent: [UInt8] in [[1, 0, 0], [1], [0, 1, 0, 1], [1, 0, 0, 0, 1]] {
            #expect(throws: PasskeyError.refused(.publicKey), "\(exponent)") {
                try CredentialPublicKey.parse(rsaKey(bits: 2048, exponent: exponent))
            }
        }
        #expect(try CredentialPublicKey.parse(rsaKey(bits: 2048, exponent: [3])).algorithm == .rs256)
        #expect(throws: PasskeyError.refused(.publicKey)) { try CredentialPublicKey.parse(rsaKey(bits: 2048, modulusPrefix: [0])) }
    }

    @Test func refusesKeysNotInCanonicalCBOR() throws {
        #expect(throws: PasskeyError.malformed(.cbor(.mapKeyOrder))) {
            try CredentialPublicKey.parse(attestedKey(.es256, .unsorted))
        }
        var key = try F.es256.get().coseKey()
        key.append(0)
        #expect(throws: PasskeyError.malformed(.cbor(.trailingBytes))) { try CredentialPublicKey.parse(key) }
        #expect(throws: PasskeyError.malformed(.cbor(.tooDeep))) { try CredentialPublicKey.parse(F.hex("a1018100")) }
    }

    @Test func verifiesWebAuthnSignatureForms() throws {
        let message = Array("authenticator data and the client data's hash".utf8)
        for algorithm in COSEAlgorithm.allCases {
            let authenticator = try F.authenticator(algorithm)
            let key = try CredentialPublicKey.parse(authenticator.coseKey())
            let response = try authenticator.assert(
                challenge: F.challenge, rpId: F.rpId, origin: F.origin, userHandle: F.userHandle)
            let signed = response.authenticatorData + SHA256.hash(response.clientDataJSON)
            #expect(key.verify(signature: response.signature, message: signed))
            #expect(!key.verify(signature: response.signature, message: message))
            if algorithm == .es256 {
                // The JOSE form (r||s) is not WebAuthn's, nor is DER with a byte after it.
                let raw = try #require(ECDSASignature.raw(fromDER: response.signature))
                #expect(!key.verify(signature: raw, message: signed))
                #expect(!key.verify(signature: response.signature + [0], message: signed))
            }
        }
    }
}
