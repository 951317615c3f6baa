import Shared
import Testing

/// The W3C spec's own examples (L3 "Test Vectors"), committed in Tests/Fixtures/webauthn with
/// their source. They were made for RP ID `example.org`, without user verification in some, and
/// with every attestation format; what frontdoor refuses on principle (other formats and
/// algorithms, UV absent, a cross-origin frame) it must refuse for exactly that reason.
@Suite struct PasskeyVectorTests {
    typealias F = PasskeyFixtures

    struct Vector {
        let id: String
        let registration: [String: [UInt8]]
        let authentication: [String: [UInt8]]
    }

    static let vectors: [Vector] = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        let path = parts.joined(separator: "/") + "/Fixtures/webauthn/w3c-test-vectors.json"
        guard let bytes = FileIO.readFile(path, limit: 1 << 20), let document = try? JSONParser.parse(bytes) else {
            return []
        }
        func fields(_ value: JSONValue?) -> [String: [UInt8]] {
            var out: [String: [UInt8]] = [:]
            for (name, hex) in value?.objectValue ?? [] { out[name] = F.hex(hex.stringValue ?? "") }
            return out
        }
        return (document["vectors"]?.arrayValue ?? []).map {
            Vector(id: $0["id"]?.stringValue ?? "", registration: fields($0["registration"]),
                   authentication: fields($0["authentication"]))
        }
    }()

    static let relyingParty = PasskeyRelyingParty(id: "example.org", origins: ["https://example.org"])

    func vector(_ id: String) throws -> Vector { try #require(Self.vectors.first { $0.id == id }) }

    func registration(_ v: Vector) throws -> RegistrationResponse {
        RegistrationResponse(
            credentialId: try #require(v.registration["credential_id"]),
            clientDataJSON: try #require(v.registration["clientDataJSON"]),
            attestationObject: try #require(v.registration["attestationObject"]))
    }

    /// The record the vector's registration would leave, read from its attested data whatever its format.
    func record(_ v: Vector) throws -> StoredPasskey {
        let data = try AttestationObject.parse(try #require(v.registration["attestationObject"])).authenticatorData
        let attested = try #require(data.attestedCredentialData)
        return StoredPasskey(
            credentialId: attested.credentialId, publicKey: attested.publicKey.bytes, signCount: data.signCount,
            backupEligible: data.flags.contains(.backupEligible), backupState: data.flags.contains(.backupState),
            userHandle: F.userHandle)
    }

    /// The vector's assertion; the user handle, which nothing signs, is the record's.
    func assertion(_ v: Vector) throws -> AssertionResponse {
        AssertionResponse(
            credentialId: try #require(v.registration["credential_id"]),
            clientDataJSON: try #require(v.authentication["clientDataJSON"]),
            authenticatorData: try #require(v.authentication["authenticatorData"]),
            signature: try #require(v.authentication["signature"]), userHandle: F.userHandle)
    }

    func verifyRegistration(_ v: Vector, requireUV: Bool = false) throws(PasskeyError) -> RegisteredPasskey {
        let response = try? registration(v)
        return try PasskeyRegistration.verify(
            response ?? RegistrationResponse(credentialId: [], clientDataJSON: [], attestationObject: []),
            challenge: v.registration["challenge"] ?? [], relyingParty: Self.relyingParty,
            requireUserVerification: requireUV)
    }

    func verifyAssertion(_ v: Vector, requireUV: Bool) throws -> VerifiedAssertion {
        try PasskeyAssertion.verify(
            assertion(v), challenge: try #require(v.authentication["challenge"]), relyingParty: Self.relyingParty,
            credential: record(v), requireUserVerification: requireUV)
    }

    @Test func theVectorsAreHere() {
        #expect(Self.vectors.count == 15)
    }

    @Test func registersTheNoneVectors() throws {
        let none = try vector("none-es256")
        let registered = try verifyRegistration(none)
        #expect(registered.credentialId == none.registration["credential_id"])
        #expect(registered.algorithm == .es256)
        #expect(registered.origin == "https://example.org")
        #expect(registered.backupEligible && registered.backupState && !registered.userVerified)
        // Made without UV: refused for exactly that where frontdoor requires it.
        #expect(throws: PasskeyError.refused(.userVerification)) { try verifyRegistration(none, requireUV: true) }

        let long = try vector("none-es256-long-credential-id")
        #expect(try verifyRegistration(long).credentialId.count == 1023)
    }

    @Test func refusesTheFramedVectors() throws {
        #expect(throws: PasskeyError.refused(.crossOrigin)) { try verifyRegistration(vector("none-es256-crossOrigin")) }
        #expect(throws: PasskeyError.refused(.crossOrigin)) { try verifyRegistration(vector("none-es256-topOrigin")) }
        for id in ["none-es256-crossOrigin", "none-es256-topOrigin"] {
            #expect(throws: PasskeyError.refused(.crossOrigin), "\(id)") { try verifyAssertion(vector(id), requireUV: false) }
        }
    }

    @Test func refusesEveryOtherFormatAndAlgorithm() throws {
        for id in ["packed-self-es256", "packed-es256", "packed-rs256", "tpm-es256", "android-key-es256", "apple-es256",
                   "fido-u2f-es256"] {
            #expect(throws: PasskeyError.refused(.attestationFormat), "\(id)") { try verifyRegistration(vector(id)) }
        }
        for id in ["packed-es384", "packed-es512", "packed-eddsa", "packed-ed448"] {
            #expect(throws: PasskeyError.refused(.algorithm), "\(id)") { try verifyRegistration(vector(id)) }
        }
    }

    /// Each ES256 and RS256 vector's assertion verifies against its registration's key: the
    /// format of the attestation has nothing to do with a sign-in.
    @Test func verifiesTheAssertions() throws {
        let withUV = ["none-es256-long-credential-id", "packed-es256", "tpm-es256"]
        let withoutUV = ["none-es256", "packed-self-es256", "packed-rs256", "android-key-es256", "apple-es256",
                         "fido-u2f-es256"]
        for id in withUV {
            let verified = try verifyAssertion(vector(id), requireUV: true)
            #expect(verified.userVerified && !verified.counterWentBackwards, "\(id)")
        }
        for id in withoutUV {
            let verified = try verifyAssertion(vector(id), requireUV: false)
            #expect(!verified.userVerified && verified.origin == "https://example.org", "\(id)")
            #expect(throws: PasskeyError.refused(.userVerification), "\(id)") { try verifyAssertion(vector(id), requireUV: true) }
        }
        #expect(try record(vector("packed-rs256")).publicKey.prefix(7) == [0xA4, 0x01, 0x03, 0x03, 0x39, 0x01, 0x00])
    }

    /// The signatures are really checked: one changed byte of what they cover, and they fail.
    @Test func aChangedVectorFails() throws {
        for id in ["none-es256", "packed-rs256"] {
            let v = try vector(id)
            var response = try assertion(v)
            response.authenticatorData[36] ^= 1
            #expect(throws: PasskeyError.refused(.signature), "\(id)") {
                try PasskeyAssertion.verify(
                    response, challenge: try #require(v.authentication["challenge"]), relyingParty: Self.relyingParty,
                    credential: record(v), requireUserVerification: false)
            }
            #expect(throws: PasskeyError.refused(.challenge), "\(id)") {
                try PasskeyAssertion.verify(
                    assertion(v), challenge: try #require(v.registration["challenge"]), relyingParty: Self.relyingParty,
                    credential: record(v), requireUserVerification: false)
            }
            #expect(throws: PasskeyError.refused(.rpIdHash), "\(id)") {
                try PasskeyAssertion.verify(
                    assertion(v), challenge: try #require(v.authentication["challenge"]),
                    relyingParty: PasskeyRelyingParty(id: "example.com", origins: ["https://example.org"]),
                    credential: record(v), requireUserVerification: false)
            }
        }
    }
}
