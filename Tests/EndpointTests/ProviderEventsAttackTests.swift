import DevSupport
import Shared
import Testing

/// Issue 8's attack corpus against the two receivers (issue 23): each hostile token, built from a
/// valid event that would end the person's sessions, is refused (Apple: 400 `invalid_token`;
/// Google: 400 with an RFC 8935 `err`; 413 past the size), exits with a CGI answer and changes
/// nothing. The attacks that bend only what a sign-in token carries are taken as the valid event
/// they otherwise are, which shows each hostile token differs from a genuine one in that one way.
@Suite struct ProviderEventsAttackTests {
    enum Receiver: String, CaseIterable, Sendable {
        case apple = "apple-notify"
        case google = "google-risc"
    }

    /// An event token has no `email` or `email_verified`, and its top-level `sub` is read by
    /// neither receiver (Apple's is inside `events`, Google's in each event's `subject`); an `aud`
    /// array needs one of ours (RFC 7519 4.1.3; docs/provider-events.md).
    static let takenByBoth: Set<String> = [
        "sub a number", "email a number", "email_verified a number", "empty sub", "sub of 300 bytes",
        "aud array with a foreign member",
    ]
    /// A SET's `exp` is not read ("SETs represent historical events and as such, don't expire").
    static let takenByGoogle: Set<String> = ["exp a string", "exp ten years away", "exp beyond 2^53"]

    static func taken(_ attack: Attack, by receiver: Receiver) -> Bool {
        takenByBoth.contains(attack.description) || (receiver == .google && takenByGoogle.contains(attack.description))
    }

    @Test(arguments: Receiver.allCases)
    func everyAttackIsRefusedAndActsOnNothing(_ receiver: Receiver) throws {
        let p = try ProviderEventsWorld()
        let sub = "attack-event-sub"
        func signIn() throws -> SignedIn {
            receiver == .apple ? try p.appleSignedIn(sub) : try p.h.signedIn(sub, email: "attack.event@gmail.com")
        }
        var me = try signIn()
        let key = try #require(
            (receiver == .apple ? p.apple.keys : p.google.keys).first { $0.algorithm == "RS256" })
        // A valid event's claims: a top-level `sub` too, so that the corpus's duplicate claim is one.
        func claims(_ jti: String, now: UnixTime) -> [(String, JSONValue)] {
            switch receiver {
            case .apple:
                let event = JSONValue.object([
                    ("type", "consent-revoked"), ("sub", .string(sub)), ("event_time", .number(Double(now) * 1000)),
                ])
                return [
                    ("iss", .string(FakeApple.issuer)), ("aud", .string(FakeApple.bundleId)), ("sub", "attack-top-sub"),
                    ("iat", .number(Double(now))), ("exp", .number(Double(now + 86_400))), ("jti", .string(jti)),
                    ("events", .string(event.serialized)),
                ]
            case .google:
                let event = FakeGoogle.riscEvent("sessions-revoked", sub: sub)
                return [
                    ("iss", .string(FakeGoogle.riscIssuer)), ("aud", .string(FakeGoogle.clientId)),
                    ("sub", "attack-top-sub"), ("iat", .number(Double(now))), ("jti", .string(jti)),
                    ("events", .object([event])),
                ]
            }
        }
        func send(_ token: String) throws -> CGIAnswer {
            receiver == .apple ? try p.notify(token) : try p.risc(token)
        }
        // The control: the valid token acts.
        let control = try send(try Forge(key: key, claims: claims("attack-control", now: Clock.now()), now: Clock.now()).sign())
        #expect(control.status < 300, "control: \(control.rawBody) \(control.stderr)")
        #expect(try p.sessions(of: me.accountId) == 0, "control")
        me = try signIn()

        for (i, attack) in AttackCorpusTests.attacks.enumerated() {
            let label = "\(receiver.rawValue): \(attack)"
            let before = try p.snapshot()
            let now = Clock.now()
            let answer = try send(try attack.build(Forge(key: key, claims: claims("attack-\(i)", now: now), now: now)))
            #expect(answer.exitStatus == 0, "\(label): exit \(answer.exitStatus)")
            if Self.taken(attack, by: receiver) {
                #expect(answer.status < 300, "\(label): \(answer.status) \(answer.rawBody) \(answer.stderr)")
                #expect(try p.sessions(of: me.accountId) == 0, "\(label): taken, so acted on")
                me = try signIn()
                continue
            }
            let status = attack.status == 413 ? 413 : 400
            #expect(answer.status == status, "\(label): \(answer.status) \(answer.rawBody) \(answer.stderr)")
            if status == 400 {
                switch receiver {
                case .apple: #expect(answer.errorCode == "invalid_token", "\(label)")
                case .google:
                    let codes = ["invalid_request", "invalid_key", "invalid_issuer", "invalid_audience"]
                    #expect(codes.contains(answer.body["err"]?.stringValue ?? ""), "\(label): \(answer.rawBody)")
                }
            }
            #expect(try p.snapshot() == before, "\(label) changed the store")
        }
        #expect(try p.h.count("accounts") == 1)
    }
}
