import DevSupport
import Shared
import Testing

@Suite struct AuthenticatorDataTests {
    typealias F = PasskeyFixtures
    static let rpIdHash = SHA256.hash(Array(F.rpId.utf8))

    func data(flags: AuthenticatorFlags, counter: [UInt8] = [0, 0, 0, 0], _ rest: [UInt8] = []) -> [UInt8] {
        Self.rpIdHash + [flags.rawValue] + counter + rest
    }

    func attested(idLength: Int, key: [UInt8]? = nil) throws -> [UInt8] {
        [UInt8](repeating: 0xAA, count: 16) + [UInt8(idLength >> 8), UInt8(idLength & 0xFF)]
            + [UInt8](repeating: 0x11, count: idLength) + (try key ?? F.es256.get().coseKey())
    }

    @Test func readsTheLayout() throws {
        let parsed = try AuthenticatorData.parse(data(flags: [.userPresent, .userVerified], counter: [0, 1, 2, 3]), for: .get)
        #expect(parsed.rpIdHash == Self.rpIdHash)
        #expect(parsed.flags == [.userPresent, .userVerified])
        #expect(parsed.signCount == 0x0001_0203)
        #expect(parsed.attestedCredentialData == nil)
        let max = try AuthenticatorData.parse(data(flags: .userPresent, counter: [0xFF, 0xFF, 0xFF, 0xFF]), for: .get)
        #expect(max.signCount == UInt32.max)

        let key = try F.es256.get().coseKey()
        let registration = try AuthenticatorData.parse(
            data(flags: [.userPresent, .attestedCredentialData], try attested(idLength: 1023, key: key)), for: .create)
        let credential = try #require(registration.attestedCredentialData)
        #expect(credential.aaguid == [UInt8](repeating: 0xAA, count: 16))
        #expect(credential.credentialId == [UInt8](repeating: 0x11, count: 1023))
        #expect(credential.publicKey.bytes == key)
    }

    @Test func attestedDataOnlyWhereItBelongs() throws {
        #expect(throws: PasskeyError.refused(.attestedDataMissing)) {
            try AuthenticatorData.parse(data(flags: .userPresent), for: .create)
        }
        #expect(throws: PasskeyError.refused(.attestedDataInAssertion)) {
            try AuthenticatorData.parse(data(flags: [.userPresent, .attestedCredentialData], try attested(idLength: 32)), for: .get)
        }
    }

    /// Extension outputs are read to find their end, then ignored (Android's `devicePubKey`).
    @Test func readsAndIgnoresExtensions() throws {
        let extensions = CBORWriter.encode(.map([(.text("devicePubKey"), .bytes([1, 2, 3])), (.text("credProtect"), .integer(2))]))
        let parsed = try AuthenticatorData.parse(data(flags: [.userPresent, .extensionData], extensions), for: .get)
        #expect(parsed.bytes.count == 37 + extensions.count)
        #expect(try AuthenticatorData.parse(
            data(flags: [.userPresent, .attestedCredentialData, .extensionData], try attested(idLength: 16) + [0xA0]),
            for: .create).attestedCredentialData?.credentialId.count == 16)
        // ED with nothing after it, or with something that is not a map of text keys.
        #expect(throws: PasskeyError.malformed(.authenticatorDataTruncated)) {
            try AuthenticatorData.parse(data(flags: [.userPresent, .extensionData]), for: .get)
        }
        for bad: [UInt8] in [[0x01], [0x80], [0xA1, 0x01, 0x00], [0x40]] {
            #expect(throws: PasskeyError.malformed(.extensions), "\(bad)") {
                try AuthenticatorData.parse(data(flags: [.userPresent, .extensionData], bad), for: .get)
            }
        }
        #expect(throws: PasskeyError.malformed(.cbor(.tag))) {
            try AuthenticatorData.parse(data(flags: [.userPresent, .extensionData], [0xC1, 0xA0]), for: .get)
        }
    }

    @Test func refusesBytesNobodyAnnounced() throws {
        #expect(throws: PasskeyError.malformed(.trailingBytes)) {
            try AuthenticatorData.parse(data(flags: .userPresent, [0]), for: .get)
        }
        #expect(throws: PasskeyError.malformed(.trailingBytes)) {
            try AuthenticatorData.parse(data(flags: [.userPresent, .extensionData], [0xA0, 0xA0]), for: .get)
        }
        #expect(throws: PasskeyError.malformed(.trailingBytes)) {
            try AuthenticatorData.parse(data(flags: [.userPresent, .attestedCredentialData], try attested(idLength: 32) + [0xA0]),
                                        for: .create)
        }
    }

    @Test func boundsLengths() throws {
        #expect(throws: PasskeyError.malformed(.authenticatorDataTruncated)) {
            try AuthenticatorData.parse(Array(data(flags: .userPresent).dropLast()), for: .get)
        }
        #expect(throws: PasskeyError.malformed(.authenticatorDataTruncated)) {
            try AuthenticatorData.parse(data(flags: [.userPresent, .attestedCredentialData], [UInt8](repeating: 0, count: 17)),
                                        for: .create)
        }
        for length in [0, 15, 1024, 0xFFFF] {
            #expect(throws: PasskeyError.malformed(.credentialIdLength), "\(length)") {
                try AuthenticatorData.parse(
                    data(flags: [.userPresent, .attestedCredentialData], [UInt8](repeating: 0, count: 16)
                        + [UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 0, count: 40)),
                    for: .create)
            }
        }
        // An id as long as the rest, leaving no key; a key cut short.
        #expect(throws: PasskeyError.malformed(.authenticatorDataTruncated)) {
            try AuthenticatorData.parse(
                data(flags: [.userPresent, .attestedCredentialData], Array(try attested(idLength: 32, key: []))), for: .create)
        }
        #expect(throws: PasskeyError.malformed(.cbor(.truncated))) {
            try AuthenticatorData.parse(
                data(flags: [.userPresent, .attestedCredentialData], Array(try attested(idLength: 32).dropLast())), for: .create)
        }
        #expect(throws: PasskeyError.malformed(.tooLarge("authenticatorData"))) {
            try AuthenticatorData.parse(data(flags: .userPresent, [UInt8](repeating: 0, count: AuthenticatorData.maxBytes)), for: .get)
        }
    }
}
