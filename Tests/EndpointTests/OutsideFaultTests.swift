import DevSupport
import Shared
import Testing

/// Issue 8, outside faults: each outbound service made slow, refusing, failing, talking garbage,
/// never ending or answering too much. The request ends within its bound with 503
/// `upstream_unavailable`, nothing is half-written, and the nonce comes back (rule 5): the same
/// token signs in once the service is well again.
@Suite struct OutsideFaultTests {
    /// The outbound calls a sign-in makes before it answers (the mail server's faults are in
    /// `OutsideFaultMailTests.swift`, revocation's after the answer in `OutsideFaultRevocationTests.swift`).
    enum Service: String, CaseIterable, Sendable {
        case googleKeys = "Google keys"
        case identityToolkit = "Firebase signInWithIdp"
        case securetokenKeys = "securetoken keys"
        case appleKeys = "Apple keys (direct)"

        var kind: TokenEndpoint.Kind {
            switch self {
            case .googleKeys: .google
            case .identityToolkit, .securetokenKeys: .appleRelay
            case .appleKeys: .appleDirect
            }
        }
    }

    enum Fault: String, CaseIterable, Sendable {
        case hang, refuse, status500, garbage, endlessBody
        /// The real answer padded with spaces past `http.maxResponseBytes`: valid JSON, had it been read whole.
        case oversized
    }

    static let maxResponseBytes = 65_536
    static var cases: [(Service, Fault)] { Service.allCases.flatMap { s in Fault.allCases.map { (s, $0) } } }

    @Test(arguments: cases)
    func faultEndsIn503WithinItsBound(_ service: Service, _ fault: Fault) throws {
        let http: (String, JSONValue) = ("http", .object([
            ("connectTimeoutSeconds", 1), ("totalTimeoutSeconds", .number(AppleWorld.totalTimeout)),
            ("maxResponseBytes", .number(Double(Self.maxResponseBytes))),
        ]))
        let endpoint = try TokenEndpoint(service.kind, config: [http])
        let real = realAnswer(service, endpoint)
        let server = try LoopbackHTTPServer { request in Self.behaviour(fault, real: real(request)) }
        defer { server.stop() }
        // Refusing is a port nobody listens on, not a server that hangs up.
        let faultURL = fault == .refuse ? "http://127.0.0.1:\(try Stack.freePort())" : server.baseURL
        try writeConfig(endpoint, service, faultURL: faultURL, extra: [http])

        let nonce = AppleWorld.nonce()
        let forge = Forge(key: endpoint.key, claims: endpoint.claims(rawNonce: nonce), now: Clock.now())
        let token = try forge.sign(claims: [("sub", .string("fault-\(service)-\(fault)"))])
        let label = "\(service.rawValue), \(fault)"
        let answer = try Self.expect503(label) { try endpoint.send(token, rawNonce: nonce) }
        for table in ["accounts", "identities", "sessions", "tickets", "relay_cleanups"] {
            #expect(try endpoint.h.count(table) == 0, "\(label): \(table) written")
        }
        // Issue 15: once signInWithIdp may have reached Firebase, the credential may be spent
        // there. Before that, the nonce comes back; after Firebase answered, its answer is kept
        // (sealed) so the same token completes; when nobody can know, the phone starts over.
        let expect = Self.expectation(service, fault)
        #expect(try endpoint.h.count(.nonce) == (expect == .nonceBack ? 0 : 1), "\(label): nonces")
        #expect(try endpoint.h.count(.relayAttempt) == (expect == .kept ? 1 : 0), "\(label): relay_attempts")
        #expect((answer.body["startOver"] == true) == (expect == .startOver), "\(label): startOver")

        try writeConfig(endpoint, service, faultURL: nil, extra: [http])
        let calls = endpoint.apple?.firebase.signInRequests ?? 0
        let retry = try endpoint.send(token, rawNonce: nonce)
        if expect == .startOver {
            // The same token and nonce are refused before Firebase is asked; a new sign-in works.
            #expect(retry.status == 401, "\(label), retry: \(retry.rawBody)")
            #expect(endpoint.apple?.firebase.signInRequests == calls, "\(label)")
            let nonce2 = AppleWorld.nonce()
            let forge2 = Forge(key: endpoint.key, claims: endpoint.claims(rawNonce: nonce2), now: Clock.now())
            let again = try endpoint.send(try forge2.sign(claims: [("sub", .string("fault-\(service)-\(fault)"))]),
                                          rawNonce: nonce2)
            #expect(again.status == 200, "\(label), new sign-in: \(again.rawBody) \(again.stderr)")
        } else {
            // Well again: the same token and nonce sign in, once (from what was kept: no second signInWithIdp).
            #expect(retry.status == 200, "\(label), retry: \(retry.rawBody) \(retry.stderr)")
            if expect == .kept { #expect(endpoint.apple?.firebase.signInRequests == calls, "\(label)") }
        }
        #expect(try endpoint.h.count("accounts") == 1)
    }

    /// What a service with `fault` does; `real` is the healthy service's answer, for `oversized` to pad.
    static func behaviour(_ fault: Fault, real: @autoclosure () -> LoopbackHTTPServer.Behaviour)
        -> LoopbackHTTPServer.Behaviour
    {
        switch fault {
        case .hang: return .hang(seconds: 3600)
        case .refuse: return .close
        case .status500: return .respond(.json(#"{"error":{"code":500,"message":"INTERNAL"}}"#, status: 500))
        case .garbage: return .garbage
        case .endlessBody: return .endlessBody
        case .oversized:
            let answer = real()
            guard case .respond(var response) = answer else { return answer }
            response.body += [UInt8](repeating: 0x20, count: 2 * maxResponseBytes)
            return .respond(response)
        }
    }

    /// Sends once and expects 503 `upstream_unavailable` from a process that ended normally, within
    /// ten times its one outbound call of 2 s (and a little tidying after the answer), far from the
    /// hour a hanging service would take.
    static func expect503(_ label: String, _ send: () throws -> CGIAnswer) throws -> CGIAnswer {
        let started = Clock.monotonicMillis()
        let answer = try send()
        let seconds = (Clock.monotonicMillis() - started) / 1000
        #expect(answer.status == 503, "\(label): \(answer.status) \(answer.rawBody) \(answer.stderr)")
        #expect(answer.errorCode == "upstream_unavailable", "\(label)")
        #expect(answer.exitStatus == 0, "\(label)")
        #expect(seconds < 10 * (AppleWorld.totalTimeout + 1), "\(label): \(seconds) s")
        return answer
    }

    enum Expectation { case nonceBack, kept, startOver }

    /// What the phone may do after the fault: send the same token again (the nonce came back, or
    /// Firebase's answer was kept), or begin a new Apple sign-in.
    static func expectation(_ service: Service, _ fault: Fault) -> Expectation {
        switch service {
        case .identityToolkit: fault == .refuse ? .nonceBack : .startOver
        case .securetokenKeys: .kept
        case .googleKeys, .appleKeys: .nonceBack
        }
    }

    /// What the healthy service would answer, for the oversized fault to pad.
    func realAnswer(
        _ service: Service, _ endpoint: TokenEndpoint
    ) -> @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Behaviour {
        let notFound = LoopbackHTTPServer.Behaviour.respond(.json("{}", status: 404))
        switch service {
        case .googleKeys:
            let google = endpoint.h.google
            return { google.respond(to: $0) }
        case .identityToolkit, .securetokenKeys:
            guard let firebase = endpoint.apple?.firebase else { return { _ in notFound } }
            return { firebase.respond(to: $0) ?? notFound }
        case .appleKeys:
            guard let apple = endpoint.apple?.apple else { return { _ in notFound } }
            return { apple.respond(to: $0) ?? notFound }
        }
    }

    /// The endpoint's config with the one service's URL pointed at `faultURL` (nil: the healthy fake).
    func writeConfig(_ e: TokenEndpoint, _ service: Service, faultURL: String?, extra: [(String, JSONValue)]) throws {
        switch service {
        case .googleKeys:
            try e.h.writeConfig([("google", .object([
                ("clientIds", .array([.string(FakeGoogle.clientId)])),
                ("certsUrl", .string(faultURL.map { $0 + "/google/certs" } ?? e.h.google.certsURL)),
            ]))] + extra)
        case .identityToolkit, .securetokenKeys, .appleKeys:
            guard let world = e.apple else { return }
            var members = world.configMembers()
            let (section, key, path) = switch service {
            case .identityToolkit: ("firebase", "identityToolkitUrl", "")
            case .securetokenKeys: ("firebase", "certsUrl", FakeFirebase.certsPath)
            default: ("apple", "keysUrl", FakeApple.keysPath)
            }
            if let faultURL, let i = members.firstIndex(where: { $0.0 == section }),
                case .object(var inner) = members[i].1, let j = inner.firstIndex(where: { $0.0 == key })
            {
                inner[j].1 = .string(faultURL + path)
                members[i].1 = .object(inner)
            }
            try e.h.writeConfig(members + extra)
        }
    }
}
