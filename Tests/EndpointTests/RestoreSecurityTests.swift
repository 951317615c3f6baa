#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 29, finding 3: a restore brings back no session that was ended, no passkey that was
/// removed, no password that was replaced, and opens no account the operator disabled since the
/// snapshot (and closes none they enabled): the ledger re-applies every security action, not only
/// deletions.
@Suite struct RestoreSecurityTests {
    func signOut(_ h: Harness, _ who: SignedIn, _ json: String) throws {
        let answer = try h.run("sign-out", json: json, authorization: who.bearer)
        #expect(answer.status == 200, "\(json): \(answer.rawBody)")
    }

    @Test func aRestoreBringsBackNoSessionPasskeyPasswordOrAccessThatWasTakenAway() throws {
        let w = try PasskeyWorld(config: RestoreTests.config)
        let h = w.h
        // Before the snapshot. Five sessions of one person; two of another; a password account;
        // an account the operator will disable, one they disabled already; a passkey; a bystander.
        let a = try (0..<5).map { _ in try h.signedIn("g-scopes", email: "scopes@gmail.com") }
        let b = try (0..<2).map { _ in try h.signedIn("g-all", email: "all@gmail.com") }
        let made = try h.register("resetter@example.org", "the password from before")
        #expect(made.status == 201, "\(made.rawBody)")
        let c = SignedIn(
            token: try #require(made.body["sessionToken"]?.stringValue),
            accountId: try #require(made.body["accountId"]?.stringValue),
            sessionId: try #require(made.body["sessionId"]?.stringValue))
        let d = try h.signedIn("g-to-disable", email: "to.disable@gmail.com")
        let e = try h.signedIn("g-to-enable", email: "to.enable@gmail.com")
        #expect(try h.admin(["disable", e.accountId]).status == 0)
        let owner = try w.person("g-passkey")
        let phone = try SoftwareAuthenticator()
        let (passkeyId, handle) = try w.register(phone, for: owner)
        let bystander = try h.signedIn("g-bystander", email: "bystander@gmail.com")
        #expect(try h.register("keeper@example.org", "a password that stays").status == 201)
        mkdir(h.dir + "/backups", 0o700)
        let backup = try h.admin(["backup", h.dir + "/backups"])
        let snapshot = try #require(backup.json["path"]?.stringValue, "\(backup.stdout)")

        // After it, every scope of sign-out, a reset, a disable, an enable and a passkey removal.
        try signOut(h, a[4], #"{"sessionId":"\#(a[0].sessionId)"}"#)
        try signOut(h, a[1], "{}")
        try signOut(h, a[4], #"{"scope":"others"}"#)
        try signOut(h, b[0], #"{"scope":"all"}"#)
        let asked = try h.verify([("action", "reset_request"), ("email", "resetter@example.org")])
        let ticket = try #require(asked.body["ticket"]?.stringValue)
        let code = try #require(h.smtp.lastCode(to: "resetter@example.org"))
        let reset = try h.verify([
            ("action", "reset_confirm"), ("ticket", .string(ticket)), ("code", .string(code)),
            ("password", "the password after the reset"),
        ])
        #expect(reset.status == 200, "\(reset.rawBody)")
        #expect(try h.admin(["disable", d.accountId]).status == 0)
        #expect(try h.admin(["enable", e.accountId]).status == 0)
        #expect(try w.passkey([("action", "delete"), ("passkeyId", .string(passkeyId))], owner).status == 200)

        let run = try h.admin(["restore", snapshot])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let reapplied = try #require(run.json["reapplied"], "\(run.json)")
        #expect(reapplied["sessionsEnded"] == 8, "a0 to a3, b0 and b1, c's (the reset), d's (the disable): \(reapplied)")
        #expect(reapplied["passkeysRemoved"] == 1 && reapplied["passwordsCleared"] == 1, "\(reapplied)")
        #expect(reapplied["disabled"] == 1 && reapplied["enabled"] == 1, "\(reapplied)")

        // Every session ended since the snapshot stays ended; the one left then is live.
        for ended in a.prefix(4) + b + [c, d] {
            #expect(try h.check(ended.bearer).status == 401, "\(ended.sessionId)")
        }
        #expect(try h.check(a[4].bearer).status == 200)
        #expect(try h.check(bystander.bearer).status == 200)
        // The password from before the reset does not come back: the person resets again.
        #expect(try h.login("resetter@example.org", "the password from before").status == 401)
        let account = try h.admin(["find", c.accountId])
        #expect(account.json["account"]?["hasPassword"] == false, "\(account.stdout)")
        #expect(try h.login("keeper@example.org", "a password that stays").status == 200)
        // The disable holds, and so does the enable that came after the snapshot's disable.
        let disabled = try h.signInGoogle(try h.google.token(sub: "g-to-disable", email: "to.disable@gmail.com"))
        #expect(disabled.status == 403 && disabled.errorCode == "account_disabled", "\(disabled.rawBody)")
        let enabled = try h.signInGoogle(try h.google.token(sub: "g-to-enable", email: "to.enable@gmail.com"))
        #expect(enabled.status == 200, "\(enabled.rawBody)")
        // The removed passkey opens nothing.
        #expect(try h.count("passkeys") == 0)
        #expect(try w.signInWith(phone, userHandle: handle).status == 401)
        #expect(try StoreInvariants.violations(h.database()) == [])

        // Twice is once.
        let again = try h.admin(["reapply-deletions", h.ledgerPath])
        #expect(again.json["reapplied"]?["sessionsEnded"] == 0 && again.json["reapplied"]?["passwordsCleared"] == 0)
        #expect(again.json["reapplied"]?["disabled"] == 0 && again.json["reapplied"]?["enabled"] == 0)
    }

    /// The settings' actions (rule 18) and a passkey takeback are in the ledger too: after a
    /// restore the replaced and the removed password stay gone, the sessions a change ended stay
    /// ended, the unlinked identity stays unlinked, the passkey a sign-out everywhere took back
    /// stays removed, and an account whose address changed since the snapshot is disabled, since
    /// the ledger holds no address to put back and mail to the old one could take the account.
    @Test func aRestoreBringsBackNothingTheSettingsOrATakebackTookAway() throws {
        let w = try SettingsWorld(config: [PasskeyWorld.section] + RestoreTests.config)
        let h = w.h
        let keys = PasskeyWorld(on: h)
        // Before the snapshot.
        let changer = try w.proven("changer@example.org")
        let changerOther = try SettingsWorld.person(try h.login("changer@example.org", SettingsWorld.password))
        let remover = try w.google("g-remover")
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: remover).status == 200)
        let unlinker = try w.google("g-unlinker")
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: unlinker).status == 200)
        let mover = try w.proven("mover@example.org")
        let holder = try keys.person("g-holder")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try keys.register(phone, for: holder)
        mkdir(h.dir + "/backups", 0o700)
        let backup = try h.admin(["backup", h.dir + "/backups"])
        let snapshot = try #require(backup.json["path"]?.stringValue, "\(backup.stdout)")

        // After it: a change of password, an unlink of each kind, an address change, a takeback.
        let changed = try w.account(
            "change_password",
            [("currentPassword", .string(SettingsWorld.password)), ("newPassword", .string(SettingsWorld.newPassword))],
            as: changer)
        #expect(changed.status == 200, "\(changed.rawBody)")
        #expect(try w.account("unlink", [("provider", "password")], as: remover).status == 200)
        let unlinked = try w.account("unlink", [("provider", "google")], as: unlinker)
        #expect(unlinked.status == 200, "\(unlinked.rawBody)")
        let started = try w.account("change_email", [("newEmail", "moved@example.org")], as: mover)
        let ticket = try #require(started.body["ticket"]?.stringValue, "\(started.rawBody)")
        let code = try #require(h.smtp.lastCode(to: "moved@example.org"))
        let moved = try h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(moved.status == 200, "\(moved.rawBody)")
        #expect(try h.run("sign-out", json: #"{"scope":"all"}"#, authorization: holder.bearer).status == 200)
        #expect(try h.count("passkeys") == 0, "the sign-out everywhere took the passkey back")

        let run = try h.admin(["restore", snapshot])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let reapplied = try #require(run.json["reapplied"], "\(run.json)")
        #expect(reapplied["passwordsCleared"] == 2 && reapplied["identitiesRemoved"] == 1, "\(reapplied)")
        #expect(reapplied["passkeysRemoved"] == 1 && reapplied["addressesBehind"] == 1, "\(reapplied)")

        #expect(try h.login("changer@example.org", SettingsWorld.password).status == 401, "the replaced password")
        #expect(try h.check(changerOther.bearer).status == 401, "the session the change ended")
        #expect(try h.check(changer.bearer).status == 200)
        #expect(try h.login("g-remover@gmail.com", SettingsWorld.password).status == 401, "the removed password")
        let providers = try h.database().query(
            "SELECT provider FROM identities WHERE account_id = ?", [.text(unlinker.accountId)])
        #expect(providers.isEmpty, "the unlinked identity")
        #expect(try h.count("passkeys") == 0)
        #expect(try keys.signInWith(phone, userHandle: handle).status == 401)
        let behind = try h.login("mover@example.org", SettingsWorld.password)
        #expect(behind.status == 403 && behind.errorCode == "account_disabled", "\(behind.rawBody)")
        #expect(try StoreInvariants.violations(h.database()) == [])

        // Twice is once, and an account the operator enabled again stays enabled.
        #expect(try h.admin(["enable", mover.accountId]).status == 0)
        let again = try h.admin(["reapply-deletions", h.ledgerPath])
        #expect(again.json["reapplied"]?["addressesBehind"] == 0 && again.json["reapplied"]?["passwordsCleared"] == 0)
        #expect(try h.login("mover@example.org", SettingsWorld.password).status == 200)
    }

    /// Issue 29, finding 8: a restore takes only a backup this box's server key authenticates
    /// (`<backup>.mac`), checked before the door closes: one changed since (its MAC copied along),
    /// one without its MAC and one made under another key are refused, and nothing changes.
    @Test func aRestoreTakesOnlyABackupItsServerKeyAuthenticates() throws {
        let h = try Harness()
        try h.writeConfig(RestoreTests.config)
        let me = try h.signedIn("g-restorer", email: "restorer@gmail.com")
        mkdir(h.dir + "/backups", 0o700)
        let backup = try h.admin(["backup", h.dir + "/backups"])
        let snapshot = try #require(backup.json["path"]?.stringValue, "\(backup.stdout)")
        #expect(Files.exists(snapshot + ".mac"))

        // Someone who can write the backups' folder puts a session of theirs in a copy.
        let forged = h.dir + "/backups/forged.sqlite3"
        try Files.copy(snapshot, to: forged)
        try Files.copy(snapshot + ".mac", to: forged + ".mac")
        let changed = try ChildProcess.run("/usr/bin/python3", arguments: ["-c", """
            import sqlite3; c = sqlite3.connect('\(forged)')
            c.execute("UPDATE sessions SET expires_at = expires_at + 1"); c.commit()
            """], environment: [:], workDir: h.dir)
        #expect(changed.exitStatus == 0, "\(changed.stderrText)")
        let bare = h.dir + "/backups/bare.sqlite3"
        try Files.copy(snapshot, to: bare)
        let other = try Harness()
        _ = try other.signedIn("g-other-box", email: "other.box@gmail.com")
        mkdir(other.dir + "/backups", 0o700)
        let foreign = try #require(try other.admin(["backup", other.dir + "/backups"]).json["path"]?.stringValue)

        for (path, says) in [(forged, "does not match"), (bare, "has no"), (foreign, "does not match")] {
            let refused = try h.admin(["restore", path])
            #expect(refused.status == 69 && refused.error == "unavailable", "\(path): \(refused.stdout)")
            #expect(refused.json["message"]?.stringValue?.contains(says) == true, "\(path): \(refused.json)")
            #expect(!Door.isClosed(h.databasePath))
        }
        #expect(try h.check(me.bearer).status == 200)
        #expect(try h.count("accounts") == 1)

        let restored = try h.admin(["restore", snapshot])
        #expect(restored.status == 0, "\(restored.stdout) \(restored.stderr)")
    }
}
