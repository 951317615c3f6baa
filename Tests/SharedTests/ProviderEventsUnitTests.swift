import Testing
@testable import Shared

/// Issue 23: the event parsers and claims checks without a process, and the new config keys.
@Suite struct ProviderEventsUnitTests {
    static let now: UnixTime = 1_800_000_000

    @Test func appleNotificationsInEveryForm() throws {
        let event = #"{"type":"consent-revoked","sub":"820417.faa3","event_time":1611765847700}"#
        let fromString = try AppleNotification.parse(events: .string(event))
        #expect(fromString.kind == .consentRevoked && fromString.subject == "820417.faa3")
        #expect(fromString.eventTime == 1_611_765_847, "milliseconds, floored to seconds")
        let fromObject = try AppleNotification.parse(events: try JSONParser.parse(
            #"{"type":"email-disabled","sub":"s","email":"a@privaterelay.appleid.com","is_private_email":"true","event_time":1508184845}"#))
        #expect(fromObject.kind == .emailDisabled && fromObject.isPrivateEmail && fromObject.eventTime == 1_508_184_845)
        #expect(try AppleNotification.parse(events: .string(#"{"type":"account-delete","sub":"s"}"#)).kind == .accountDeleted)
        #expect(try AppleNotification.parse(events: .string(#"{"type":"account-deleted","sub":"s"}"#)).kind == .accountDeleted)
        #expect(try AppleNotification.parse(events: .string(#"{"type":"email-enabled","sub":"s","is_private_email":true}"#))
            .isPrivateEmail)
        let unknown = try AppleNotification.parse(events: .string(#"{"type":"something-new"}"#))
        #expect(unknown.kind == nil && unknown.typeName == "other" && unknown.subject == nil)
        for bad in [
            #"{"sub":"s"}"#, #"{"type":"consent-revoked"}"#, #"{"type":"consent-revoked","sub":""}"#,
            #"{"type":"consent-revoked","sub":"s","event_time":"1"}"#, #"{"type":"consent-revoked","sub":"s","event_time":-1}"#,
            #"{"type":"email-disabled","sub":"s","is_private_email":"yes"}"#, #"{"type":1}"#, "[]", "not json",
            #"{"type":"consent-revoked","sub":"s","sub":"t"}"#,
        ] {
            #expect(throws: EventRefusal.self, "\(bad)") { try AppleNotification.parse(events: .string(bad)) }
        }
        #expect(throws: EventRefusal.self) { try AppleNotification.parse(events: .number(1)) }
        #expect(throws: EventRefusal.self) { try AppleNotification.parse(events: nil) }
    }

    @Test func applesBody() throws {
        #expect(try AppleNotification.payload(of: Array(#"{"payload":"a.b.c"}"#.utf8)) == "a.b.c")
        for bad in [#"{"payload":1}"#, #"{}"#, #"["a.b.c"]"#, "a.b.c", #"{"payload":"a","payload":"b"}"#] {
            #expect(throws: EventRefusal.self, "\(bad)") { try AppleNotification.payload(of: Array(bad.utf8)) }
        }
    }

    @Test func riscEventsAndTheirSubjects() throws {
        let set = try JSONParser.parse(#"""
            {"https://schemas.openid.net/secevent/risc/event-type/account-disabled":
               {"subject":{"subject_type":"iss-sub","iss":"https://accounts.google.com/","sub":"7375626A656374"},"reason":"hijacking"},
             "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked":
               {"subject":{"subject_type":"id_token_claims","email":"x@gmail.com","sub":"7375626A656374"}},
             "https://schemas.openid.net/secevent/risc/event-type/verification":{"state":"s1"},
             "https://example.com/other":{}}
            """#)
        let events = try RISCEvent.parse(events: set, issuers: GoogleRISC.issuers)
        #expect(events.map(\.typeName) == ["account-disabled", "tokens-revoked", "verification", "other"])
        #expect(events[0].subject == "7375626A656374" && events[0].reason == "hijacking")
        #expect(events[1].subject == "7375626A656374")
        #expect(events[2].state == "s1")
        // A subject type we cannot read: the event stays, without a subject (ignored).
        let email = try RISCEvent.parse(events: try JSONParser.parse(#"""
            {"https://schemas.openid.net/secevent/risc/event-type/sessions-revoked":{"subject":{"subject_type":"email","email":"x@gmail.com"}}}
            """#), issuers: GoogleRISC.issuers)
        #expect(email.first?.kind == .sessionsRevoked && email.first?.subject == nil)
        for bad in [
            "{}", "[]", #"{"https://schemas.openid.net/secevent/risc/event-type/sessions-revoked":1}"#,
            #"{"https://schemas.openid.net/secevent/risc/event-type/sessions-revoked":{}}"#,
            #"{"https://schemas.openid.net/secevent/risc/event-type/sessions-revoked":{"subject":{"subject_type":"iss-sub","iss":"https://evil.example","sub":"s"}}}"#,
            #"{"https://schemas.openid.net/secevent/risc/event-type/sessions-revoked":{"subject":{"subject_type":"iss-sub","iss":"https://accounts.google.com","sub":""}}}"#,
            #"{"https://schemas.openid.net/secevent/risc/event-type/verification":{"state":7}}"#,
        ] {
            #expect(throws: EventRefusal.self, "\(bad)") {
                try RISCEvent.parse(events: try JSONParser.parse(Array(bad.utf8)), issuers: GoogleRISC.issuers)
            }
        }
        let many = "{" + (0..<17).map { #""https://example.com/\#($0)":{}"# }.joined(separator: ",") + "}"
        #expect(throws: EventRefusal.self) { try RISCEvent.parse(events: try JSONParser.parse(Array(many.utf8)), issuers: []) }
    }

    @Test func eventClaims() throws {
        let apple = EventPolicy(issuers: ["https://appleid.apple.com"], audiences: ["com.example.app"], checksExpiry: true)
        let google = EventPolicy(issuers: GoogleRISC.issuers, audiences: ["a.apps"], checksExpiry: false)
        func claims(_ extra: String) throws -> JSONValue { try JSONParser.parse(Array("{\(extra)}".utf8)) }
        let base = #""iss":"https://appleid.apple.com","aud":"com.example.app","iat":1799999990,"jti":"j1","events":"{}""#
        #expect(try EventTokens.checkClaims(claims(base), policy: apple, now: Self.now).jti == "j1")
        #expect(try EventTokens.checkClaims(claims(base + #","exp":1800086390"#), policy: apple, now: Self.now).issuedAt
            == 1_799_999_990)
        let refusals: [(String, EventRefusal)] = [
            (base.replacingOccurrence(#""iss":"https://appleid.apple.com""#, #""iss":"https://appleid.apple.com/""#), .issuer),
            (base.replacingOccurrence(#""aud":"com.example.app""#, #""aud":["x","y"]"#), .audience),
            (base + #","exp":1799999000"#, .request("token claim refused: exp: expired")),
            (base + #","exp":1800200000"#, .request("token claim refused: lifetime over the maximum")),
            (base.replacingOccurrence(#""jti":"j1""#, #""jti":"a b""#), .request("token claim refused: jti")),
            (base.replacingOccurrence(#""jti":"j1""#, #""jti":"\#(String(repeating: "j", count: 257))""#),
             .request("token claim refused: jti")),
            (base.replacingOccurrence(#""iat":1799999990"#, #""iat":1800000100"#), .request("token claim refused: iat: in the future")),
            (base.replacingOccurrence(#","events":"{}""#, ""), .request("token claim refused: no events")),
            (base + #","nbf":1800000100"#, .request("token claim refused: nbf: not yet valid")),
        ]
        for (text, refusal) in refusals {
            #expect(throws: refusal, "\(text)") { try EventTokens.checkClaims(claims(text), policy: apple, now: Self.now) }
        }
        // Google's: either slash form, an aud array naming one of ours, no exp read.
        let set = #""aud":["other","a.apps"],"iat":1799999990,"jti":"j2","events":{},"exp":1"#
        for iss in GoogleRISC.issuers {
            #expect(try EventTokens.checkClaims(claims(#""iss":"\#(iss)","# + set), policy: google, now: Self.now).jti == "j2")
        }
        #expect(throws: EventRefusal.issuer) {
            try EventTokens.checkClaims(claims(#""iss":"accounts.google.com","# + set), policy: google, now: Self.now)
        }
    }

    @Test func theNewConfigKeys() throws {
        func parse(_ text: String) throws(ConfigError) -> Config { try Config.parse(Array(text.utf8)) }
        let relay = #"{"databasePath":"/tmp/x","firebase":{"projectId":"p","apiKey":"k"},"apple":{"bundleIds":["b"]"#
        let plain = try parse(relay + "}}")
        #expect(plain.apple?.keysProxy == nil && plain.apple?.notificationAudiences == ["b"])
        // Relay mode fetches Apple's keys for the notifications, with or without a proxy.
        #expect(plain.outboundURLs.contains { $0.key == "apple.keysUrl" })
        let proxied = try parse(relay + #","keysProxy":"http://proxy.example:3128","servicesId":"com.example.web"}}"#)
        #expect(proxied.apple?.keysProxy == "http://proxy.example:3128")
        #expect(proxied.apple?.notificationAudiences == ["b", "com.example.web"])
        #expect(proxied.outboundURLs.contains { $0.key == "apple.keysUrl" })
        for bad in ["https://proxy.example:3128", "http://proxy.example", "http://u:p@proxy.example:3128", "http://proxy.example:3128/x"] {
            #expect(throws: ConfigError.self, "\(bad)") { try parse(relay + #","keysProxy":"\#(bad)"}}"#) }
        }
        let google = #"{"databasePath":"/tmp/x","google":{"clientIds":["a"],"risc":{"serviceAccountFile":"/etc/frontdoor/secrets/risc.json""#
        let risc = try parse(google + "}}}")
        #expect(risc.google?.risc?.apiUrl == "https://risc.googleapis.com" && risc.google?.risc?.receiverUrl == nil)
        #expect(risc.secretFiles.contains { $0.key == "google.risc.serviceAccountFile" })
        #expect(risc.outboundURLs.contains { $0.key == "google.risc.apiUrl" })
        #expect(throws: ConfigError.self) { try parse(google + #","apiUrl":"http://risc.example"}}}"#) }
        #expect(throws: ConfigError.self) { try parse(google + #","other":1}}}"#) }
        #expect(try parse(google + #","receiverUrl":"https://x.example/auth/google-risc"}}}"#).google?.risc?.receiverUrl
            == "https://x.example/auth/google-risc")
    }

    @Test func theVerificationStateIsLoggedOnlyWhenPlain() {
        #expect(GoogleRISC.loggable("frontdoor-1a2b") == "frontdoor-1a2b")
        #expect(GoogleRISC.loggable(nil) == "-")
        #expect(GoogleRISC.loggable("a b=c\n").hasPrefix("sha256:"))
        #expect(GoogleRISC.loggable(String(repeating: "a", count: 65)).hasPrefix("sha256:"))
    }
}

extension String {
    /// The first `target` replaced (these tests build claims from one base text).
    func replacingOccurrence(_ target: String, _ replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return self[..<range.lowerBound] + replacement + self[range.upperBound...]
    }
}
