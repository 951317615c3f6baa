import DevSupport
import Shared
import Testing

/// Issue 8, outside faults after the answer: revoking Sign in with Apple (Apple's token and revoke
/// endpoints in direct mode, Identity Toolkit's `revokeToken` through the relay) is asked only
/// once the deletion has answered. Whatever those services do, the answer comes within seconds
/// with the account gone, and the process still ends within its ceiling, revoking nothing.
extension OutsideFaultTests {
    enum RevocationService: String, CaseIterable, Sendable {
        case appleToken = "Apple token (direct)"
        case appleRevoke = "Apple revoke (direct)"
        case relayRevokeToken = "Identity Toolkit revokeToken"

        var mode: String { self == .relayRevokeToken ? "relay" : "direct" }
        /// The part of the request path that picks out the faulty call.
        var path: String {
            switch self {
            case .appleToken: FakeApple.tokenPath
            case .appleRevoke: FakeApple.revokePath
            case .relayRevokeToken: "revokeToken"
            }
        }
    }

    static var revocationCases: [(RevocationService, Fault)] {
        RevocationService.allCases.flatMap { s in [Fault.hang, .refuse, .status500, .garbage].map { (s, $0) } }
    }

    @Test(arguments: revocationCases)
    func revocationFaultNeverHoldsTheDeletion(_ service: RevocationService, _ fault: Fault) throws {
        let d = try DeletionWorld(mode: service.mode)
        let sub = "fault-\(service.path.count)-\(fault)"
        let (session, accountId) = try d.appleAccount(sub)
        // One server in front of the healthy fake: only the chosen call misbehaves.
        let apple = d.apple, firebase = d.firebase, target = service.path
        let server = try LoopbackHTTPServer { request in
            guard request.path.contains(target) else {
                return apple.respond(to: request) ?? firebase.respond(to: request) ?? .respond(.json("{}", status: 404))
            }
            switch fault {
            case .hang: return .hang(seconds: 3600)
            case .refuse: return .close
            case .status500: return .respond(.json(#"{"error":"server_error"}"#, status: 500))
            case .garbage: return .garbage
            case .endlessBody, .oversized: return .endlessBody
            }
        }
        defer { server.stop() }
        var config = String(decoding: FileIO.readFile(d.h.configPath) ?? [], as: UTF8.self)
        switch service {
        case .appleToken, .appleRevoke:
            // Direct mode has a key per call: refusing is a port nobody listens on.
            let url = fault == .refuse ? "http://127.0.0.1:\(try Stack.freePort())" + target : server.baseURL + target
            let real = service == .appleToken ? apple.tokenURL : apple.revokeURL
            #expect(config.contains("\"\(real)\""), "\(service.rawValue): not in the config")
            config = config.replacing("\"\(real)\"", with: "\"\(url)\"")
        case .relayRevokeToken:
            #expect(config.contains("\"\(firebase.identityToolkitURL)\""), "\(service.rawValue): not in the config")
            config = config.replacing("\"\(firebase.identityToolkitURL)\"", with: "\"\(server.baseURL)\"")
        }
        try d.h.writeText(d.h.configPath, config)

        let fresh = try d.freshBody(sub: sub)
        let timed = try d.deleteTimed(session, body: fresh.body, accountId: accountId)
        let label = "\(service.rawValue), \(fault)"
        print("delete-account, \(label): answer \(Int(timed.answerMillis)) ms, exit \(Int(timed.exitMillis)) ms")
        #expect(timed.answer.status == 200, "\(label): \(timed.answer.rawBody)")
        #expect(timed.answer.body["appleRevocation"] == "scheduled", "\(label)")
        #expect(timed.answerMillis < 10_000, "\(label): answered after \(timed.answerMillis) ms")
        #expect(timed.goneAtAnswer, "\(label)")
        #expect(timed.exitStatus == 0, "\(label)")
        // Within ten times its ceiling (it ends at the ceiling at most), not the hanging hour.
        #expect(timed.exitMillis < 10 * Double(DeletionWorld.processLifetime) * 1000, "\(label)")
        #expect(apple.revokedTokens.isEmpty && (service != .relayRevokeToken || firebase.revocations.isEmpty),
                "\(label): revoked")
        let state = try d.revocationRow().state
        #expect(state == "retry" || state == "failed", "\(label): \(state ?? "-")")
    }
}
