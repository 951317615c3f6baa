import DevSupport
import Foundation
@testable import FrontdoorClient
import Shared
import Testing

typealias ClientError = FrontdoorClient.FrontdoorError

/// The Swift client against the real server: nginx, fcgiwrap and the built programs on loopback
/// (`Stack`), with the harness's fakes playing Google, Apple, Firebase and the mail server.
/// nginx's per-address limit is off (the tests make more requests a minute than a person); the
/// programs' own limits stay on.
struct ClientWorld {
    let h: Harness
    let stack: Stack

    init(_ h: Harness) throws {
        self.h = h
        stack = try Stack(h, environment: ["FRONTDOOR_RATE_LIMIT": "off"])
    }

    /// A phone: its own session store.
    func phone(_ deviceName: String? = "Test iPhone") -> Frontdoor {
        Frontdoor(baseURL: URL(string: stack.baseURL + "/auth")!, deviceName: deviceName)
    }

    /// What the call threw, or nil (and an issue) when it did not throw or threw something else.
    static func failure<T>(
        _ call: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> ClientError? {
        do {
            let value = try await call()
            Issue.record("no error; answered \(value)", sourceLocation: sourceLocation)
            return nil
        } catch let error as ClientError {
            return error
        } catch {
            Issue.record("not the client's error: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// A secret the test sent, for the log scan after `make test`.
    static func secret(_ text: String) -> String {
        TestLogs.register(text)
        return text
    }

    /// The code of the last mail to `address`, waiting for a mail sent after the answer.
    func code(to address: String, after count: Int = 0) async throws -> String {
        for _ in 0..<200 {
            if h.smtp.messages.count > count, let code = h.smtp.lastCode(to: address) { return code }
            try await Task.sleep(nanoseconds: 25_000_000)
        }
        throw HarnessError("no mail with a code to \(address)")
    }
}
