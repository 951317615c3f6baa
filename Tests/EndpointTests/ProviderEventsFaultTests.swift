import DevSupport
import Shared
import Testing

/// Issue 23 with issue 8's outside faults: the issuer's keys, the one thing a receiver fetches,
/// made slow, refusing, failing, talking garbage, never ending or answering too much. The answer
/// is 503 `upstream_unavailable` within its bound (both senders retry it), nothing unverified is
/// acted on, and once the keys can be had the same event is applied.
@Suite struct ProviderEventsFaultTests {
    enum Service: String, CaseIterable, Sendable {
        case googleKeys = "Google keys (google-risc)"
        case appleKeys = "Apple keys, direct (apple-notify)"
        /// Relay mode on a box that cannot reach Apple: Apple's keys behind `apple.keysProxy`, the
        /// proxy itself healthy.
        case appleKeysByProxy = "Apple keys through apple.keysProxy (apple-notify)"
    }

    static var cases: [(Service, OutsideFaultTests.Fault)] {
        Service.allCases.flatMap { s in OutsideFaultTests.Fault.allCases.map { (s, $0) } }
    }

    @Test(arguments: cases)
    func aFaultOfTheKeysEndsIn503AndActsOnNothing(_ service: Service, _ fault: OutsideFaultTests.Fault) throws {
        let http: (String, JSONValue) = ("http", .object([
            ("connectTimeoutSeconds", 1), ("totalTimeoutSeconds", .number(AppleWorld.totalTimeout)),
            ("maxResponseBytes", .number(Double(OutsideFaultTests.maxResponseBytes))),
        ]))
        let proxy = service == .appleKeysByProxy ? try FakeHTTPProxy() : nil
        let p = try ProviderEventsWorld(mode: service == .appleKeysByProxy ? "relay" : "direct", config: [http])
        let (google, apple) = (p.google, p.apple)
        let path = service == .googleKeys ? "/google/certs" : FakeApple.keysPath
        let server = try LoopbackHTTPServer { request in
            OutsideFaultTests.behaviour(
                fault,
                real: service == .googleKeys
                    ? google.respond(to: request) : (apple.respond(to: request) ?? .respond(.json("{}", status: 404))))
        }
        defer { server.stop() }
        // Addresses that refuse for the whole test: a port `freePort` only named could meanwhile be
        // another test's server, answering (a 404) where this box must get no answer at all.
        let refusing = try Stack.RefusingPort(), unreachable = try Stack.RefusingPort()
        let unreachableGood = try Stack.RefusingPort()
        defer { withExtendedLifetime((refusing, unreachable, unreachableGood)) {} }
        let faultBase = fault == .refuse ? refusing.url : server.baseURL
        var faultURL = faultBase + path
        // Through the proxy, the keys are at addresses this box cannot reach and the proxy can.
        var goodURL: String? = nil
        if let proxy {
            proxy.reach(unreachable.url, at: faultBase)
            faultURL = unreachable.url + path
            proxy.reach(unreachableGood.url, at: apple.server?.baseURL ?? "")
            goodURL = unreachableGood.url + path
        }
        func configure(keysAt url: String?) throws {
            switch service {
            case .googleKeys:
                try p.writeConfig([http, ("google", .object([
                    ("clientIds", .array([.string(FakeGoogle.clientId)])),
                    ("certsUrl", .string(url ?? google.certsURL)),
                ]))])
            case .appleKeys:
                try p.writeConfig(apple: [("keysUrl", .string(url ?? apple.keysURL))], [http])
            case .appleKeysByProxy:
                try p.writeConfig(
                    apple: [("keysUrl", .string(url ?? goodURL ?? "")), ("keysProxy", .string(proxy?.url ?? ""))], [http])
            }
        }

        let me = try service == .googleKeys
            ? p.h.signedIn("fault-risc-1", email: "fault.risc@gmail.com") : p.appleSignedIn("fault-apple-1")
        let send: () throws -> CGIAnswer
        switch service {
        case .googleKeys:
            let set = try google.securityEvent([FakeGoogle.riscEvent("sessions-revoked", sub: "fault-risc-1")])
            send = { try p.risc(set) }
        case .appleKeys, .appleKeysByProxy:
            let token = try apple.notificationToken(type: "consent-revoked", sub: "fault-apple-1")
            send = { try p.notify(token) }
        }
        try configure(keysAt: faultURL)
        let before = try p.snapshot()
        let label = "\(service.rawValue), \(fault)"
        _ = try OutsideFaultTests.expect503(label, send)
        #expect(try p.snapshot() == before, "\(label): acted on an event it could not verify")
        #expect(try p.sessions(of: me.accountId) == 1, "\(label)")
        if let proxy { #expect(proxy.targets.contains("GET \(faultURL)"), "\(label): \(proxy.targets)") }

        // The sender's retry, once the keys can be had: applied, once.
        try configure(keysAt: nil)
        let retry = try send()
        #expect(retry.status < 300, "\(label), retry: \(retry.rawBody) \(retry.stderr)")
        #expect(try p.sessions(of: me.accountId) == 0, "\(label), retry")
        let rows = try p.rows()
        #expect(rows.count == 1 && rows.first?.hasSuffix(" applied 0") == true, "\(label): \(rows)")
    }
}
