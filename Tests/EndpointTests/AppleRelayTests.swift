import DevSupport
import Shared
import Testing

/// Sign in with Apple through the Firebase relay (issue 3, rules 2–5).
@Suite struct AppleRelayTests {
    @Test func validRelaySignInMakesAnAccountAndLeavesNoRelayUser() throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-1", rawNonce: nonce, email: "ada@privaterelay.appleid.com")
        let answer = try w.signIn(token, nonce: nonce, givenName: " Ada ", familyName: "Lovelace")
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.body["created"] == true)
        #expect(answer.body["email"]?.stringValue == "ada@privaterelay.appleid.com")
        #expect(answer.body["providers"] == .array(["apple"]))
        let db = try w.h.database()
        #expect(try db.query("SELECT name FROM accounts").first?.text(0) == "Ada Lovelace")
        #expect(try db.query("SELECT provider, subject FROM identities").first?.text(1) == "apple-1")
        // The relay user was made and deleted after the answer; its clean-up record went with it.
        #expect(w.firebase.usersCreated == 1)
        #expect(w.firebase.userCount == 0)
        #expect(try w.count("relay_cleanups") == 0)
        // What went out: the key in a header, never in a URL; the request body as Identity Toolkit wants it.
        let signIn = try #require(w.firebase.requests.first { $0.path.hasSuffix("accounts:signInWithIdp") })
        #expect(signIn.header("x-goog-api-key") == FakeFirebase.apiKey)
        #expect(w.firebase.requests.allSatisfy { !$0.path.contains("key=") })
        let sent = try JSONParser.parse(signIn.body)
        #expect(sent["requestUri"]?.stringValue == "http://localhost")
        #expect(sent["returnSecureToken"] == true)
        #expect(sent["postBody"]?.stringValue == "id_token=\(token)&providerId=apple.com&nonce=\(nonce)")
        // Nothing personal or secret in the log.
        for secret in [token, nonce, "ada@", "Lovelace", FakeFirebase.apiKey] {
            #expect(!answer.stderr.contains(secret))
        }
    }

    @Test func sameAppleSubThroughANewRelayUserReachesTheSameAccount() throws {
        let w = try AppleWorld()
        let first = try w.signInNew(sub: "apple-2", email: "grace@example.org")
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-2", rawNonce: nonce, email: "grace@example.org")
        let second = try w.signIn(token, nonce: nonce, givenName: "Someone", familyName: "Else")
        #expect(first.status == 200 && second.status == 200)
        #expect(second.body["created"] == false)
        #expect(second.body["accountId"] == first.body["accountId"])
        // Two relay users, each deleted; the account keeps the name it was made with (none).
        #expect(w.firebase.usersCreated == 2)
        #expect(w.firebase.userCount == 0)
        #expect(try w.h.database().query("SELECT name FROM accounts").first?[0] == .null)
        #expect(try w.count("identities") == 1)
    }

    @Test func wrongOrMissingNonceIsRefusedWithoutAnOutboundCall() throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        let cases: [(String, String, String)] = [
            ("another raw nonce", try w.apple.token(sub: "apple-3", rawNonce: nonce), AppleWorld.nonce()),
            ("no nonce claim", try w.apple.token(sub: "apple-3", rawNonce: nil), nonce),
            ("base64 instead of hex", try w.apple.token(
                sub: "apple-3", rawNonce: nil,
                overrides: [("nonce", .string(Base64URL.encode(SHA256.hash(Array(nonce.utf8)))))]), nonce),
            ("the hash sent as the raw nonce", try w.apple.token(sub: "apple-3", rawNonce: nonce),
             FakeApple.nonceClaim(nonce)),
        ]
        for (name, token, raw) in cases {
            let answer = try w.signIn(token, nonce: raw)
            #expect(answer.status == 401, "\(name)")
            #expect(answer.errorCode == "invalid_token", "\(name)")
        }
        let missing = try w.signIn(try w.apple.token(sub: "apple-3", rawNonce: nonce), nonce: nil)
        #expect(missing.status == 400)
        #expect(missing.errorCode == "invalid_request")
        #expect(w.firebase.requests.isEmpty)
        #expect(w.apple.keyFetches == 0)
        #expect(try w.count(.nonce) == 0)
        #expect(try w.count("accounts") == 0)
    }

    /// Issue 19, item 8: a raw nonce under 32 characters (Apple's sample makes 32 random ones) is
    /// 400 `invalid_request` before anything is spent or sent, in either mode; 32 sign in.
    @Test(arguments: ["relay", "direct"])
    func aRawNonceUnder32CharactersIsRefusedBeforeAnythingHappens(_ mode: String) throws {
        let w = try AppleWorld(mode: mode)
        for raw in ["1234", String(repeating: "n", count: 31), String(repeating: "é", count: 31)] {
            let answer = try w.signIn(try w.apple.token(sub: "apple-short", rawNonce: raw), nonce: raw)
            #expect(answer.status == 400, "\(raw.count): \(answer.rawBody)")
            #expect(answer.errorCode == "invalid_request")
            #expect(answer.body["message"]?.stringValue?.contains("at least 32 characters") == true)
        }
        #expect(w.firebase.requests.isEmpty)
        #expect(w.apple.keyFetches == 0)
        #expect(try w.count(.nonce) == 0)
        let raw = String(AppleWorld.nonce().prefix(32))
        let answer = try w.signIn(try w.apple.token(sub: "apple-short", rawNonce: raw), nonce: raw)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
    }

    /// Rule 21: Apple's web script signs for the Services ID. Listed in `apple.servicesIds` (and,
    /// in relay mode, in Firebase's Apple provider), its tokens sign in; not listed, they are
    /// refused before anything is spent or sent.
    @Test func aTokenForAListedServicesIdSignsInThroughTheRelay() throws {
        let w = try AppleWorld()
        w.firebase.setAppleAudiences([FakeApple.bundleId, AppleWorld.servicesId])
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-web-1", rawNonce: nonce, audience: AppleWorld.servicesId)
        let refused = try w.signIn(token, nonce: nonce)
        #expect(refused.status == 401 && refused.errorCode == "invalid_token", "\(refused.rawBody)")
        #expect(w.firebase.requests.isEmpty)
        #expect(try w.count(.nonce) == 0)
        try w.writeConfig([w.appleSection(servicesIds: [AppleWorld.servicesId])])
        let answer = try w.signIn(token, nonce: nonce)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.body["providers"] == .array(["apple"]))
        // The same Apple account from the iPhone app (its bundle id) is the same person.
        let app = try w.signInNew(sub: "apple-web-1")
        #expect(app.body["accountId"] == answer.body["accountId"])
    }

    /// What docs/apple.md warns of: a Services ID the Firebase project's Apple provider does not
    /// list is refused by Firebase, whatever our config says.
    @Test func aServicesIdFirebaseDoesNotListIsRefusedThere() throws {
        let w = try AppleWorld()
        try w.writeConfig([w.appleSection(servicesIds: [AppleWorld.servicesId])])
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-web-2", rawNonce: nonce, audience: AppleWorld.servicesId)
        let answer = try w.signIn(token, nonce: nonce)
        #expect(answer.status != 200, "\(answer.rawBody)")
        #expect(w.firebase.requests.contains { $0.path.hasSuffix("accounts:signInWithIdp") })
        #expect(try w.count("accounts") == 0)
    }

    @Test func replayedNonceIsRefused() throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-4", rawNonce: nonce)
        #expect(try w.signIn(token, nonce: nonce).status == 200)
        let replay = try w.signIn(token, nonce: nonce)
        #expect(replay.status == 401)
        #expect(replay.errorCode == "invalid_token")
        #expect(replay.stderr.contains("nonce already used"))
        #expect(w.firebase.usersCreated == 1)
        // Kept until the token's expiry (plus the clock-skew allowance).
        let row = try w.h.database().query("SELECT expires_at FROM ephemeral WHERE kind = 1").first
        let payload = Base64URL.decode(token.split(separator: ".")[1]) ?? []
        let exp = try #require(try JSONParser.parse(payload)["exp"]?.int64Value)
        #expect(row?.int(0) == exp + 60)
    }

    @Test func replaysAtOnceMakeExactlyOneSignIn() throws {
        let w = try AppleWorld()
        // Warm the key cache so the processes race on the nonce.
        #expect(try w.signInNew(sub: "apple-warm").status == 200)
        let nonce = AppleWorld.nonce()
        let body = Array(AppleWorld.body(try w.apple.token(sub: "apple-5", rawNonce: nonce), nonce: nonce).utf8)
        Harness.registerSecrets(of: body, authorization: nil)
        let env = w.h.environment(
            method: "POST", contentType: "application/json", contentLength: body.count, authorization: nil, extra: [:])
        let started = try (0..<4).map { _ in
            try ChildProcess.start(Harness.binDir + "/signin-apple", environment: env, stdin: body, workDir: w.h.dir)
        }
        let answers = started.compactMap {
            CGIAnswer.parse(ChildProcess.finish(pid: $0.pid, stdoutPath: $0.stdoutPath, stderrPath: $0.stderrPath))
        }
        #expect(answers.count == 4)
        #expect(answers.filter { $0.status == 200 }.count == 1, "\(answers.map { $0.status })")
        #expect(answers.filter { $0.errorCode == "invalid_token" }.count == 3)
        #expect(w.firebase.usersCreated == 2)
        #expect(w.firebase.userCount == 0)
    }

    @Test func tokenForAnotherBundleIdIsRefused() throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-6", rawNonce: nonce, audience: "com.other.app")
        let answer = try w.signIn(token, nonce: nonce)
        #expect(answer.status == 401)
        #expect(w.firebase.requests.isEmpty)
        #expect(try w.count(.nonce) == 0)
    }

    @Test(arguments: ["false", false] as [JSONValue])
    func unverifiedEmailNeverJoinsOrCreates(_ verified: JSONValue) throws {
        let w = try AppleWorld()
        let answer = try w.signInNew(sub: "apple-7", email: "new@example.org", emailVerified: verified)
        #expect(answer.status == 403)
        #expect(answer.errorCode == "email_not_verified")
        #expect(try w.count("accounts") == 0)
        #expect(try w.count("identities") == 0)
        #expect(w.firebase.userCount == 0)
    }

    @Test(arguments: ["true", true] as [JSONValue])
    func verifiedEmailAsStringOrBooleanIsAccepted(_ verified: JSONValue) throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(
            sub: "apple-8", rawNonce: nonce, email: "x1y2@privaterelay.appleid.com", emailVerified: verified,
            isPrivateEmail: verified)
        let answer = try w.signIn(token, nonce: nonce)
        #expect(answer.status == 200, "\(answer.stderr)")
        #expect(answer.body["email"]?.stringValue == "x1y2@privaterelay.appleid.com")
        #expect(try w.h.database().query("SELECT email_verified FROM accounts").first?.int(0) == 1)
    }

    @Test func verifiedAppleEmailJoinsAVerifiedAccount() throws {
        let w = try AppleWorld()
        let google = try w.h.signInGoogle(try w.h.google.token(sub: "g-ap", email: "lin@gmail.com"))
        let answer = try w.signInNew(sub: "apple-join", email: "Lin@Gmail.com")
        #expect(answer.status == 200)
        #expect(answer.body["accountId"] == google.body["accountId"])
        #expect(answer.body["providers"] == .array(["apple", "google"]))
    }

    /// A relay user is ours to delete only when its ID token names the Apple `sub` (and Firebase
    /// made it for this call): a token that does not is refused, and its user left alone.
    @Test(arguments: [
        ("wrong audience", [("aud", JSONValue.string("another-project"))], true),
        ("wrong issuer", [("iss", JSONValue.string("https://securetoken.google.com/another-project"))], true),
        ("wrong provider", [("firebase", JSONValue.object([
            ("identities", .object([("apple.com", .array(["apple-9"]))])), ("sign_in_provider", "password"),
        ]))], true),
        ("another Apple identity", [("firebase", JSONValue.object([
            ("identities", .object([("apple.com", .array(["someone-else"]))])), ("sign_in_provider", "apple.com"),
        ]))], false),
        ("no Apple identity", [("firebase", JSONValue.object([("sign_in_provider", "apple.com")]))], false),
    ] as [(String, [(String, JSONValue)], Bool)])
    func firebaseTokenOutsideTheRulesIsRefusedAndOnlyOurOwnRelayUserDeleted(
        _ name: String, overrides: [(String, JSONValue)], ours: Bool
    ) throws {
        let w = try AppleWorld()
        w.firebase.setClaimOverrides(overrides)
        let answer = try w.signInNew(sub: "apple-9", email: "nine@example.org")
        #expect(answer.status == 401, "\(name)")
        #expect(answer.errorCode == "invalid_token", "\(name)")
        #expect(try w.count("accounts") == 0)
        #expect(w.firebase.usersCreated == 1)
        #expect(w.firebase.userCount == (ours ? 0 : 1), "\(name)")
        #expect(w.firebasePaths.contains { $0.hasSuffix("/v1/accounts:delete") } == ours, "\(name)")
        #expect(try w.count("relay_cleanups") == 0)
    }

    @Test func appleTokenFirebaseCannotVerifyIsInvalidToken() throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        // Our cheap checks pass (they cannot see signatures); Firebase answers INVALID_IDP_RESPONSE.
        let stranger = try TestKeys.rsa("apple-1-impostor")
        let forged = try w.apple.token(sub: "apple-10", rawNonce: nonce, key: stranger)
        let answer = try w.signIn(forged, nonce: nonce)
        #expect(answer.status == 401)
        #expect(answer.stderr.contains("INVALID_IDP_RESPONSE"))
        #expect(w.firebase.usersCreated == 0)
        #expect(try w.count("relay_cleanups") == 0)
    }

    /// Issue 15, point 2: a time-out after sending cannot tell whether Firebase took the
    /// credential, and Firebase refuses one it has taken. The phone is told to start over; the
    /// same token and nonce are refused here, before Firebase is asked again.
    @Test(arguments: [false, true])
    func identityToolkitTimingOutAfterSendingAsksForANewSignIn(_ accepted: Bool) throws {
        let w = try AppleWorld()
        w.firebase.setSignIn(accepted ? .acceptThenHang(seconds: 3600) : .hang(seconds: 3600))
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-11", rawNonce: nonce, email: "eleven@example.org")
        let started = Clock.monotonicMillis()
        let answer = try w.signIn(token, nonce: nonce)
        let elapsed = (Clock.monotonicMillis() - started) / 1000
        #expect(answer.status == 503)
        #expect(answer.errorCode == "upstream_unavailable")
        #expect(answer.body["startOver"] == true)
        // The 2 s timeout held, not the hour Firebase would have taken.
        #expect(elapsed < 10 * AppleWorld.totalTimeout, "took \(elapsed) s")
        for table in ["accounts", "identities", "sessions", "relay_cleanups", "relay_attempts"] {
            #expect(try w.count(table) == 0, "\(table)")
        }
        #expect(try w.count(.nonce) == 1)

        w.firebase.setSignIn(.normal)
        let calls = w.firebase.signInRequests
        let again = try w.signIn(token, nonce: nonce)
        #expect(again.status == 401)
        #expect(again.errorCode == "invalid_token")
        #expect(w.firebase.signInRequests == calls)
        // A user Firebase made for the hung call is unknown here, but the call left its mark: the
        // person's next sign-in reaches that user, made after the mark, and it is deleted.
        #expect(try w.count(.relaySend) == 1)
        let fresh = try w.signInNew(sub: "apple-11", email: "eleven@example.org")
        #expect(fresh.status == 200, "\(fresh.stderr)")
        #expect(w.firebase.userCount == 0)
        #expect(try w.count(.relaySend) == 0)
        #expect(w.firebasePaths.contains { $0.hasSuffix("/v1/accounts:lookup") } == accepted)
    }

    /// A shared project's user that already had this Apple identity, reached by a call that got no
    /// answer, is older than the mark: it is not the lost call's, and it is left alone.
    @Test func aMarkNeverClaimsAnOlderUser() throws {
        let w = try AppleWorld()
        let existing = try w.firebase.addProjectUser(email: "old@example.org", appleSub: "apple-old")
        w.firebase.setSignIn(.acceptThenHang(seconds: 3600))
        #expect(try w.signInNew(sub: "apple-old", email: "old@example.org").body["startOver"] == true)
        w.firebase.setSignIn(.normal)
        let answer = try w.signInNew(sub: "apple-old", email: "old@example.org")
        #expect(answer.status == 200)
        #expect(w.firebase.userExists(existing))
        #expect(!w.firebasePaths.contains { $0.hasSuffix("/v1/accounts:delete") })
        #expect(try w.count("relay_cleanups") == 0)
    }

    /// Every answer that is handled, and every request that never left, clears its mark.
    @Test func marksGoWithTheirAnswers() throws {
        let w = try AppleWorld()
        #expect(try w.signInNew(sub: "apple-mark-1").status == 200)
        w.firebase.setSignIn(.error(status: 400, message: "INVALID_IDP_RESPONSE : no"))
        #expect(try w.signInNew(sub: "apple-mark-2").status == 401)
        w.firebase.setSignIn(.error(status: 503, message: "UNAVAILABLE"))
        #expect(try w.signInNew(sub: "apple-mark-3").body["startOver"] == true)
        #expect(try w.count(.relaySend) == 1)
    }

    /// When the request provably never reached Firebase (nothing listens), the nonce comes back.
    @Test func identityToolkitUnreachableGivesTheNonceBack() throws {
        let w = try AppleWorld()
        var members = w.configMembers()
        if let i = members.firstIndex(where: { $0.0 == "firebase" }), case .object(var inner) = members[i].1,
            let j = inner.firstIndex(where: { $0.0 == "identityToolkitUrl" })
        {
            inner[j].1 = .string("http://127.0.0.1:\(try Stack.freePort())")
            members[i].1 = .object(inner)
        }
        try w.h.writeConfig(members)
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-11b", rawNonce: nonce)
        let answer = try w.signIn(token, nonce: nonce)
        #expect(answer.status == 503)
        #expect(answer.body["startOver"] == nil)
        #expect(try w.count(.nonce) == 0)
        try w.writeConfig()
        #expect(try w.signIn(token, nonce: nonce).status == 200)
    }

    /// The fake refuses an Apple credential twice, as Firebase does; the relay never sends one twice.
    @Test func firebaseRefusesADuplicateCredential() throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-dup", rawNonce: nonce)
        #expect(try w.signIn(token, nonce: nonce).status == 200)
        let postBody = FormEncoding.encode([("id_token", token), ("providerId", "apple.com"), ("nonce", nonce)])
        let body = JSONValue.object([
            ("requestUri", "http://localhost"), ("postBody", .string(postBody)), ("returnSecureToken", true),
        ]).serialized
        let response = try CurlHTTPClient().send(HTTPRequest(
            method: "POST", url: w.firebase.identityToolkitURL + "/v1/accounts:signInWithIdp",
            headers: [("Content-Type", "application/json"), ("X-Goog-Api-Key", FakeFirebase.apiKey)],
            body: Array(body.utf8)))
        #expect(response.status == 400)
        let message = try JSONParser.parse(response.body)["error"]?["message"]?.stringValue
        #expect(message == "MISSING_OR_INVALID_NONCE : Duplicate credential received. Please try again with a new credential.")
    }

    @Test func identityToolkitErrorsMapToTheContract() throws {
        let w = try AppleWorld()
        let cases: [(FakeFirebase.SignInBehaviour, Int)] = [
            (.error(status: 400, message: "INVALID_IDP_RESPONSE : The supplied auth credential is malformed"), 401),
            (.error(status: 400, message: "MISSING_OR_INVALID_NONCE : Duplicate credential received."), 401),
            (.error(status: 400, message: "OPERATION_NOT_ALLOWED : The identity provider is disabled."), 500),
            (.error(status: 403, message: "Requests to this API identitytoolkit method are blocked."), 500),
            (.error(status: 503, message: "UNAVAILABLE"), 503),
            (.error(status: 429, message: "QUOTA_EXCEEDED"), 503),
            (.error(status: 400, message: "TOO_MANY_ATTEMPTS_TRY_LATER : Too many requests."), 503),
        ]
        for (behaviour, status) in cases {
            w.firebase.setSignIn(behaviour)
            let answer = try w.signInNew(sub: "apple-12")
            #expect(answer.status == status, "\(behaviour)")
            // Firebase answered: it may have taken the credential, so a 503 asks for a new sign-in.
            #expect(answer.body["startOver"] == (status == 503 ? true : nil), "\(behaviour)")
            #expect(try w.count(.relayAttempt) == 0)
        }
    }

    @Test func badAPIKeyIs500WithTheReasonOnStderr() throws {
        let w = try AppleWorld()
        try w.writeConfig(apiKey: "not-the-key")
        let answer = try w.signInNew(sub: "apple-13")
        #expect(answer.status == 500)
        #expect(answer.errorCode == "internal")
        #expect(answer.stderr.contains("API key not valid"))
        #expect(!answer.stderr.contains("not-the-key"))
    }

    @Test func failedDeletionIsRetriedByItsProcessThenByLaterRequestsWithinTheWindow() throws {
        let w = try AppleWorld()
        w.firebase.setFailDeletions(true)
        let answer = try w.signInNew(sub: "apple-15", email: "fifteen@example.org")
        #expect(answer.status == 200)
        #expect(w.firebase.userCount == 1)
        let db = try w.h.database()
        // The process that made it tried three times after its answer (a short backoff).
        var row = try #require(try db.query(
            "SELECT attempts, next_attempt_at - ?, refresh_token IS NOT NULL, state FROM relay_cleanups",
            [.integer(Clock.now())]).first)
        #expect(row.int(0) == 3)
        #expect((row.int(1) ?? 0) > 0)
        #expect(row.int(2) == 1)
        #expect(row.text(3) == "token")
        // The record belongs to no account: it outlives the account's deletion.
        try db.run("DELETE FROM accounts")
        #expect(try w.count("relay_cleanups") == 1)

        // Not yet due: a later request leaves it alone.
        w.firebase.resetLog()
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(w.firebase.requests.isEmpty)

        // Due, but Firebase still fails: tried once more, pushed further out.
        try db.run("UPDATE relay_cleanups SET next_attempt_at = 0")
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        row = try #require(try db.query(
            "SELECT attempts, next_attempt_at - ? FROM relay_cleanups", [.integer(Clock.now())]).first)
        #expect(row.int(0) == 4)
        #expect((row.int(1) ?? 0) > 0)
        #expect(w.firebase.userCount == 1)

        // The ID token's hour has passed; the retry refreshes it and the relay user goes.
        w.firebase.expireIssuedTokens()
        w.firebase.setFailDeletions(false)
        try db.run("UPDATE relay_cleanups SET next_attempt_at = 0")
        w.firebase.resetLog()
        let later = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(later.status == 401)
        #expect(w.firebasePaths.contains { $0.hasSuffix("/v1/token") })
        #expect(w.firebase.userCount == 0)
        #expect(w.firebase.usersDeleted == 1)
        #expect(try w.count("relay_cleanups") == 0)
    }

    @Test func theCreatingProcessRetriesItsDeleteAfterItsAnswer() throws {
        let w = try AppleWorld()
        w.firebase.failNextDeletions(2)
        #expect(try w.signInNew(sub: "apple-15b").status == 200)
        #expect(w.firebase.userCount == 0)
        #expect(try w.count("relay_cleanups") == 0)
        #expect(w.firebasePaths.filter { $0.hasSuffix("/v1/accounts:delete") }.count == 3)
    }

    @Test func retriesPerRequestAreBounded() throws {
        let w = try AppleWorld()
        w.firebase.setFailDeletions(true)
        for i in 0..<5 { #expect(try w.signInNew(sub: "apple-16-\(i)").status == 200) }
        #expect(try w.count("relay_cleanups") == 5)
        w.firebase.setFailDeletions(false)
        let db = try w.h.database()
        try db.run("UPDATE relay_cleanups SET next_attempt_at = 0")
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(try w.count("relay_cleanups") == 2)
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(try w.count("relay_cleanups") == 0)
        #expect(w.firebase.userCount == 0)
    }
}
