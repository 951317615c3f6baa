#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 15, point 2: a retry we invite must work. When Firebase answered and a later step failed
/// (its keys could not be fetched), the answer is kept, sealed, for a few minutes; the phone's
/// retry with the same token and nonce completes from it without a second `signInWithIdp`
/// (Firebase would refuse the credential), and what was kept goes.
@Suite struct AppleRelayRetryTests {
    /// The config with Firebase's key set at a port nobody listens on.
    static func breakFirebaseKeys(_ w: AppleWorld) throws {
        var members = w.configMembers()
        if let i = members.firstIndex(where: { $0.0 == "firebase" }), case .object(var inner) = members[i].1,
            let j = inner.firstIndex(where: { $0.0 == "certsUrl" })
        {
            inner[j].1 = .string("http://127.0.0.1:\(try Stack.freePort())/certs")
            members[i].1 = .object(inner)
        }
        try w.h.writeConfig(members)
    }

    @Test func firebaseKeysUnavailableAfterItsAnswerTheRetryCompletesFromWhatWasKept() throws {
        let w = try AppleWorld()
        try Self.breakFirebaseKeys(w)
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-kept", rawNonce: nonce, email: "kept@example.org")
        let first = try w.signIn(token, nonce: nonce)
        #expect(first.status == 503, "\(first.rawBody) \(first.stderr)")
        #expect(first.body["startOver"] == nil)
        #expect(try w.count(.relayAttempt) == 1)
        #expect(try w.count(.nonce) == 1)
        // The relay user went after the answer as usual: the kept ID token needs no user.
        #expect(w.firebase.userCount == 0)
        // Sealed: neither the ID token nor the email is readable in the store.
        let kept = try #require(try w.h.database().query("SELECT value FROM ephemeral WHERE kind = ?", [.integer(Ephemeral.Kind.relayAttempt.rawValue)]).first?.blob(0))
        #expect(!kept.contains("kept@example.org"))
        #expect(!kept.contains("eyJ"))

        // Still unavailable: another 503, still kept.
        let second = try w.signIn(token, nonce: nonce)
        #expect(second.status == 503)
        #expect(try w.count(.relayAttempt) == 1)

        try w.writeConfig()
        let calls = w.firebase.signInRequests
        let retry = try w.signIn(token, nonce: nonce)
        #expect(retry.status == 200, "\(retry.rawBody) \(retry.stderr)")
        #expect(retry.body["email"]?.stringValue == "kept@example.org")
        #expect(w.firebase.signInRequests == calls)
        #expect(try w.count(.relayAttempt) == 0)
        // Once: the same token and nonce again are a replay.
        let replay = try w.signIn(token, nonce: nonce)
        #expect(replay.status == 401)
        #expect(w.firebase.signInRequests == calls)
    }

    /// Issue 19, item 8: the kept answer is sealed under the server key and the raw nonce, so a copy
    /// of the database and the nonce (a short one was guessed within seconds) open nothing: with
    /// another server key beside the same rows, the same token and nonce get no sign-in from it.
    @Test func whatWasKeptOpensOnlyWithTheServerKeyToo() throws {
        let w = try AppleWorld()
        try Self.breakFirebaseKeys(w)
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-kept-key", rawNonce: nonce, email: "kept.key@example.org")
        #expect(try w.signIn(token, nonce: nonce).status == 503)
        #expect(try w.count(.relayAttempt) == 1)
        // The store as a thief has it: the same rows, without this box's server key.
        let keyFile = w.h.dir + "/audit-key"
        #expect(access(keyFile, F_OK) == 0)
        try w.h.writeText(keyFile, Hex.encode(try SecureRandom.bytes(32)) + "\n")
        try w.writeConfig()
        let calls = w.firebase.signInRequests
        let retry = try w.signIn(token, nonce: nonce)
        #expect(retry.status == 401, "\(retry.rawBody)")
        #expect(retry.stderr.contains("the kept sign-in does not open with this nonce"), "\(retry.stderr)")
        #expect(w.firebase.signInRequests == calls)
        #expect(try w.count("accounts") == 0)
    }

    /// What was kept opens only for the same token: another token with the nonce (a forgery
    /// naming the same nonce) gets nothing from it.
    @Test func whatWasKeptServesOnlyTheSameToken() throws {
        let w = try AppleWorld()
        try Self.breakFirebaseKeys(w)
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-kept-2", rawNonce: nonce)
        #expect(try w.signIn(token, nonce: nonce).status == 503)
        try w.writeConfig()
        let other = try w.apple.token(sub: "apple-kept-2", rawNonce: nonce, email: "other@example.org")
        let answer = try w.signIn(other, nonce: nonce)
        #expect(answer.status == 401)
        #expect(try w.count(.relayAttempt) == 1)
        #expect(try w.count("accounts") == 0)
    }

    /// Kept for a few minutes only: housekeeping drops it after, and the phone must start over.
    @Test func whatWasKeptExpires() throws {
        let w = try AppleWorld()
        try Self.breakFirebaseKeys(w)
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-kept-3", rawNonce: nonce)
        #expect(try w.signIn(token, nonce: nonce).status == 503)
        let db = try w.h.database()
        let row = try #require(try db.query(
            "SELECT expires_at - ? FROM ephemeral WHERE kind = ?", [.integer(Clock.now()), .integer(Ephemeral.Kind.relayAttempt.rawValue)]).first)
        #expect((row.int(0) ?? 0) <= 300)
        try db.run(
            "UPDATE ephemeral SET expires_at = ? WHERE kind = ?", [.integer(Clock.now() - 1), .integer(Ephemeral.Kind.relayAttempt.rawValue)])
        try Housekeeping.prune(db, now: Clock.now())
        #expect(try w.count(.relayAttempt) == 0)
        try w.writeConfig()
        #expect(try w.signIn(token, nonce: nonce).status == 401)
    }

    /// A retry held between claiming what was kept and finishing cannot be doubled by another.
    @Test func twoRetriesAtOnceMakeOneSignIn() throws {
        let w = try AppleWorld()
        try Self.breakFirebaseKeys(w)
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-kept-4", rawNonce: nonce)
        #expect(try w.signIn(token, nonce: nonce).status == 503)
        try w.writeConfig()
        let held = try HeldRequest(
            w.h, "signin-apple", json: AppleWorld.body(token, nonce: nonce), holdAt: "relay-resume")
        try held.waitUntilHeld()
        let other = try w.signIn(token, nonce: nonce)
        #expect(other.status == 401)
        let first = try held.release()
        #expect(first.status == 200, "\(first.rawBody)")
        #expect(try w.count("sessions") == 1)
    }
}
