import DevSupport
import Shared
import Testing

/// `account` `change_password` and `set_password` (rule 18), each answer and refusal, the
/// sessions a change ends, the event and the notice. On both engines.
@Suite struct PasswordSettingsTests {
    func change(_ w: SettingsWorld, _ person: SettingsWorld.Person, current: String, new: String) throws -> CGIAnswer {
        try w.account("change_password", [("currentPassword", .string(current)), ("newPassword", .string(new))], as: person)
    }

    /// The current password proves the person (no recent sign-in needed): the password changes,
    /// every other session ends, this one stays; `account.updated` (`changed: ["password"]`, no
    /// address) is delivered; the address gets a notice with no link in it.
    @Test func aChangeEndsTheOtherSessionsAndTellsThePerson() throws {
        let w = try SettingsWorld(events: true)
        let ada = try w.proven("change.ada@example.org")
        let phone = try SettingsWorld.person(try w.h.login("change.ada@example.org", SettingsWorld.password))
        let tablet = try SettingsWorld.person(try w.h.login("change.ada@example.org", SettingsWorld.password))
        try w.age(ada, by: 100_000)
        let mailsBefore = w.mails(to: "change.ada@example.org").count
        let changed = try change(w, ada, current: SettingsWorld.password, new: SettingsWorld.newPassword)
        #expect(changed.status == 200, "\(changed.rawBody)")
        #expect(changed.body == .object([("changed", true), ("ended", 2)]))
        #expect(try w.h.check(ada.bearer).status == 200)
        #expect(try w.h.check(phone.bearer).status == 401 && w.h.check(tablet.bearer).status == 401)
        #expect(try w.h.login("change.ada@example.org", SettingsWorld.password).status == 401)
        #expect(try w.h.login("change.ada@example.org", SettingsWorld.newPassword).status == 200)
        let events = try #require(w.events)
        let updated = events.receiver.accepted.compactMap(\.body).filter { $0["type"] == "account.updated" }
        #expect(updated.count == 1)
        #expect(updated.first?["changed"] == .array(["password"]) && updated.first?["accountId"]?.stringValue == ada.accountId)
        #expect(updated.first.map { !$0.serialized.contains("change.ada") } == true, "no address in the event")
        let notices = w.mails(to: "change.ada@example.org").dropFirst(mailsBefore)
        #expect(notices.count == 1)
        let notice = try #require(notices.first?.data)
        #expect(notice.contains("Subject: Your password was changed"))
        #expect(notice.contains("If it was not you") && NoticeLinkTests.onlyLinkIsNotMe(notice), "no link")
        #expect(!notice.contains(SettingsWorld.newPassword))
    }

    /// A wrong current password is 401 and counts as a failed login: past the address's limit
    /// both the change and a login of that address are 429, and nothing changed.
    @Test func aWrongCurrentPasswordCountsAsAFailedLogin() throws {
        let w = try SettingsWorld(config: [("limits", .object([("loginFailuresPerEmail", 3)]))])
        let ada = try w.proven("wrong.ada@example.org")
        let before = try w.snapshot().filter { !$0.hasPrefix("ephemeral:") }
        for _ in 0..<3 {
            let wrong = try change(w, ada, current: "not the password at all", new: SettingsWorld.newPassword)
            #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials", "\(wrong.rawBody)")
        }
        let limited = try change(w, ada, current: SettingsWorld.password, new: SettingsWorld.newPassword)
        #expect(limited.status == 429 && limited.errorCode == "rate_limited", "\(limited.rawBody)")
        #expect(limited.header("Retry-After") != nil)
        #expect(try w.h.login("wrong.ada@example.org", SettingsWorld.password).status == 429)
        #expect(try w.snapshot().filter { !$0.hasPrefix("ephemeral:") } == before)
    }

    /// A success forgets the address's failures, as a login does.
    @Test func aRightCurrentPasswordForgetsTheFailures() throws {
        let w = try SettingsWorld(config: [("limits", .object([("loginFailuresPerEmail", 3)]))])
        let ada = try w.proven("forget.ada@example.org")
        for _ in 0..<2 {
            #expect(try change(w, ada, current: "not the password at all", new: SettingsWorld.newPassword).status == 401)
        }
        #expect(try change(w, ada, current: SettingsWorld.password, new: SettingsWorld.newPassword).status == 200)
        for _ in 0..<2 {
            #expect(try change(w, ada, current: "not the password at all", new: SettingsWorld.password).status == 401)
        }
        #expect(try change(w, ada, current: SettingsWorld.newPassword, new: SettingsWorld.password).status == 200)
    }

    /// 409 `no_password`, 422 `invalid_password` (before a try is counted), 401 without a
    /// session: each changes nothing.
    @Test func changeRefusals() throws {
        let w = try SettingsWorld()
        let google = try w.google("nopass-ada")
        let ada = try w.proven("refused.ada@example.org")
        let before = try w.snapshot()
        let none = try change(w, google, current: SettingsWorld.password, new: SettingsWorld.newPassword)
        #expect(none.status == 409 && none.errorCode == "no_password", "\(none.rawBody)")
        let short = try change(w, ada, current: SettingsWorld.password, new: "short")
        #expect(short.status == 422 && short.errorCode == "invalid_password", "\(short.rawBody)")
        let anonymous = try w.account(
            "change_password", [("currentPassword", .string(SettingsWorld.password)), ("newPassword", "whatever it is")],
            as: nil)
        #expect(anonymous.status == 401 && anonymous.errorCode == "unauthorized")
        #expect(try w.snapshot() == before)
    }

    /// A provider-only account with a proven address gains a password: `signin-email` login then
    /// works, `account.linked` (`password`) is delivered, the address is told; sessions stay.
    @Test func setGivesAProviderAccountAPassword() throws {
        let w = try SettingsWorld(events: true)
        let ada = try w.google("set-ada")
        let other = try w.google("set-ada")
        let set = try w.account("set_password", [("newPassword", .string(SettingsWorld.newPassword))], as: ada)
        #expect(set.status == 200 && set.body == .object([("changed", true)]), "\(set.rawBody)")
        #expect(try w.h.check(other.bearer).status == 200, "sessions stay")
        let login = try w.h.login("set-ada@gmail.com", SettingsWorld.newPassword)
        #expect(login.status == 200 && login.body["accountId"]?.stringValue == ada.accountId, "\(login.rawBody)")
        let events = try #require(w.events)
        #expect(events.taken.last == "account.linked \(ada.accountId) [google,password] password", "\(events.taken)")
        let notice = try #require(w.mails(to: "set-ada@gmail.com").last?.data)
        #expect(notice.contains("Subject: A password was added to your account") && NoticeLinkTests.onlyLinkIsNotMe(notice))
        let again = try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: ada)
        #expect(again.status == 409 && again.errorCode == "password_exists", "\(again.rawBody)")
    }

    /// Only on a proven address (403 `email_not_verified`: an unproven Google address, or none),
    /// only with a recent sign-in (403 `reauthentication_required`, checked first), and only a
    /// password the rules accept (422): each refusal changes nothing.
    @Test func setRefusals() throws {
        let w = try SettingsWorld()
        let unproven = try w.google("set-unproven", email: "unproven@example.org")
        let nomail = try SettingsWorld.person(try w.h.signInGoogle(try w.h.google.token(sub: "set-nomail", email: nil)))
        let typed = try w.typed("set.typed@example.org")
        let fresh = try w.google("set-fresh")
        let before = try w.snapshot()
        let body: [(String, JSONValue)] = [("newPassword", .string(SettingsWorld.newPassword))]
        for person in [unproven, nomail] {
            let refused = try w.account("set_password", body, as: person)
            #expect(refused.status == 403 && refused.errorCode == "email_not_verified", "\(refused.rawBody)")
        }
        let exists = try w.account("set_password", body, as: typed)
        #expect(exists.status == 409 && exists.errorCode == "password_exists", "\(exists.rawBody)")
        try w.age(typed)
        SettingsWorld.expectReauthentication(try w.account("set_password", body, as: typed), methods: ["password"])
        let short = try w.account("set_password", [("newPassword", "short")], as: fresh)
        #expect(short.status == 422 && short.errorCode == "invalid_password")
        #expect(try w.snapshot().filter { !$0.hasPrefix("sessions:") } == before.filter { !$0.hasPrefix("sessions:") })
    }

    /// Rule 19 (issue 32) holds where a password is changed or set, as at registration: a listed
    /// password in another case, a run, the account's own address as most of it, each 422 with its
    /// reason and minimum before the current password is tried (a login limit of 1 is not reached)
    /// or anything written; the address's words count for the account being changed.
    @Test func theNewPasswordIsCheckedByRule19() throws {
        let w = try SettingsWorld(config: [
            ("limits", .object([("loginFailuresPerEmail", 1)])), ("passwords", .object([("minLength", 15)])),
        ])
        let ada = try w.proven("rulecheck.ada@example.org")
        let fresh = try w.google("rulecheck-set")
        let before = try w.snapshot().filter { !$0.hasPrefix("ephemeral:") }
        let refused: [(String, String)] = [
            ("ACKNOWLEDGEMENTS", "common"), ("aaaaaaaaaaaaaaaaaaaa", "repetitive"),
            ("rulecheck.ada@example.org!", "contains_context"), ("fourteen chars", "too_short"),
        ]
        for (new, reason) in refused {
            let changed = try change(w, ada, current: "not the password at all", new: new)
            #expect(changed.status == 422 && changed.errorCode == "invalid_password", "\(new): \(changed.rawBody)")
            #expect(changed.body["reason"]?.stringValue == reason && changed.body["minLength"] == 15, "\(new): \(changed.rawBody)")
        }
        #expect(try w.snapshot().filter { !$0.hasPrefix("ephemeral:") } == before)
        #expect(try change(w, ada, current: SettingsWorld.password, new: SettingsWorld.newPassword).status == 200,
                "no refusal counted a try")
        for (new, reason) in [("qwertyuiopasdfghjkl", "repetitive"), ("rulecheck-set@gmail.com", "contains_context")] {
            let set = try w.account("set_password", [("newPassword", .string(new))], as: fresh)
            #expect(set.status == 422 && set.body["reason"]?.stringValue == reason, "\(new): \(set.rawBody)")
        }
        #expect(try w.h.login("rulecheck-set@gmail.com", "qwertyuiopasdfghjkl").status == 401)
    }
}
