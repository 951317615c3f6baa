#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

extension CrashSafetyTests {
    /// Rule 18's transactions, each killed with SIGKILL where everything is written and nothing
    /// committed: the store is as it was (StoreInvariants hold), and the same request then works.
    @Test(arguments: SettingsKill.allCases)
    func aSettingsChangeKilledBeforeItsCommitLeavesNothing(_ kill: SettingsKill) throws {
        let w = try SettingsWorld()
        let ada = try w.proven("crash.\(kill.rawValue)@example.org")
        let (request, point) = try kill.prepare(w, ada)
        // A change of address has mailed and counted its mail before its transaction: only the
        // counters may differ.
        let comparable = { (rows: [String]) in rows.filter { !$0.hasPrefix("ephemeral:") } }
        let before = try w.snapshot()
        let held = try HeldRequest(w.h, request.endpoint, json: request.json, holdAt: point, authorization: request.bearer)
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(comparable(try w.snapshot()) == comparable(before), "\(kill): nothing committed")
        #expect(try StoreInvariants.violations(w.h.database()) == [])
        let again = try w.h.run(request.endpoint, json: try kill.retry(w, ada, request).json, authorization: request.bearer)
        #expect(again.status == 200, "\(kill): \(again.rawBody)")
        #expect(try StoreInvariants.violations(w.h.database()) == [])
    }

    enum SettingsKill: String, CaseIterable, Sendable {
        case changePassword = "password-changed"
        case setPassword = "password-set"
        case changeEmailStarted = "email-change-started"
        case changeEmailConfirmed = "email-changed"
        case link = "identity-linked"
        case unlink = "identity-unlinked"

        struct Request {
            let endpoint: String
            let json: String
            let bearer: String?
        }

        func account(_ action: String, _ members: [(String, JSONValue)], _ person: SettingsWorld.Person) -> Request {
            Request(
                endpoint: "account", json: JSONValue.object([("action", .string(action))] + members).serialized,
                bearer: person.bearer)
        }

        /// The request to kill at `rawValue`, after what it needs is in place.
        func prepare(_ w: SettingsWorld, _ ada: SettingsWorld.Person) throws -> (Request, String) {
            switch self {
            case .changePassword:
                return (account("change_password", [
                    ("currentPassword", .string(SettingsWorld.password)), ("newPassword", .string(SettingsWorld.newPassword)),
                ], ada), rawValue)
            case .setPassword:
                #expect(try w.account("unlink", [("provider", "password")], as: linkGoogle(w, ada)).status == 200)
                return (account("set_password", [("newPassword", .string(SettingsWorld.newPassword))], ada), rawValue)
            case .changeEmailStarted:
                return (account("change_email", [("newEmail", "crash.first@example.org")], ada), rawValue)
            case .changeEmailConfirmed:
                let started = try w.account("change_email", [("newEmail", "crash.confirmed@example.org")], as: ada)
                let ticket = try #require(started.body["ticket"]?.stringValue, "\(started.rawBody)")
                let code = try #require(w.h.smtp.lastCode(to: "crash.confirmed@example.org"))
                return (Request(
                    endpoint: "verify-email",
                    json: JSONValue.object([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
                        .serialized,
                    bearer: nil), rawValue)
            case .link:
                let token = try w.h.google.token(sub: "crash-link-google", email: nil)
                return (account("link", [("provider", "google"), ("idToken", .string(token))], ada), rawValue)
            case .unlink:
                _ = try linkGoogle(w, ada)
                return (account("unlink", [("provider", "google")], ada), rawValue)
            }
        }

        /// The request to send again once the killed one left nothing: the same, but for an
        /// address change, whose first address waits out its mail interval, a second address.
        func retry(_ w: SettingsWorld, _ ada: SettingsWorld.Person, _ request: Request) throws -> Request {
            guard self == .changeEmailStarted else { return request }
            return account("change_email", [("newEmail", "crash.second@example.org")], ada)
        }

        @discardableResult
        func linkGoogle(_ w: SettingsWorld, _ ada: SettingsWorld.Person) throws -> SettingsWorld.Person {
            let token = try w.h.google.token(sub: "crash-\(rawValue)-google", email: nil)
            #expect(try w.account("link", [("provider", "google"), ("idToken", .string(token))], as: ada).status == 200)
            return ada
        }
    }
}
