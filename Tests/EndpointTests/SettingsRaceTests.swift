import DevSupport
import Shared
import Testing

/// Rule 18's races, held open at `TestHooks` points (HeldRequest), on both engines: two links of
/// one identity, two unlinks of an account's two ways in, an address change's confirm and a
/// registration of the same address. Where SQLite's writer lock and PostgreSQL's serializable
/// retries take different paths to the same end, each engine's path is asserted.
@Suite struct SettingsRaceTests {
    static func json(_ action: String, _ members: [(String, JSONValue)]) -> String {
        JSONValue.object([("action", .string(action))] + members).serialized
    }

    /// Both links verified the token and found the identity free; the first to commit gets it,
    /// the other 409 `identity_taken`, and the identity has one owner.
    @Test func twoLinksOfOneIdentityGiveOneOwner() throws {
        let w = try SettingsWorld()
        let ada = try w.proven("race.link.ada@example.org")
        let bob = try w.proven("race.link.bob@example.org")
        let token = try w.h.google.token(sub: "race-link-google", email: nil)
        let body = Self.json("link", [("provider", "google"), ("idToken", .string(token))])
        let first = try HeldRequest(w.h, "account", json: body, holdAt: "link-verified", authorization: ada.bearer)
        try first.waitUntilHeld()
        let second = try HeldRequest(
            w.h, "account", json: body, holdAt: "link-verified", authorization: bob.bearer, tag: "second")
        try second.waitUntilHeld()
        let won = try first.release()
        let lost = try second.release()
        #expect(won.status == 200, "\(won.rawBody)")
        #expect(lost.status == 409 && lost.errorCode == "identity_taken", "\(lost.rawBody)")
        let owners = try w.h.database().query(
            "SELECT account_id FROM identities WHERE provider = 'google' AND subject = 'race-link-google'")
        #expect(owners.map { $0.text(0) } == [ada.accountId])
        #expect(try w.h.signInGoogle(token).body["accountId"]?.stringValue == ada.accountId)
    }

    /// An account with two ways in (Google and a proven password), each removed from one of its
    /// sessions at once, both having counted two: one goes, the other is 409
    /// `last_sign_in_method`, and a way in remains. SQLite: the second waits for the first's
    /// writer lock and then counts one. PostgreSQL: both count two in their snapshots, and the
    /// second's serializable transaction is aborted and run again, and then counts one.
    @Test func twoUnlinksNeverLeaveZeroWaysIn() throws {
        let w = try SettingsWorld()
        let phone = try w.proven("race.unlink@example.org")
        let token = try w.h.google.token(sub: "race-unlink-google", email: nil)
        #expect(try w.account("link", [("provider", "google"), ("idToken", .string(token))], as: phone).status == 200)
        let tablet = try SettingsWorld.person(try w.h.login("race.unlink@example.org", SettingsWorld.password))
        let first = try HeldRequest(
            w.h, "account", json: Self.json("unlink", [("provider", "google")]), holdAt: "unlink-checked",
            authorization: phone.bearer)
        try first.waitUntilHeld()
        let second = try HeldRequest(
            w.h, "account", json: Self.json("unlink", [("provider", "password")]), holdAt: "unlink-checked",
            authorization: tablet.bearer, tag: "second")
        if TestStore.isPostgres { try second.waitUntilHeld() }
        let a = try first.release()
        let b = try second.release()
        #expect(a.status == 200, "\(a.rawBody)")
        #expect(b.status == 409 && b.errorCode == "last_sign_in_method", "\(b.rawBody)")
        let db = try w.h.database()
        #expect(try db.query("SELECT count(*) FROM identities WHERE account_id = ?", [.text(phone.accountId)]).first?.int(0) == 0)
        #expect(try w.h.login("race.unlink@example.org", SettingsWorld.password).status == 200, "the password remains")
        #expect(try StoreInvariants.violations(db) == [])
    }

    /// A registration found the address free and hashed its password; meanwhile an address change
    /// is confirmed to it. The registration's insert then finds it taken: 409, one owner.
    @Test func aRegistrationThatCheckedFirstLosesToTheConfirm() throws {
        let w = try SettingsWorld()
        let ada = try w.google("race-confirm-ada")
        let started = try w.account("change_email", [("newEmail", "contested.race@example.org")], as: ada)
        let ticket = try #require(started.body["ticket"]?.stringValue, "\(started.rawBody)")
        let code = try #require(w.h.smtp.lastCode(to: "contested.race@example.org"))
        let register = JSONValue.object([
            ("action", "register"), ("email", "contested.race@example.org"), ("password", .string(SettingsWorld.password)),
        ]).serialized
        let registration = try HeldRequest(w.h, "signin-email", json: register, holdAt: "registration-checked")
        try registration.waitUntilHeld()
        let confirmed = try w.h.verify([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))])
        #expect(confirmed.status == 200, "\(confirmed.rawBody)")
        let lost = try registration.release()
        #expect(lost.status == 409 && lost.errorCode == "email_taken", "\(lost.rawBody)")
        try Self.expectOneOwner(w, "contested.race@example.org", ada.accountId)
    }

    /// The confirm holds its change written, uncommitted; a registration of the address runs
    /// meanwhile (PostgreSQL: its check passes, the change being invisible; SQLite: it waits for
    /// the writer lock). The confirm commits, and the registration's insert finds it taken.
    @Test func aRegistrationDuringTheConfirmLosesToIt() throws {
        let w = try SettingsWorld()
        let ada = try w.google("race-during-ada")
        let started = try w.account("change_email", [("newEmail", "during.race@example.org")], as: ada)
        let ticket = try #require(started.body["ticket"]?.stringValue, "\(started.rawBody)")
        let code = try #require(w.h.smtp.lastCode(to: "during.race@example.org"))
        let confirm = try HeldRequest(
            w.h, "verify-email",
            json: JSONValue.object([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))]).serialized,
            holdAt: "email-changed")
        try confirm.waitUntilHeld()
        let register = JSONValue.object([
            ("action", "register"), ("email", "during.race@example.org"), ("password", .string(SettingsWorld.password)),
        ]).serialized
        let registration = try HeldRequest(w.h, "signin-email", json: register, holdAt: "registration-checked")
        if TestStore.isPostgres { try registration.waitUntilHeld() }
        let won = try confirm.release()
        #expect(won.status == 200, "\(won.rawBody)")
        let lost = try registration.release()
        #expect(lost.status == 409 && lost.errorCode == "email_taken", "\(lost.rawBody)")
        try Self.expectOneOwner(w, "during.race@example.org", ada.accountId)
    }

    /// The confirm has checked the address free and not yet written it; a registration of it
    /// runs. SQLite: the registration waits for the confirm's writer lock, the confirm wins.
    /// PostgreSQL: the registration commits first; the confirm's write then meets its key in the
    /// unique index (a conflict: run again), and the check then refuses it, 409 `email_taken`.
    @Test func aRegistrationBetweenTheConfirmsCheckAndItsWrite() throws {
        let w = try SettingsWorld()
        let ada = try w.google("race-between-ada")
        let started = try w.account("change_email", [("newEmail", "between.race@example.org")], as: ada)
        let ticket = try #require(started.body["ticket"]?.stringValue, "\(started.rawBody)")
        let code = try #require(w.h.smtp.lastCode(to: "between.race@example.org"))
        let confirm = try HeldRequest(
            w.h, "verify-email",
            json: JSONValue.object([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))]).serialized,
            holdAt: "email-change-checked")
        try confirm.waitUntilHeld()
        if TestStore.isPostgres {
            let registered = try w.h.register("between.race@example.org", SettingsWorld.password)
            #expect(registered.status == 201, "\(registered.rawBody)")
            let lost = try confirm.release()
            #expect(lost.status == 409 && lost.errorCode == "email_taken", "\(lost.rawBody) \(lost.stderr)")
            #expect(try w.account("get", as: ada).body["email"]?.stringValue == "race-between-ada@gmail.com")
            let owner = try w.h.database().query(
                "SELECT id FROM accounts WHERE email_key = 'between.race@example.org'").first?.text(0)
            #expect(owner != nil && owner != ada.accountId)
        } else {
            let register = JSONValue.object([
                ("action", "register"), ("email", "between.race@example.org"), ("password", .string(SettingsWorld.password)),
            ]).serialized
            let registration = try HeldRequest(w.h, "signin-email", json: register, holdAt: "registration-checked")
            let won = try confirm.release()
            #expect(won.status == 200, "\(won.rawBody)")
            let lost = try registration.release()
            #expect(lost.status == 409 && lost.errorCode == "email_taken", "\(lost.rawBody)")
            try Self.expectOneOwner(w, "between.race@example.org", ada.accountId)
        }
    }

    /// The registration checked the address free before the confirm's transaction began, and
    /// writes it between the confirm's check and its write. SQLite: the registration's write waits
    /// for the confirm's writer lock, and the confirm wins. PostgreSQL: the registration commits;
    /// the confirm's check read the key it wrote, so its write is a serialization failure (not a
    /// unique violation's 500), and the attempt run again answers 409 `email_taken`.
    @Test func aRegistrationWritingBetweenTheConfirmsCheckAndItsWrite() throws {
        let w = try SettingsWorld()
        let ada = try w.google("race-straddle-ada")
        let started = try w.account("change_email", [("newEmail", "straddle.race@example.org")], as: ada)
        let ticket = try #require(started.body["ticket"]?.stringValue, "\(started.rawBody)")
        let code = try #require(w.h.smtp.lastCode(to: "straddle.race@example.org"))
        let register = JSONValue.object([
            ("action", "register"), ("email", "straddle.race@example.org"), ("password", .string(SettingsWorld.password)),
        ]).serialized
        let registration = try HeldRequest(w.h, "signin-email", json: register, holdAt: "registration-checked")
        try registration.waitUntilHeld()
        let confirm = try HeldRequest(
            w.h, "verify-email",
            json: JSONValue.object([("action", "confirm"), ("ticket", .string(ticket)), ("code", .string(code))]).serialized,
            holdAt: "email-change-checked")
        try confirm.waitUntilHeld()
        if TestStore.isPostgres {
            let registered = try registration.release()
            #expect(registered.status == 201, "\(registered.rawBody)")
            let lost = try confirm.release()
            #expect(lost.status == 409 && lost.errorCode == "email_taken", "\(lost.rawBody) \(lost.stderr)")
            #expect(try w.account("get", as: ada).body["email"]?.stringValue == "race-straddle-ada@gmail.com")
            #expect(try w.h.count("accounts") == 2)
        } else {
            registration.letGo()
            let won = try confirm.release()
            #expect(won.status == 200, "\(won.rawBody)")
            let lost = try registration.release()
            #expect(lost.status == 409 && lost.errorCode == "email_taken", "\(lost.rawBody)")
            try Self.expectOneOwner(w, "straddle.race@example.org", ada.accountId)
        }
    }

    static func expectOneOwner(
        _ w: SettingsWorld, _ email: String, _ accountId: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let owners = try w.h.database().query(
            "SELECT id FROM accounts WHERE email_key = ?", [.text(EmailAddress.matchKey(email))])
        #expect(owners.map { $0.text(0) } == [accountId], sourceLocation: sourceLocation)
        #expect(try w.h.count("accounts") == 1, sourceLocation: sourceLocation)
    }
}
