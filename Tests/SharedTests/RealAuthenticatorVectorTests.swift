import FoundationEssentials
import Shared
import Testing

/// WebAuthn responses made by real authenticators and browsers (py_webauthn's suite), read in place
/// from `../shared/vectors/webauthn` (see that folder's README). The verification core reaches
/// py_webauthn's verdict with the same options, with the differences the README names, each
/// asserted here with its reason:
/// - the OKP (Ed25519) key is refused (`algorithm`): frontdoor offers ES256 and RS256 only;
/// - the endpoints always require user verification, so a response made without it (UV clear)
///   is refused there (`user_verification`), even where py_webauthn's test did not ask for it;
/// - a sign-in needs the user handle (discoverable credentials only, rule 17); where the
///   response has none, the record's is given, as nothing signs it (PasskeyVectorTests does the same).
enum RealAuthenticatorVectors {
    static let path: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/../shared/vectors/webauthn/py_webauthn_responses.json"
    }()

    static var available: Bool { FileManager.default.fileExists(atPath: path) }

    static func load() throws -> [JSONValue] {
        let data = try #require(FileManager.default.contents(atPath: path), "cannot read \(path)")
        return try #require(try JSONParser.parse([UInt8](data), maxDepth: 16).arrayValue)
    }

    static func bytes(_ value: JSONValue?, _ name: String) throws -> [UInt8] {
        let text = try #require(value?.stringValue, "\(name) missing")
        return try #require(Base64URL.decode(text), "\(name) is not base64url")
    }
}

@Suite(.enabled(if: RealAuthenticatorVectors.available, "../shared/vectors/webauthn not found: skipped"))
struct RealAuthenticatorVectorTests {
    typealias V = RealAuthenticatorVectors
    /// The handle given where a response carries none.
    static let recordHandle: [UInt8] = Array("py-webauthn-record".utf8)

    struct Case {
        let name: String
        let kind: String
        let expectValid: Bool
        let requireUV: Bool
        let relyingParty: PasskeyRelyingParty
        let challenge: [UInt8]
        let entry: JSONValue
    }

    static func cases() throws -> [Case] {
        try V.load().map { entry in
            let origins = entry["origin"]?.stringValue.map { [$0] } ?? (entry["origin"]?.arrayValue ?? []).compactMap(\.stringValue)
            return Case(
                name: try #require(entry["name"]?.stringValue), kind: try #require(entry["kind"]?.stringValue),
                expectValid: entry["expect"]?.stringValue == "valid",
                requireUV: entry["requireUserVerification"]?.boolValue ?? false,
                relyingParty: PasskeyRelyingParty(id: try #require(entry["rpId"]?.stringValue), origins: origins),
                challenge: try V.bytes(entry["challenge"], "challenge"), entry: entry)
        }
    }

    func assertion(_ c: Case) throws -> (AssertionResponse, StoredPasskey) {
        let credential = try #require(c.entry["credential"])
        let response = try #require(credential["response"])
        let rawId = try V.bytes(credential["rawId"], "rawId")
        let sent = try response["userHandle"]?.stringValue.map { _ in try V.bytes(response["userHandle"], "userHandle") }
        let handle = sent ?? Self.recordHandle
        let data = try V.bytes(response["authenticatorData"], "authenticatorData")
        let flags = data.count > 32 ? data[32] : 0
        return (
            AssertionResponse(
                credentialId: rawId, clientDataJSON: try V.bytes(response["clientDataJSON"], "clientDataJSON"),
                authenticatorData: data, signature: try V.bytes(response["signature"], "signature"), userHandle: handle),
            StoredPasskey(
                credentialId: rawId, publicKey: try V.bytes(c.entry["credentialPublicKey"], "credentialPublicKey"),
                signCount: UInt32(c.entry["storedSignCount"]?.int64Value ?? 0),
                backupEligible: flags & 0x08 != 0, backupState: flags & 0x10 != 0, userHandle: handle))
    }

    func registration(_ c: Case) throws -> RegistrationResponse {
        let credential = try #require(c.entry["credential"])
        let response = try #require(credential["response"])
        return RegistrationResponse(
            credentialId: try V.bytes(credential["rawId"], "rawId"),
            clientDataJSON: try V.bytes(response["clientDataJSON"], "clientDataJSON"),
            attestationObject: try V.bytes(response["attestationObject"], "attestationObject"),
            transports: (response["transports"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// The verdict with `requireUV`: nil when verified, else the refusal's code.
    func verdict(_ c: Case, requireUV: Bool) throws -> String? {
        do {
            if c.kind == "authentication" {
                let (response, stored) = try assertion(c)
                _ = try PasskeyAssertion.verify(
                    response, challenge: c.challenge, relyingParty: c.relyingParty, credential: stored,
                    requireUserVerification: requireUV)
            } else {
                _ = try PasskeyRegistration.verify(
                    try registration(c), challenge: c.challenge, relyingParty: c.relyingParty,
                    requireUserVerification: requireUV)
            }
            return nil
        } catch let error as PasskeyError {
            return error.code
        }
    }

    /// The flags byte of the response's authenticator data.
    func userVerified(_ c: Case) throws -> Bool {
        let response = try #require(c.entry["credential"]?["response"])
        let data: [UInt8]
        if c.kind == "authentication" {
            data = try V.bytes(response["authenticatorData"], "authenticatorData")
        } else {
            data = try AttestationObject.parse(try V.bytes(response["attestationObject"], "attestationObject"))
                .authenticatorData.bytes
        }
        return data.count > 32 && data[32] & 0x04 != 0
    }

    @Test func everyVerdictIsPyWebAuthnsOrANamedDifference() throws {
        let cases = try Self.cases()
        #expect(cases.count == 9)
        for c in cases {
            let ours = try verdict(c, requireUV: c.requireUV)
            if c.name.contains("OKP") {
                #expect(c.expectValid && ours == "algorithm", "\(c.name): Ed25519 is not offered: \(ours ?? "verified")")
            } else if c.expectValid {
                #expect(ours == nil, "\(c.name) (\(c.kind)): py_webauthn verified it, ours refused: \(ours ?? "")")
            } else {
                #expect(ours != nil, "\(c.name): py_webauthn refused it, ours verified it")
            }
        }
    }

    @Test func theRefusalsAreForPyWebAuthnsReasons() throws {
        let cases = try Self.cases()
        let wrongKey = try #require(cases.first { $0.name == "test_raises_exception_on_incorrect_public_key" })
        #expect(try verdict(wrongKey, requireUV: wrongKey.requireUV) == "signature")
        let noUV = try #require(cases.first { $0.name == "test_raises_exception_on_uv_required_but_false" })
        #expect(try verdict(noUV, requireUV: true) == "user_verification")
    }

    /// The endpoints always require UV: a response made without it is refused there, for that reason.
    @Test func withoutUserVerificationTheEndpointsRefuse() throws {
        var refusedForUV = 0
        for c in try Self.cases() where !c.name.contains("OKP") && c.expectValid {
            let ours = try verdict(c, requireUV: true)
            if try userVerified(c) {
                #expect(ours == nil, "\(c.name): UV set, verified")
            } else {
                #expect(ours == "user_verification", "\(c.name): \(ours ?? "verified")")
                refusedForUV += 1
            }
        }
        #expect(refusedForUV > 0, "some of these responses were made without UV")
    }

    /// A sign-in whose handle is not the record's account's is refused, whatever else holds.
    @Test func anotherAccountsHandleIsRefused() throws {
        let c = try #require(try Self.cases().first { $0.name == "test_verify_authentication_response_with_RSA_public_key" })
        var (response, stored) = try assertion(c)
        stored.userHandle = Array("someone else".utf8)
        #expect(throws: PasskeyError.refused(.userHandle)) {
            _ = try PasskeyAssertion.verify(
                response, challenge: c.challenge, relyingParty: c.relyingParty, credential: stored,
                requireUserVerification: c.requireUV)
        }
        response.userHandle = nil
        #expect(throws: PasskeyError.refused(.userHandle)) {
            _ = try PasskeyAssertion.verify(
                response, challenge: c.challenge, relyingParty: c.relyingParty, credential: stored,
                requireUserVerification: c.requireUV)
        }
    }
}
