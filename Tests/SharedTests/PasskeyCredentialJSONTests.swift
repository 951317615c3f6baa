import DevSupport
import Shared
import Testing

@Suite struct PasskeyCredentialJSONTests {
    typealias F = PasskeyFixtures

    /// What a phone's `toJSON()` sends, through a request body's parser, verifies as sent.
    @Test func readsWhatThePhonesSend() throws {
        let authenticator = try F.es256.get()
        let registration = try authenticator.register(challenge: F.challenge, rpId: F.rpId, origin: F.origin)
        let body = try JSONParser.parse(SoftwareAuthenticator.json(registration).serialized)
        let read = try PasskeyCredentialJSON.registration(body)
        #expect(read.credentialId == registration.credentialId)
        #expect(read.attestationObject == registration.attestationObject)
        #expect(read.transports == ["internal", "hybrid"])
        #expect(try PasskeyRegistration.verify(read, challenge: F.challenge, relyingParty: F.relyingParty).origin == F.origin)

        let assertion = try authenticator.assert(challenge: F.challenge, rpId: F.rpId, origin: F.origin, userHandle: F.userHandle)
        let signIn = try PasskeyCredentialJSON.assertion(try JSONParser.parse(SoftwareAuthenticator.json(assertion).serialized))
        #expect(signIn.userHandle == F.userHandle)
        #expect(try PasskeyAssertion.verify(
            signIn, challenge: F.challenge, relyingParty: F.relyingParty, credential: F.stored(authenticator)).origin == F.origin)
    }

    func assertionJSON(_ change: (inout [(String, JSONValue)], inout [(String, JSONValue)]) -> Void) throws -> JSONValue {
        let authenticator = try F.es256.get()
        let assertion = try authenticator.assert(challenge: F.challenge, rpId: F.rpId, origin: F.origin, userHandle: F.userHandle)
        var outer = try #require(SoftwareAuthenticator.json(assertion).objectValue)
        var response = try #require(outer.first { $0.0 == "response" }?.1.objectValue)
        change(&outer, &response)
        outer.removeAll { $0.0 == "response" }
        return .object(outer + [("response", .object(response))])
    }

    func replace(_ members: inout [(String, JSONValue)], _ name: String, _ value: JSONValue?) {
        members.removeAll { $0.0 == name }
        if let value { members.append((name, value)) }
    }

    @Test func userHandleAbsentNullOrEmptyIsAbsent() throws {
        for value: JSONValue? in [nil, .null, ""] {
            let json = try assertionJSON { _, response in replace(&response, "userHandle", value) }
            #expect(try PasskeyCredentialJSON.assertion(json).userHandle == nil)
        }
    }

    @Test func refusesMalformedMembers() throws {
        let rawId = try #require(SoftwareAuthenticator.json(
            try F.es256.get().assert(challenge: F.challenge, rpId: F.rpId, origin: F.origin, userHandle: nil))["rawId"])
        let cases: [(PasskeyError.Malformed, (inout [(String, JSONValue)], inout [(String, JSONValue)]) -> Void)] = [
            (.credential("type"), { outer, _ in replace(&outer, "type", "password") }),
            (.credential("type"), { outer, _ in replace(&outer, "type", nil) }),
            (.credential("rawId"), { outer, _ in replace(&outer, "rawId", nil) }),
            (.credential("id"), { outer, _ in replace(&outer, "id", "AAAA") }),
            (.credential("rawId"), { outer, _ in replace(&outer, "rawId", .string((rawId.stringValue ?? "") + "=")) }),
            (.credentialIdLength, { outer, _ in
                replace(&outer, "id", "AAAA")
                replace(&outer, "rawId", "AAAA")
            }),
            (.credential("signature"), { _, response in replace(&response, "signature", "a+b/") }),
            (.credential("authenticatorData"), { _, response in replace(&response, "authenticatorData", "") }),
            (.credential("clientDataJSON"), { _, response in replace(&response, "clientDataJSON", 12) }),
            (.credential("userHandle"), { _, response in replace(&response, "userHandle", "pb0=") }),
            (.credential("userHandle"), { _, response in replace(&response, "userHandle", true) }),
        ]
        for (expected, change) in cases {
            let json = try assertionJSON(change)
            #expect(throws: PasskeyError.malformed(expected), "\(expected.code)") { try PasskeyCredentialJSON.assertion(json) }
        }
        // No response at all.
        #expect(throws: PasskeyError.malformed(.credential("response"))) {
            try PasskeyCredentialJSON.assertion(.object([("id", rawId), ("rawId", rawId), ("type", "public-key")]))
        }
        let registration = try F.es256.get().register(challenge: F.challenge, rpId: F.rpId, origin: F.origin)
        guard case .object(var members) = SoftwareAuthenticator.json(registration) else { return }
        members.removeAll { $0.0 == "response" }
        let bad: JSONValue = .object(members + [("response", .object([
            ("clientDataJSON", .string(Base64URL.encode(registration.clientDataJSON))),
            ("attestationObject", .string(Base64URL.encode(registration.attestationObject))), ("transports", "internal"),
        ]))])
        #expect(throws: PasskeyError.malformed(.credential("transports"))) { try PasskeyCredentialJSON.registration(bad) }
    }
}
