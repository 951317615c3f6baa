#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// delete-account over HTTP: nginx → fcgiwrap → the program, revocation after the answer.
@Suite(.serialized) struct DeletionStackTests {
    @Test func deleteAccountThroughNginxRevokesAfterTheAnswer() throws {
        let d = try DeletionWorld()
        let stack = try Stack(d.h)
        defer { stack.stop() }
        let nonce = AppleWorld.nonce()
        let token = try d.apple.token(sub: "apple-stack", rawNonce: nonce, email: "stack@example.org")
        let signIn = try stack.post("/auth/signin-apple", json: AppleWorld.body(token, nonce: nonce))
        #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self)) \(stack.errorLog())")
        let session = try #require(signIn.json?["sessionToken"]?.stringValue)

        let fresh = try d.freshBody(sub: "apple-stack")
        let started = Clock.monotonicMillis()
        let deleted = try stack.post("/auth/delete-account", json: fresh.body, authorization: "Bearer \(session)")
        let answerMillis = Clock.monotonicMillis() - started
        #expect(deleted.status == 200, "\(String(decoding: deleted.body, as: UTF8.self)) \(stack.errorLog())")
        #expect(deleted.header("cache-control") == "no-store")
        #expect(deleted.json == .object([("deleted", true), ("appleRevocation", "scheduled")]))
        #expect(answerMillis < 10_000)
        #expect(try d.h.count("accounts") == 0)

        // The revocation runs in a process this test cannot wait on: wait for its outcome, bounded
        // by the process's own ceiling.
        let deadline = Clock.monotonicMillis() + Double(DeletionWorld.processLifetime) * 1000
        func settled() throws -> Bool {
            try d.h.database().query("SELECT state FROM apple_revocations").first?.text(0) == "revoked"
                && d.firebase.userCount == 0
        }
        while try !settled(), Clock.monotonicMillis() < deadline { usleep(20_000) }
        #expect(try settled())
        #expect(d.firebase.revocations.map(\.token) == [fresh.code])
        let again = try stack.post("/auth/delete-account", json: "{}", authorization: "Bearer \(session)")
        #expect(again.status == 401)
        #expect(again.json?["error"]?.stringValue == "unauthorized")
        let log = stack.errorLog()
        #expect(log.contains("endpoint=delete-account status=200"))
        for secret in [token, nonce, fresh.code, session, "stack@example.org"] { #expect(!log.contains(secret)) }
    }

    /// fcgiwrap ends the request when the program closes stdout and stderr: a revoke endpoint that
    /// hangs does not hold nginx's answer either.
    @Test func aHangingRevocationDoesNotHoldNginxsAnswer() throws {
        let d = try DeletionWorld()
        let stack = try Stack(d.h)
        defer { stack.stop() }
        let (session, _) = try d.appleAccount("apple-stack-hang")
        d.firebase.setRevoke(.hang(seconds: 3600))
        let fresh = try d.freshBody(sub: "apple-stack-hang")
        let started = Clock.monotonicMillis()
        let deleted = try stack.post("/auth/delete-account", json: fresh.body, authorization: "Bearer \(session)")
        let answerMillis = Clock.monotonicMillis() - started
        print("delete-account through nginx with revokeToken hanging: answer \(Int(answerMillis)) ms")
        #expect(deleted.status == 200)
        #expect(deleted.json?["appleRevocation"] == "scheduled")
        #expect(answerMillis < 10_000)
        #expect(try d.h.count("accounts") == 0)
    }
}
