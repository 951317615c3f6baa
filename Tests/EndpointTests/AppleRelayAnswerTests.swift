import DevSupport
import Shared
import Testing

/// Issue 15, point 3: a 200 from `signInWithIdp` is not always a sign-in, and the user it names
/// is not always ours. Only a user whose ID token names the Apple `sub`, made for this call (or
/// one whose record we hold), is kept and deleted; a shared project's real users are never touched.
@Suite struct AppleRelayAnswerTests {
    /// "One account per email address" with an unverified IdP email: Firebase names the existing
    /// user (its `localId`) and gives no tokens. That user is the project's, never ours.
    @Test func needConfirmationIsRefusedAndTheExistingUserLeftAlone() throws {
        let w = try AppleWorld()
        let existing = try w.firebase.addProjectUser(email: "shared@example.org", emailVerified: false)
        w.firebase.setSignIn(.needConfirmation)
        let answer = try w.signInNew(sub: "apple-nc", email: "shared@example.org")
        #expect(answer.status == 500, "\(answer.rawBody)")
        #expect(answer.errorCode == "internal")
        #expect(answer.stderr.contains("needConfirmation"))
        #expect(w.firebase.userExists(existing))
        #expect(!w.firebasePaths.contains { $0.contains("accounts:delete") })
        for table in ["relay_cleanups", "relay_attempts", "accounts"] { #expect(try w.count(table) == 0, "\(table)") }
    }

    @Test func aSecondFactorIsRefusedAndNothingDeleted() throws {
        let w = try AppleWorld()
        w.firebase.setSignIn(.mfaPending)
        let answer = try w.signInNew(sub: "apple-mfa")
        #expect(answer.status == 500)
        #expect(answer.stderr.contains("second factor"))
        #expect(!w.firebasePaths.contains { $0.contains("accounts:delete") })
        #expect(try w.count("relay_cleanups") == 0)
    }

    /// A 200 without the tokens names a user we cannot verify as this sign-in's: nothing is kept
    /// or deleted, and the phone starts over (Firebase has the credential).
    @Test(arguments: [FakeFirebase.SignInBehaviour.omitIdToken, .omitRefreshToken])
    func okWithoutTheTokensIs503StartOverAndTouchesNobody(_ behaviour: FakeFirebase.SignInBehaviour) throws {
        let w = try AppleWorld()
        w.firebase.setSignIn(behaviour)
        let answer = try w.signInNew(sub: "apple-14")
        #expect(answer.status == 503)
        #expect(answer.body["startOver"] == true)
        #expect(answer.stderr.contains("200 without a"))
        #expect(w.firebase.usersCreated == 1)
        #expect(w.firebase.userCount == 1)
        #expect(!w.firebasePaths.contains { $0.contains("accounts:delete") || $0.hasSuffix("/v1/token") })
        #expect(try w.count("relay_cleanups") == 0)
        #expect(try w.count(.nonce) == 1)
    }

    /// A shared project with one account per email address: Firebase signs the Apple credential
    /// into the project's user with that address. The person signs in (the ID token names the
    /// Apple `sub`, Firebase verified the token), but that user is not ours: no record, no delete.
    @Test func aProjectUserReachedByEmailIsNeitherKeptNorDeleted() throws {
        let w = try AppleWorld()
        w.firebase.setLinkByEmail(true)
        let existing = try w.firebase.addProjectUser(email: "realuser@example.org")
        let answer = try w.signInNew(sub: "apple-linked", email: "realuser@example.org")
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(w.firebase.userExists(existing))
        #expect(w.firebase.usersCreated == 0)
        #expect(!w.firebasePaths.contains { $0.contains("accounts:delete") })
        #expect(try w.count("relay_cleanups") == 0)
        #expect(try w.h.database().query("SELECT subject FROM identities").first?.text(0) == "apple-linked")
    }

    /// A relay user whose deletion never happened (its record past the window, without a service
    /// account) is reached again by the same person's next sign-in: Firebase answers with it (not
    /// new), we hold its record, so it is ours, and its fresh sign-in lets it delete itself.
    @Test func aKnownRelayUserReachedAgainIsDeletedByItsFreshSignIn() throws {
        let w = try AppleWorld()
        w.firebase.setFailDeletions(true)
        #expect(try w.signInNew(sub: "apple-again").status == 200)
        let db = try w.h.database()
        try db.run("UPDATE relay_cleanups SET delete_by_token_until = 0, next_attempt_at = 0")
        w.firebase.setFailDeletions(false)
        _ = try w.signIn("not.a.token", nonce: AppleWorld.nonce())
        #expect(try db.query("SELECT state, refresh_token FROM relay_cleanups").first?.text(0) == "admin")
        #expect(w.firebase.userCount == 1)
        let again = try w.signInNew(sub: "apple-again")
        #expect(again.status == 200)
        #expect(w.firebase.usersCreated == 1)
        #expect(w.firebase.userCount == 0)
        #expect(try w.count("relay_cleanups") == 0)
    }
}
