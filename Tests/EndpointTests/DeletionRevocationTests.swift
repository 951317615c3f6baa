import DevSupport
import Shared
import Testing

/// Revoking Sign in with Apple after the answer, only for the same Apple account (issue 5, rule 6).
@Suite struct DeletionRevocationTests {
    @Test func withoutAFreshAuthorizationNothingIsRequested() throws {
        let d = try DeletionWorld()
        let code = try d.apple.issueCode()
        let nonce = AppleWorld.nonce()
        let stale = try d.apple.token(
            sub: "apple-nr", rawNonce: nonce, now: Clock.now() - FakeApple.tokenLifetime - 3600, code: code)
        let otherApp = try d.apple.token(sub: "apple-nr", rawNonce: nonce, audience: "com.other.app", code: code)
        let bodies: [(String, String)] = [
            ("no body", "{}"),
            ("empty strings", #"{"appleAuthorizationCode":"","appleIdentityToken":"","appleRawNonce":""}"#),
            ("code only", JSONValue.object([("appleAuthorizationCode", .string(code))]).serialized),
            ("no nonce", try d.freshBody(sub: "apple-nr").body.replacingNonce(with: "")),
            ("wrong nonce", try d.freshBody(sub: "apple-nr").body.replacingNonce(with: AppleWorld.nonce())),
            ("stale token", try d.freshBody(sub: "apple-nr", code: code, token: stale, nonce: nonce).body),
            ("another app's token", try d.freshBody(sub: "apple-nr", code: code, token: otherApp, nonce: nonce).body),
        ]
        for (name, body) in bodies {
            let (session, _) = try d.appleAccount("apple-nr")
            let mark = d.w.firebasePaths.count
            let answer = try d.delete(session, body: body)
            #expect(answer.status == 200, "\(name): \(answer.rawBody)")
            #expect(answer.body["appleRevocation"] == "not_requested", "\(name)")
            #expect(d.firebasePaths(after: mark).isEmpty, "\(name)")
        }
        #expect(d.firebase.revocations.isEmpty)
        #expect(try d.h.count("apple_revocations") == 0)
    }

    @Test func anotherAppleAccountsTokenRevokesNothing() throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-mine")
        let fresh = try d.freshBody(sub: "apple-someone-else")
        let mark = d.w.firebasePaths.count
        let answer = try d.delete(session, body: fresh.body)
        #expect(answer.body == .object([("deleted", true), ("appleRevocation", "identity_mismatch")]))
        #expect(try d.h.count("accounts") == 0)
        #expect(d.firebasePaths(after: mark).isEmpty)
        #expect(d.firebase.revocations.isEmpty)
        #expect(try d.h.database().query("SELECT apple_revocation FROM deletion_audit").first?.text(0)
            == "identity_mismatch")
    }

    @Test func relayRevokesTheCodeWithTheRelayUsersToken() throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-rev", email: "rev@example.org")
        let fresh = try d.freshBody(sub: "apple-rev")
        let answer = try d.delete(session, body: fresh.body)
        #expect(answer.body == .object([("deleted", true), ("appleRevocation", "scheduled")]), "\(answer.stderr)")
        let revocations = d.firebase.revocations
        #expect(revocations.count == 1)
        #expect(revocations.first?.token == fresh.code)
        #expect(revocations.first?.providerId == "apple.com")
        #expect(revocations.first?.tokenType == "CODE")
        #expect(revocations.first?.idTokenValid == true)
        #expect(revocations.first?.hasRedirectUri == false)
        let revoke = try #require(d.firebase.requests.first { $0.path.hasSuffix("/v2/accounts:revokeToken") })
        #expect(revoke.header("x-goog-api-key") == FakeFirebase.apiKey)
        // The relay user made for it is gone, and nothing secret is left in the row.
        #expect(d.firebase.userCount == 0)
        #expect(try d.h.count("relay_cleanups") == 0)
        let row = try d.revocationRow()
        #expect(row.state == "revoked")
        #expect(!row.keepsSecrets)
        #expect(!answer.stderr.contains(fresh.code))
        // The nonce was claimed: the same fresh authorization cannot be used again.
        let (other, _) = try d.appleAccount("apple-rev")
        #expect(try d.delete(other, body: fresh.body).body["appleRevocation"] == "not_requested")
    }

    @Test func aCodeHashForAnotherCodeRevokesNothing() throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-chash")
        let fresh = try d.freshBody(sub: "apple-chash", codeHashOf: try d.apple.issueCode())
        let answer = try d.delete(session, body: fresh.body)
        #expect(answer.body["appleRevocation"] == "scheduled")
        #expect(d.firebase.revocations.isEmpty)
        let row = try d.revocationRow()
        #expect(row.state == "mismatch")
        #expect(row.detail?.contains("c_hash") == true)
        #expect(!row.keepsSecrets)
        #expect(d.firebase.userCount == 0)
    }

    @Test func aDeletionNeverWaitsForAHangingRevocation() throws {
        let d = try DeletionWorld()
        let (session, accountId) = try d.appleAccount("apple-hang")
        d.firebase.setRevoke(.hang(seconds: 3600))
        let fresh = try d.freshBody(sub: "apple-hang")
        let timed = try d.deleteTimed(session, body: fresh.body, accountId: accountId)
        print("delete-account with revokeToken hanging: answer \(Int(timed.answerMillis)) ms, "
              + "exit \(Int(timed.exitMillis)) ms (status \(timed.exitStatus))")
        #expect(timed.answer.status == 200)
        #expect(timed.answer.body["appleRevocation"] == "scheduled")
        #expect(timed.answerMillis < 10_000)
        #expect(timed.goneAtAnswer)
        #expect(timed.exitStatus == 0)
        #expect(timed.exitMillis < 10 * Double(DeletionWorld.processLifetime) * 1000)
        #expect(d.firebase.revocations.count == 1)
        // Kept for a retry: the code and the relay user's clean-up record (its refresh token), and
        // the relay user itself; not the relay's ID token, which names the person.
        let row = try d.revocationRow()
        #expect(row.state == "retry")
        #expect(row.keepsSecrets)
        #expect(d.firebase.userCount == 1)
        let kept = try d.h.database().query(
            "SELECT id_token IS NULL, code IS NOT NULL, relay_cleanup_id IS NOT NULL FROM apple_revocations").first
        #expect(kept.map { [$0.int(0), $0.int(1), $0.int(2)] } == [1, 1, 1])
        // Both secrets sealed under the server key (issue 29): the backup of the store holds neither.
        let stored = try d.h.database().query(
            "SELECT a.code, r.refresh_token FROM apple_revocations a JOIN relay_cleanups r ON r.id = a.relay_cleanup_id"
        ).first
        let storedCode = try #require(stored?.text(0))
        #expect(storedCode.hasPrefix("sealed1:") && !storedCode.contains(fresh.code), "\(storedCode)")
        #expect(stored?.text(1)?.hasPrefix("sealed1:") == true)
        let uid = try #require(try d.h.database().query("SELECT relay_uid FROM relay_cleanups").first?.text(0))
        let refresh = try #require(d.firebase.refreshToken(of: uid))
        try d.h.database().checkpoint()
        #expect(!d.storeBytes().contains(fresh.code) && !d.storeBytes().contains(refresh))

        // A later request retries it once it is due, with a fresh ID token; then the relay user goes too.
        d.firebase.setRevoke(.normal)
        d.firebase.resetLog()
        try d.h.database().run("UPDATE apple_revocations SET next_attempt_at = 0")
        let (later, _) = try d.googleAccount("g-later")
        #expect(try d.delete(later).status == 200)
        #expect(d.firebase.revocations.count == 2)
        #expect(d.firebase.revocations.last?.token == fresh.code)
        #expect(d.firebase.requests.contains { $0.path.hasSuffix("/v1/token") })
        #expect(try d.revocationRow().state == "revoked")
        #expect(try !d.revocationRow().keepsSecrets)
        #expect(d.firebase.userCount == 0)
        #expect(try d.h.count("relay_cleanups") == 0)
    }

    /// Issue 15, point 1, for the revocation that holds its relay user until `revokeToken` is
    /// retried: it waits only while the user can still delete itself after, and past that it
    /// gives up and the user is cleaned up like any other.
    @Test func aRelayRevocationWaitsOnlyWhileItsRelayUserCanStillBeDeleted() throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-hold")
        d.firebase.setRevoke(.error(status: 503, message: "UNAVAILABLE"))
        #expect(try d.delete(session, body: try d.freshBody(sub: "apple-hold").body).status == 200)
        let db = try d.h.database()
        let held = try #require(try db.query(
            """
            SELECT r.retry_until, c.next_attempt_at, c.delete_by_token_until FROM apple_revocations r
            JOIN relay_cleanups c ON c.id = r.relay_cleanup_id
            """).first)
        let (retryUntil, holdUntil, windowEnd) = (held.int(0) ?? 0, held.int(1) ?? 0, held.int(2) ?? 0)
        #expect(retryUntil <= windowEnd - 60)
        #expect(holdUntil == retryUntil)
        #expect(d.firebase.userCount == 1)

        // The window has passed: the retry revokes nothing and the user is past its window too.
        d.firebase.setRevoke(.normal)
        try db.run("UPDATE relay_cleanups SET delete_by_token_until = ?", [.integer(Clock.now() + 30)])
        try db.run("UPDATE apple_revocations SET next_attempt_at = 0")
        let (later, _) = try d.googleAccount("g-hold-later")
        #expect(try d.delete(later).status == 200)
        let row = try d.revocationRow()
        #expect(row.state == "failed")
        #expect(row.detail?.contains("window") == true)
        #expect(!row.keepsSecrets)
        #expect(d.firebase.revocations.count == 1)
        // What was left of its window went to deleting it.
        #expect(d.firebase.userCount == 0)
        #expect(try d.h.count("relay_cleanups") == 0)
    }

    @Test func aRetryWindowThatPassedDropsTheSecrets() throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-expire")
        d.firebase.setRevoke(.error(status: 503, message: "UNAVAILABLE"))
        #expect(try d.delete(session, body: try d.freshBody(sub: "apple-expire").body).status == 200)
        #expect(try d.revocationRow().state == "retry")
        let db = try d.h.database()
        try db.run("UPDATE apple_revocations SET retry_until = ?", [.integer(Clock.now() - 1)])
        try Housekeeping.prune(db, now: Clock.now())
        let row = try d.revocationRow()
        #expect(row.state == "expired")
        #expect(!row.keepsSecrets)
    }
}

/// Direct mode: Apple's token endpoint with an ES256 client secret, then its revoke endpoint.
@Suite struct DirectDeletionTests {
    @Test func directModeExchangesTheCodeAndRevokesTheRefreshToken() throws {
        let d = try DeletionWorld(mode: "direct")
        let (session, _) = try d.appleAccount("apple-direct")
        let fresh = try d.freshBody(sub: "apple-direct")
        let answer = try d.delete(session, body: fresh.body)
        #expect(answer.body["appleRevocation"] == "scheduled", "\(answer.stderr)")
        #expect(d.apple.exchangedCodes == [fresh.code])
        let refresh = try #require(d.apple.refreshToken(forCode: fresh.code))
        #expect(d.apple.revokedTokens == [refresh])
        let row = try d.revocationRow()
        #expect(row.state == "revoked", "\(row.detail ?? "")")
        #expect(!row.keepsSecrets)
        #expect(d.firebase.requests.isEmpty)
    }

    /// Issue 15, point 6: in direct mode the code is bound to the account by the `sub` of the ID
    /// token Apple's token endpoint returns for it, whatever the fresh token's `c_hash` says.
    @Test func directModeBindsTheCodeByTheTokenEndpointsSubWhateverCHashSays() throws {
        let d = try DeletionWorld(mode: "direct")
        let (first, _) = try d.appleAccount("apple-direct-2")
        let mismatch = try d.delete(first, body: try d.freshBody(sub: "apple-direct-other").body)
        #expect(mismatch.body["appleRevocation"] == "identity_mismatch")

        // A c_hash of another code, but the code is this account's: revoked, and the c_hash noted.
        let (second, _) = try d.appleAccount("apple-direct-2")
        let wrongHash = try d.freshBody(sub: "apple-direct-2", codeHashOf: try d.apple.issueCode())
        #expect(try d.delete(second, body: wrongHash.body).body["appleRevocation"] == "scheduled")
        let revoked = try d.revocationRow()
        #expect(revoked.state == "revoked", "\(revoked.detail ?? "")")
        #expect(revoked.detail == "c_hash does not match the authorization code")
        #expect(d.apple.revokedTokens.count == 1)
        try d.h.database().run("DELETE FROM apple_revocations")

        // Another Apple account's code, with a c_hash that matches it: exchanged, not revoked.
        let (third, _) = try d.appleAccount("apple-direct-2")
        let foreign = try d.apple.issueCode(sub: "apple-direct-someone-else")
        let stolen = try d.freshBody(sub: "apple-direct-2", code: foreign)
        #expect(try d.delete(third, body: stolen.body).body["appleRevocation"] == "scheduled")
        let refused = try d.revocationRow()
        #expect(refused.state == "mismatch")
        #expect(refused.detail?.contains("another Apple account") == true)
        #expect(!refused.keepsSecrets)
        #expect(d.apple.exchangedCodes.last == foreign)
        #expect(d.apple.revokedTokens.count == 1)
    }

    /// A retry of the exchange binds the code the same way, from an HMAC of the account's `sub`.
    @Test func aDirectRetryAfterAFailedExchangeStillChecksTheSub() throws {
        let d = try DeletionWorld(mode: "direct")
        let (session, _) = try d.appleAccount("apple-direct-retry")
        let healthy = d.apple.tokenURL
        var config = String(decoding: FileIO.readFile(d.h.configPath) ?? [], as: UTF8.self)
        let down = "http://127.0.0.1:\(try Stack.freePort())" + FakeApple.tokenPath
        config = config.replacing("\"\(healthy)\"", with: "\"\(down)\"")
        try d.h.writeText(d.h.configPath, config)
        let fresh = try d.freshBody(sub: "apple-direct-retry")
        #expect(try d.delete(session, body: fresh.body).body["appleRevocation"] == "scheduled")
        let waiting = try d.h.database().query(
            "SELECT state, subject_hash IS NOT NULL, code IS NOT NULL FROM apple_revocations").first
        #expect(waiting?.text(0) == "retry")
        #expect(waiting?.int(1) == 1)
        #expect(waiting?.int(2) == 1)
        try d.h.writeText(d.h.configPath, config.replacing("\"\(down)\"", with: "\"\(healthy)\""))
        try d.h.database().run("UPDATE apple_revocations SET next_attempt_at = 0")
        let (later, _) = try d.googleAccount("g-direct-later")
        #expect(try d.delete(later).status == 200)
        let row = try d.revocationRow()
        #expect(row.state == "revoked", "\(row.detail ?? "")")
        #expect(!row.keepsSecrets)
        // The sub's HMAC stays, for Apple's echo of the revocation (issue 23), and nothing else.
        #expect(try d.h.database().query("SELECT subject_hash FROM apple_revocations").first?[0] != .null)
    }

    /// Relay mode keeps the c_hash gate (native tokens carry one, per every decoded sample) and
    /// makes each refusal visible: the row's detail, syslog, and `frontdoor-check`'s count.
    @Test(arguments: [true, false])
    func aRelayRevocationWithoutAMatchingCHashRevokesNothingVisibly(_ present: Bool) throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-chash-2")
        let code = try d.apple.issueCode(sub: "apple-chash-2")
        let nonce = AppleWorld.nonce()
        let token = try d.apple.token(
            sub: "apple-chash-2", rawNonce: nonce, code: code, overrides: present ? [] : [("c_hash", .null)])
        let body = try d.freshBody(sub: "apple-chash-2", code: code, codeHashOf: present ? try d.apple.issueCode() : nil,
                                   token: present ? nil : token, nonce: present ? nil : nonce)
        #expect(try d.delete(session, body: body.body).body["appleRevocation"] == "scheduled")
        let row = try d.revocationRow()
        #expect(row.state == "mismatch")
        #expect(row.detail?.hasPrefix("c_hash") == true)
        #expect(d.firebase.revocations.isEmpty)
        #expect(d.firebase.userCount == 0)
    }

    @Test func directModeKeepsOnlyTheRefreshTokenWhenTheRevokeHangs() throws {
        let d = try DeletionWorld(mode: "direct")
        let (session, accountId) = try d.appleAccount("apple-direct-hang")
        d.apple.setRevoke(.hang(seconds: 3600))
        let fresh = try d.freshBody(sub: "apple-direct-hang")
        let timed = try d.deleteTimed(session, body: fresh.body, accountId: accountId)
        #expect(timed.answerMillis < 10_000)
        #expect(timed.goneAtAnswer)
        #expect(timed.exitMillis < 10 * Double(DeletionWorld.processLifetime) * 1000)
        let kept = try d.h.database().query("SELECT state, code, refresh_token FROM apple_revocations").first
        #expect(kept?.text(0) == "retry")
        #expect(kept?[1] == .null)
        // Sealed under the server key (issue 29), and still what a retry revokes.
        let refresh = try #require(d.apple.refreshToken(forCode: fresh.code))
        let stored = try #require(kept?.text(2))
        #expect(stored.hasPrefix("sealed1:") && !stored.contains(refresh), "\(stored)")
        try d.h.database().checkpoint()
        #expect(!d.storeBytes().contains(refresh))
        d.apple.setRevoke(.normal)
        try d.h.database().run("UPDATE apple_revocations SET next_attempt_at = 0")
        let (later, _) = try d.googleAccount("g-direct-later")
        #expect(try d.delete(later).status == 200)
        #expect(d.apple.revokedTokens == [refresh, refresh], "\(d.apple.revokedTokens)")
        #expect(try d.revocationRow().state == "revoked")
    }
}

extension String {
    /// The body with `appleRawNonce` replaced.
    func replacingNonce(with nonce: String) throws -> String {
        let json = try JSONParser.parse(Array(utf8))
        let members = (json.objectValue ?? []).map { $0.0 == "appleRawNonce" ? ($0.0, JSONValue.string(nonce)) : $0 }
        return JSONValue.object(members).serialized
    }
}
