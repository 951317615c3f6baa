import Shared
import Testing

@Suite struct ClientDataTests {
    typealias F = PasskeyFixtures
    static let challengeText = Base64URL.encode(F.challenge)

    func verify(_ json: String, ceremony: ClientData.Ceremony = .get) throws(PasskeyError) -> String {
        try ClientData.verify(Array(json.utf8), ceremony: ceremony, challenge: F.challenge, origins: F.relyingParty.origins)
    }

    func json(type: String = "webauthn.get", challenge: String = challengeText, origin: String = F.origin, _ more: String = "")
        -> String
    {
        #"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)"\#(more)}"#
    }

    @Test func acceptsWhatPhonesSend() throws {
        // iOS: three members. Android: its package name. Firefox for Android escaped the slashes.
        #expect(try verify(json()) == F.origin)
        #expect(try verify(json(origin: F.androidOrigin, #","androidPackageName":"com.example.app""#)) == F.androidOrigin)
        #expect(try verify(json(origin: #"https:\/\/login.example.com"#)) == F.origin)
        #expect(try verify(json(#","crossOrigin":false,"other_keys_can_be_added_here":"do not compare""#)) == F.origin)
        #expect(try verify(json(type: "webauthn.create"), ceremony: .create) == F.origin)
        // A leading byte order mark is stripped (L3), and the challenge may come first.
        #expect(try verify("\u{FEFF}" + json()) == F.origin)
        #expect(try verify(#"{"challenge":"\#(Self.challengeText)","origin":"\#(F.origin)","type":"webauthn.get"}"#) == F.origin)
    }

    @Test func refusesTheOtherCeremonysType() {
        #expect(throws: PasskeyError.refused(.type)) { try verify(json(type: "webauthn.create")) }
        #expect(throws: PasskeyError.refused(.type)) { try verify(json(), ceremony: .create) }
        #expect(throws: PasskeyError.refused(.type)) { try verify(json(type: "WEBAUTHN.GET")) }
        #expect(throws: PasskeyError.refused(.type)) { try verify(#"{"challenge":"\#(Self.challengeText)","origin":"\#(F.origin)"}"#) }
        #expect(throws: PasskeyError.refused(.type)) { try verify(#"{"type":1,"challenge":"\#(Self.challengeText)"}"#) }
    }

    @Test func refusesAnyOtherChallenge() {
        var other = F.challenge
        other[31] ^= 1
        for challenge in [Base64URL.encode(other), Self.challengeText + "=", Self.challengeText + "A",
                          String(Self.challengeText.dropLast()), "", Base64URL.encode(F.challenge + [0])] {
            #expect(throws: PasskeyError.refused(.challenge), "\(challenge)") { try verify(json(challenge: challenge)) }
        }
        #expect(throws: PasskeyError.refused(.challenge)) {
            try verify(#"{"type":"webauthn.get","challenge":["\#(Self.challengeText)"],"origin":"\#(F.origin)"}"#)
        }
        // A ceremony's challenge shorter than L3's 16 bytes is never compared.
        #expect(throws: PasskeyError.refused(.challenge)) {
            try ClientData.verify(Array(json(challenge: "").utf8), ceremony: .get, challenge: [], origins: [F.origin])
        }
    }

    @Test func refusesEveryOtherOrigin() {
        let hash = String(F.androidOrigin.dropFirst(PasskeyOrigins.androidPrefix.count))
        let standardBase64 = String(hash.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        for origin in ["https://evil.example", "https://login.example.com.evil", "http://login.example.com",
                       "https://sub.login.example.com", "https://login.example.com/", "https://login.example.com:443",
                       "https://LOGIN.example.com", "https://example.com", "android:apk-key-hash:" + standardBase64 + "=",
                       "login.example.com", ""] {
            #expect(throws: PasskeyError.refused(.origin(androidKeyHash: nil)), "\(origin)") { try verify(json(origin: origin)) }
        }
        // An unlisted Android key is named by its hash, which the operator can add.
        let unlisted = PasskeyOrigins.android(certificateSHA256: [UInt8](repeating: 9, count: 32))
        let unlistedHash = String(unlisted.dropFirst(PasskeyOrigins.androidPrefix.count))
        #expect(throws: PasskeyError.refused(.origin(androidKeyHash: unlistedHash))) { try verify(json(origin: unlisted)) }
        #expect(PasskeyError.refused(.origin(androidKeyHash: unlistedHash)).code == "origin:" + unlisted)
        #expect(throws: PasskeyError.refused(.origin(androidKeyHash: nil))) {
            try verify(#"{"type":"webauthn.get","challenge":"\#(Self.challengeText)","origin":null}"#)
        }
    }

    @Test func refusesCrossOriginAndTopOrigin() {
        #expect(throws: PasskeyError.refused(.crossOrigin)) { try verify(json(#","crossOrigin":true"#)) }
        #expect(throws: PasskeyError.refused(.crossOrigin)) { try verify(json(#","crossOrigin":"false""#)) }
        #expect(throws: PasskeyError.refused(.crossOrigin)) { try verify(json(#","crossOrigin":null"#)) }
        #expect(throws: PasskeyError.refused(.topOrigin)) { try verify(json(#","topOrigin":"https://login.example.com""#)) }
        #expect(throws: PasskeyError.refused(.topOrigin)) { try verify(json(#","crossOrigin":false,"topOrigin":null"#)) }
    }

    @Test func refusesWhatIsNotJSONOfAnObject() {
        // A second challenge is a parser differential waiting to happen: the strict parser refuses it.
        #expect(throws: PasskeyError.malformed(.clientData)) {
            try verify(json(#","challenge":"\#(Self.challengeText)""#))
        }
        for text in ["", "[]", #""webauthn.get""#, json() + ",", "{'type':'webauthn.get'}", "\u{FEFF}\u{FEFF}" + json(),
                     String(repeating: "[", count: 20) + String(repeating: "]", count: 20)] {
            #expect(throws: PasskeyError.malformed(.clientData), "\(text)") { try verify(text) }
        }
        var invalidUTF8 = Array(json().utf8)
        invalidUTF8[10] = 0xFF
        #expect(throws: PasskeyError.malformed(.clientData)) {
            try ClientData.verify(invalidUTF8, ceremony: .get, challenge: F.challenge, origins: [F.origin])
        }
        let padded = json(#","extraData":""# + String(repeating: "x", count: ClientData.maxBytes) + #"""#)
        #expect(throws: PasskeyError.malformed(.tooLarge("clientDataJSON"))) { try verify(padded) }
    }
}
