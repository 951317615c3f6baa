#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 35 on SQLite: the sessions live in `<store>-sessions`, which nginx's check opens alone. A
/// transaction that ends sessions commits them in that file before the store; a sign-in's session
/// begins only after the store has recorded the sign-in. Each is killed between its two commits
/// (held by the `between-commits` VFS, or at `sessions-pending`): nobody keeps a way in the store
/// took away, and no session exists without its account (docs/sqlite.md, "The session file").
@Suite struct SessionFileTests {
    static let headersOnly = ["FRONTDOOR_ANSWER": "headers"]

    /// nginx's check answers with the store's file gone, and leaves none where it was (any open
    /// of the store would make one): it reads the session file alone.
    @Test func nginxsCheckReadsTheSessionFileAlone() throws {
        let h = try Harness()
        let me = try h.signedIn("g-file")
        #expect(Files.exists(h.databasePath + "-sessions"))
        #expect(rename(h.databasePath, h.databasePath + ".away") == 0)
        let alone = try h.check(me.bearer, extraEnvironment: Self.headersOnly)
        let opened = Files.exists(h.databasePath)
        #expect(rename(h.databasePath + ".away", h.databasePath) == 0)
        #expect(alone.status == 200 && alone.header("X-Frontdoor-Session") == me.sessionId, "\(alone.rawBody) \(alone.stderr)")
        #expect(!opened, "the check opened the store")
        #expect(try h.check(me.bearer).status == 200)
    }

    /// A deletion killed after its session file's commit, before the store's: the account is
    /// still whole and signs in again, and the session the deletion ended stays ended.
    @Test func aDeletionKilledBetweenItsCommitsLeavesNoWayIn() throws {
        let h = try Harness()
        let me = try h.signedIn("g-delete-killed", email: "delete.killed@gmail.com")
        let held = try HeldRequest(h, "delete-account", json: "{}", holdAt: "between-commits", authorization: me.bearer)
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try h.check(me.bearer, extraEnvironment: Self.headersOnly).status == 401)
        #expect(try h.check(me.bearer).status == 401)
        #expect(try h.database().query("SELECT count(*) FROM accounts WHERE id = ?", [.text(me.accountId)]).first?.int(0) == 1)
        #expect(try StoreInvariants.violations(h.database()) == [])
        let again = try h.signedIn("g-delete-killed", email: "delete.killed@gmail.com")
        #expect(again.accountId == me.accountId)
        #expect(try h.run("delete-account", json: "{}", authorization: again.bearer).status == 200)
        #expect(try h.check(again.bearer, extraEnvironment: Self.headersOnly).status == 401)
    }

    /// The operator's disable killed between its commits: every session is gone, the account not
    /// yet disabled; the disable run again finishes it.
    @Test func aDisableKilledBetweenItsCommitsHasEndedTheSessions() throws {
        let h = try Harness()
        let me = try h.signedIn("g-disable-killed")
        let other = try h.signedIn("g-disable-killed")
        let held = try h.startAdmin(["disable", me.accountId], holdAt: "between-commits")
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        for person in [me, other] {
            #expect(try h.check(person.bearer, extraEnvironment: Self.headersOnly).status == 401)
        }
        #expect(try h.database().query("SELECT disabled_at FROM accounts WHERE id = ?", [.text(me.accountId)])
            .first?.text(0) == nil)
        #expect(try h.admin(["disable", me.accountId]).status == 0)
        #expect(try h.run("signin-google", json: JSONValue.object([("idToken", .string(try h.google.token(sub: "g-disable-killed")))]).serialized).status == 403)
    }

    /// A new person's sign-in killed after the store recorded it, before its session began: the
    /// account is there without a session (no token was handed out), and the next sign-in finds it.
    @Test func aSignInKilledBeforeItsSessionLeavesTheAccountAlone() throws {
        let h = try Harness()
        let before = try h.sessionRows()
        let held = try HeldRequest.signInGoogle(h, sub: "g-pending-killed", email: "pending.killed@gmail.com", holdAt: "sessions-pending")
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try h.sessionRows() == before)
        let accounts = try h.database().query(
            "SELECT account_id FROM identities WHERE provider = 'google' AND subject = 'g-pending-killed'")
        #expect(accounts.count == 1)
        #expect(try StoreInvariants.violations(h.database()) == [])
        let me = try h.signedIn("g-pending-killed", email: "pending.killed@gmail.com")
        #expect(me.accountId == accounts.first?.text(0))
        #expect(try h.check(me.bearer, extraEnvironment: Self.headersOnly).status == 200)
    }

    /// A backup copies the store, then the sessions: someone who signs up between the two has a
    /// session in the second copy and no account in the first. The snapshot leaves that session
    /// out, so a restore brings back no session without its account; the others come back.
    @Test func aBackupLeavesOutSessionsOfAccountsItsStoreCopyLacks() throws {
        let h = try Harness(config: RestoreTests.config)
        let kept = try h.signedIn("g-backup-kept")
        mkdir(h.dir + "/backups", 0o700)
        let held = try h.startAdmin(["backup", h.dir + "/backups"], holdAt: "backup-store-taken")
        try held.waitUntilHeld()
        let between = try h.signedIn("g-backup-between")
        let done = held.finish()
        #expect(done.status == 0, "\(done.json)")
        let snapshot = try #require(done.json["path"]?.stringValue)
        let restored = try h.admin(["restore", snapshot])
        #expect(restored.status == 0, "\(restored.stdout) \(restored.stderr)")
        #expect(try h.check(kept.bearer, extraEnvironment: Self.headersOnly).status == 200)
        #expect(try h.check(between.bearer, extraEnvironment: Self.headersOnly).status == 401)
        #expect(try StoreInvariants.violations(h.database()) == [])
    }

    /// A disable that comes between a sign-in's commit and its session: the session never begins.
    @Test func aDisableBetweenASignInsCommitAndItsSessionWins() throws {
        let h = try Harness()
        let me = try h.signedIn("g-pending-disabled")
        let before = try h.sessionRows()
        let held = try HeldRequest.signInGoogle(h, sub: "g-pending-disabled", email: nil, holdAt: "sessions-pending")
        try held.waitUntilHeld()
        #expect(try h.admin(["disable", me.accountId]).status == 0)
        let answer = try held.release()
        #expect(answer.status == 503, "\(answer.rawBody)")
        #expect(try h.sessionRows().count == before.count - 1, "the disable ended the one session there was")
        #expect(try StoreInvariants.violations(h.database()) == [])
    }

    /// The fourth review's T5-2 (issue 44): a login with the old password held between its commit
    /// and its session, across a reset, a change of password or a sign-out everywhere. The takeback
    /// moves the account's sessions epoch on, so the login's session never begins (503, try again,
    /// and the old password no longer works).
    @Test(arguments: ["reset", "change_password", "sign-out all"])
    func aTakebackBetweenALoginsCommitAndItsSessionWins(_ takeback: String) throws {
        let w = try SettingsWorld()
        let address = "t52.\(takeback.replacingAll(" ", with: "-").replacingAll("_", with: "-"))@example.org"
        let owner = try w.proven(address)
        let login = JSONValue.object([
            ("action", "login"), ("email", .string(address)), ("password", .string(SettingsWorld.password)),
            ("deviceName", "attacker"),
        ]).serialized
        let held = try HeldRequest(w.h, "signin-email", json: login, holdAt: "sessions-pending")
        try held.waitUntilHeld()
        try TakebackReviewTests.takeBack(takeback, w, owner: owner, address: address)
        let answer = try held.release()
        #expect(answer.status == 503, "\(takeback): \(answer.rawBody)")
        let devices = try w.h.database().query(
            "SELECT count(*) FROM sessions WHERE account_id = ? AND device_name = 'attacker'", [.text(owner.accountId)])
        #expect(devices.first?.int(0) == 0, "\(takeback)")
        #expect(try StoreInvariants.violations(w.h.database()) == [])
    }
}
