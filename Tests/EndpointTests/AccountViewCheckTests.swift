#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// The phone's check on SQLite reads the session file alone: the session and the account's view
/// (`AccountView`). Its answer is the store's after every change (on both engines); a change
/// killed between its two commits leaves the store's truth; a check never builds a view from what
/// a writer is changing.
@Suite struct AccountViewCheckTests {
    static func providers(_ answer: CGIAnswer) -> [String] {
        answer.body["providers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    func viewRows(_ h: Harness, _ accountId: String) throws -> Int64? {
        try h.database().query("SELECT count(*) FROM main.account_views WHERE account_id = ?", [.text(accountId)]).first?.int(0)
    }

    /// The first whole check builds the view; the next ones answer with the store's file gone.
    @Test func thePhonesCheckReadsTheSessionFileAloneOnceItHasTheView() throws {
        let h = try Harness()
        let me = try h.signedIn("g-view", email: "view@gmail.com")
        #expect(try viewRows(h, me.accountId) == 0)
        let first = try h.check(me.bearer)
        #expect(first.status == 200 && Self.providers(first) == ["google"], "\(first.rawBody) \(first.stderr)")
        #expect(try viewRows(h, me.accountId) == 1)
        #expect(rename(h.databasePath, h.databasePath + ".away") == 0)
        let alone = try h.check(me.bearer)
        let opened = Files.exists(h.databasePath)
        #expect(rename(h.databasePath + ".away", h.databasePath) == 0)
        #expect(!opened, "the check opened the store")
        #expect(alone.status == 200, "\(alone.rawBody) \(alone.stderr)")
        #expect(alone.body == first.body)
    }

    /// After each change the account endpoint makes, the phone's check says what the store says.
    @Test func theAnswerFollowsEveryChange() throws {
        let w = try SettingsWorld()
        let ada = try w.google("view-ada")
        let h = w.h
        func answered() throws -> CGIAnswer {
            let answer = try h.check(ada.bearer)
            #expect(answer.status == 200, "\(answer.rawBody)")
            return answer
        }
        #expect(Self.providers(try answered()) == ["google"])
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: ada).status == 200)
        #expect(Self.providers(try answered()) == ["google", "password"])
        #expect(try w.account("unlink", [("provider", "google")], as: ada).status == 200)
        #expect(Self.providers(try answered()) == ["password"])
        #expect(try w.account("update", [("name", "Ada")], as: ada).status == 200)
        if h.postgres == nil { #expect(try viewRows(h, ada.accountId) == 1, "a name is not in the view") }
        let last = try answered()
        #expect(Self.providers(last) == ["password"] && last.body["email"] == "view-ada@gmail.com")
    }

    /// A password set killed after the session file's commit (its view gone), before the store's:
    /// the check builds the view again from the store, which has no password.
    @Test func aChangeKilledBetweenItsCommitsLeavesTheStoresTruth() throws {
        let w = try SettingsWorld()
        let ada = try w.google("view-killed")
        let h = w.h
        #expect(Self.providers(try h.check(ada.bearer)) == ["google"])
        let held = try HeldRequest(
            h, "account", json: #"{"action":"set_password","newPassword":"\#(SettingsWorld.password)"}"#,
            holdAt: "between-commits", authorization: ada.bearer)
        try held.waitUntilHeld()
        #expect(held.kill() == 128 + SIGKILL)
        #expect(try viewRows(h, ada.accountId) == 0, "the view went first")
        #expect(try h.database().query("SELECT password_hash FROM accounts WHERE id = ?", [.text(ada.accountId)]).first?.text(0) == nil)
        let after = try h.check(ada.bearer)
        #expect(after.status == 200 && Self.providers(after) == ["google"], "\(after.rawBody) \(after.stderr)")
        #expect(try viewRows(h, ada.accountId) == 1)
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: ada).status == 200)
        #expect(Self.providers(try h.check(ada.bearer)) == ["google", "password"])
    }

    /// A writer held inside its transaction: a check that finds the view answers what was
    /// committed; one that must build it waits for the writer and builds from its change.
    @Test func aViewIsNeverBuiltFromWhatAWriterIsChanging() throws {
        let w = try SettingsWorld()
        let ada = try w.google("view-race-ada")
        let bo = try w.google("view-race-bo")
        let h = w.h
        #expect(Self.providers(try h.check(ada.bearer)) == ["google"])
        let setting = #"{"action":"set_password","newPassword":"\#(SettingsWorld.password)"}"#
        let first = try HeldRequest(h, "account", json: setting, holdAt: "password-set", authorization: ada.bearer, tag: "ada")
        try first.waitUntilHeld()
        #expect(Self.providers(try h.check(ada.bearer)) == ["google"], "the view, as committed")
        #expect(try first.release().status == 200)
        #expect(Self.providers(try h.check(ada.bearer)) == ["google", "password"])
        // Bo has no view yet: his check must build it, and waits for the writer's commit.
        #expect(try viewRows(h, bo.accountId) == 0)
        let second = try HeldRequest(h, "account", json: setting, holdAt: "password-set", authorization: bo.bearer, tag: "bo")
        try second.waitUntilHeld()
        let check = try HeldRequest(h, "session", method: "GET", json: nil, holdAt: "account-view", authorization: bo.bearer)
        // Its build is inside BEGIN IMMEDIATE, which the writer's lock keeps it from: a check
        // reaches that point in milliseconds when nothing holds it.
        usleep(1_000_000)
        #expect(!Files.exists(h.dir + "/hold-account-view/account-view.waiting"), "a build began beside the writer")
        #expect(try second.release().status == 200)
        try check.waitUntilHeld()
        let built = try check.release()
        #expect(built.status == 200 && Self.providers(built) == ["google", "password"], "\(built.rawBody) \(built.stderr)")
    }

    /// A check held while it builds the view holds the writers off until it has: the writer's
    /// change then takes the view away, and the next check shows the change.
    @Test func aWriterAfterABuildTakesTheViewAway() throws {
        let w = try SettingsWorld()
        let ada = try w.google("view-build")
        let h = w.h
        let check = try HeldRequest(h, "session", method: "GET", json: nil, holdAt: "account-view", authorization: ada.bearer)
        try check.waitUntilHeld()
        let writer = try HeldRequest(
            h, "account", json: #"{"action":"set_password","newPassword":"\#(SettingsWorld.password)"}"#,
            holdAt: "not-a-point", authorization: ada.bearer)
        let built = try check.release()
        #expect(built.status == 200 && Self.providers(built) == ["google"], "\(built.rawBody) \(built.stderr)")
        #expect(try writer.release().status == 200)
        #expect(try viewRows(h, ada.accountId) == 0)
        #expect(Self.providers(try h.check(ada.bearer)) == ["google", "password"])
    }
}
