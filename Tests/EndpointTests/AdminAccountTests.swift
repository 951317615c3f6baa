#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// What `frontdoor-admin` does to one account (rule 14), read back through the real endpoints.
@Suite struct AdminAccountTests {
    /// `account get`'s answer as the operator sees it: no session is the operator's own.
    static func asOperatorSees(_ body: JSONValue) -> JSONValue {
        guard case .object(var members) = body, let i = members.firstIndex(where: { $0.0 == "sessions" }),
            let sessions = members[i].1.arrayValue
        else { return body }
        members[i].1 = .array(sessions.map { session in
            guard case .object(var fields) = session else { return session }
            for j in fields.indices where fields[j].0 == "current" { fields[j].1 = false }
            return .object(fields)
        })
        return .object(members)
    }

    func accountGet(_ h: Harness, _ me: SignedIn) throws -> CGIAnswer {
        try h.run("account", json: #"{"action":"get"}"#, authorization: me.bearer)
    }

    @Test func findByAddressInAnyCaseOrByIdAndExportAsTheAccountEndpointAnswers() throws {
        let h = try Harness()
        let email = "Frida.Found@gmail.com"
        let me = try h.signedIn("g-found", email: email, deviceName: "Frida's phone")
        _ = try h.signedIn("g-found", email: email)
        let own = try accountGet(h, me)
        #expect(own.status == 200)
        let expected = Self.asOperatorSees(own.body)

        let exported = try h.admin(["export", me.accountId])
        #expect(exported.status == 0, "\(exported.stdout)")
        #expect(exported.json == expected)
        #expect(exported.stderr.isEmpty)

        guard case .object(let members) = expected else { throw HarnessError("not an object") }
        let found = JSONValue.object([("account", .object(members + [("disabled", false), ("disabledAt", nil)]))])
        for key in [email, email.uppercased(), "  frida.found@GMAIL.com ".trimmingWhitespace(), me.accountId] {
            let run = try h.admin(["find", key])
            #expect(run.status == 0, "\(key): \(run.stdout)")
            #expect(run.json == found, "\(key)")
        }
        // Nothing secret in either: no token, hash or provider subject.
        for text in [exported.stdout, try h.admin(["find", me.accountId]).stdout] {
            #expect(!text.contains(me.token) && !text.contains("g-found") && !text.contains("password_hash"))
        }
    }

    @Test func disableEndsEverySessionAndTheCheckRefusesInBothModesUntilEnabled() throws {
        let h = try Harness()
        let first = try h.signedIn("g-disabled", email: "disabled.person@gmail.com")
        let second = try h.signedIn("g-disabled", email: "disabled.person@gmail.com")
        #expect(try h.check(first.bearer).status == 200)

        let disabled = try h.admin(["disable", first.accountId])
        #expect(disabled.status == 0, "\(disabled.stdout)")
        #expect(disabled.json == .object([("accountId", .string(first.accountId)), ("disabled", true), ("ended", 2)]))
        for me in [first, second] {
            #expect(try h.check(me.bearer).status == 401)
            #expect(try h.check(me.bearer, extraEnvironment: SessionCheckTests.headersOnly).status == 401)
            #expect(try accountGet(h, me).status == 401)
        }
        #expect(try h.count("sessions") == 0)
        let found = try h.admin(["find", first.accountId])
        #expect(found.json["account"]?["disabled"] == true)
        let at = try #require(found.json["account"]?["disabledAt"]?.stringValue)
        #expect(try h.admin(["stats"]).json["disabled"] == 1)
        // Disabling again keeps the first time and ends nothing more.
        let again = try h.admin(["disable", first.accountId])
        #expect(again.json["ended"] == 0)
        #expect(try h.admin(["find", first.accountId]).json["account"]?["disabledAt"]?.stringValue == at)
        let refused = try h.signInGoogle(try h.google.token(sub: "g-disabled", email: "disabled.person@gmail.com"))
        #expect(refused.status == 403 && refused.errorCode == "account_disabled", "\(refused.rawBody)")

        let enabled = try h.admin(["enable", first.accountId])
        #expect(enabled.json == .object([("accountId", .string(first.accountId)), ("disabled", false)]))
        #expect(try h.check(first.bearer).status == 401, "the sessions disabling ended stay ended")
        let back = try h.signedIn("g-disabled", email: "disabled.person@gmail.com")
        #expect(back.accountId == first.accountId)
        #expect(try h.check(back.bearer).status == 200)
        #expect(try h.admin(["find", first.accountId]).json["account"]?["disabled"] == false)
    }

    /// Disabling ends every session, and a session of a disabled account that comes from
    /// anywhere else (a row copied back by hand, say) is refused all the same by every endpoint
    /// that reads the account. nginx's check reads the session file alone (`SessionFile`): on
    /// SQLite it trusts that disabling ended them, and a row put back by hand is the operator's.
    @Test func aSessionOfADisabledAccountIsRefusedWhereverItCameFrom() throws {
        let h = try Harness()
        let me = try h.signedIn("g-stale", email: "stale.session@gmail.com")
        let row = try h.database().query("SELECT * FROM sessions WHERE session_id = ?", [.text(me.sessionId)])
        #expect(try h.admin(["disable", me.accountId]).json["ended"] == 1)
        let values = try #require(row.first)
        try h.database().run(
            "INSERT INTO sessions VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))",
            (0..<values.count).map { values[$0] })
        #expect(try h.check(me.bearer).status == 401)
        if try h.database().isPostgres {
            #expect(try h.check(me.bearer, extraEnvironment: SessionCheckTests.headersOnly).status == 401)
        }
        #expect(try accountGet(h, me).status == 401)
        #expect(try h.run("sign-out", body: [], contentType: nil, authorization: me.bearer).status == 401)
        #expect(try h.run("delete-account", json: "{}", authorization: me.bearer).status == 401)
        #expect(try h.holds(me.accountId))
        #expect(try h.admin(["enable", me.accountId]).status == 0)
        #expect(try h.check(me.bearer).status == 200, "the control: the same row of an enabled account")
    }

    @Test func signOutEndsEverySessionAndTheNextSignInWorks() throws {
        let h = try Harness()
        let one = try h.signedIn("g-signout", email: "signout@gmail.com")
        let two = try h.signedIn("g-signout", email: "signout@gmail.com")
        let other = try h.signedIn("g-bystander", email: "bystander@gmail.com")
        let run = try h.admin(["sign-out", one.accountId])
        #expect(run.json == .object([("accountId", .string(one.accountId)), ("ended", 2)]))
        #expect(try h.check(one.bearer).status == 401 && h.check(two.bearer).status == 401)
        #expect(try h.check(other.bearer).status == 200)
        #expect(try h.check(try h.signedIn("g-signout", email: "signout@gmail.com").bearer).status == 200)
    }

    @Test func deleteIsThePersonsOwnDeletion() throws {
        let d = try DeletionWorld()
        let events = try EventsFixture(d.h, settings: EventsFixture.quick)
        try d.w.writeConfig([("processLifetimeSeconds", .number(Double(DeletionWorld.processLifetime))), events.member])
        let (session, accountId) = try d.appleAccount("apple-admin-del", email: "admin.deleted@example.org")
        let bystander = try d.googleAccount("g-admin-bystander", email: "bystander.del@gmail.com")
        let before = Clock.now()
        let run = try d.h.admin(["delete", accountId])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.json == .object([("accountId", .string(accountId)), ("deleted", true)]))
        #expect(try !d.h.holds(accountId))
        #expect(try d.h.holds(bystander.id))
        for table in DeletionTests.personalTables {
            let left = try d.h.database().query("SELECT count(*) FROM \(table)").first?.int(0) ?? -1
            #expect(left == (table == "tickets" ? 0 : 1), "\(table): the bystander's row only")
        }
        // The same as the person's own: the ledger line, the audit row (Apple not revoked), the event.
        let line = try #require(d.h.deletionLines.last)
        let parts = line.split(separator: " ")
        #expect(parts.count == 4 && parts[3] == Substring(accountId))
        #expect(Int64(parts[0]).map { $0 >= before && $0 <= Clock.now() } == true)
        let audit = try d.h.database().query("SELECT providers, apple_revocation FROM deletion_audit")
        #expect(audit.count == 1 && audit.first?.text(0) == "apple" && audit.first?.text(1) == "not_requested")
        let deadline = Clock.monotonicMillis() + 10_000
        while !events.taken.contains(where: { $0.hasPrefix("account.deleted \(accountId)") }) && Clock.monotonicMillis() < deadline {
            usleep(50_000)
        }
        #expect(events.taken.contains("account.deleted \(accountId) [apple]"), "\(events.taken)")
        #expect(d.firebase.revocations.isEmpty)
        // The old session is refused, and the same Apple person starts over with a new account.
        #expect(try d.delete(session).status == 401)
        #expect(try d.h.check("Bearer \(session)").status == 401)
        let again = try d.w.signInNew(sub: "apple-admin-del", email: "admin.deleted@example.org")
        #expect(again.status == 200 && again.body["created"] == true && again.body["accountId"] != .string(accountId))
        #expect(try d.h.admin(["delete", accountId]).status == 66, "a deleted account is no account")
    }

    /// The person whose old Google account is gone: the old identity holds the account's place, so
    /// their new Google account cannot join by address; unlinked, it does. Never the last way in.
    @Test func unlinkLetsANewProviderAccountJoinAndNeverRemovesTheLastWayIn() throws {
        let w = try AppleWorld()
        let h = w.h
        let email = "lost.google@gmail.com"
        let old = try h.signedIn("g-lost-old", email: email)
        let apple = try w.signInNew(sub: "apple-lost", email: email)
        #expect(apple.status == 200 && apple.body["accountId"] == .string(old.accountId), "\(apple.rawBody)")
        let blocked = try h.signInGoogle(try h.google.token(sub: "g-lost-new", email: email))
        #expect(blocked.status == 409 && blocked.errorCode == "email_taken", "\(blocked.rawBody)")

        let run = try h.admin(["unlink", old.accountId, "google"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.json == .object([
            ("accountId", .string(old.accountId)), ("unlinked", "google"), ("providers", .array(["apple"])),
        ]))
        let joined = try h.signInGoogle(try h.google.token(sub: "g-lost-new", email: email))
        #expect(joined.status == 200 && joined.body["accountId"] == .string(old.accountId), "\(joined.rawBody)")
        #expect(joined.body["providers"] == .array(["apple", "google"]))
        // Unlinked once more (the new one now), the account has no Google identity left to unlink.
        #expect(try h.admin(["unlink", old.accountId, "google"]).status == 0)
        #expect(try h.admin(["unlink", old.accountId, "google"]).status == 66, "no google identity left")
        let last = try h.admin(["unlink", old.accountId, "apple"])
        #expect(last.status == 69, "\(last.stdout)")
        #expect(try h.database().query("SELECT provider FROM identities WHERE account_id = ?", [.text(old.accountId)])
            .compactMap { $0.text(0) } == ["apple"])
    }

    /// One rule for "the last way in" (`WaysIn`, as DESIGN's `unlink` states it): a password counts
    /// only with a proven email. An Apple account whose password stands beside an address that is
    /// not proven (as a row from before the rules may) keeps its Apple identity; proven, it may go.
    @Test func unlinkCountsAPasswordOnlyWithAProvenEmail() throws {
        let w = try AppleWorld()
        let h = w.h
        let email = "apple.and.password@example.org"
        let apple = try w.signInNew(sub: "apple-ways", email: email)
        let accountId = try #require(apple.body["accountId"]?.stringValue)
        let reset = try h.verify([("action", "reset_request"), ("email", .string(email))])
        let code = try #require(h.smtp.lastCode(to: email))
        let password = "a long enough password 2"
        TestLogs.register(password)
        let set = try h.verify([
            ("action", "reset_confirm"), ("ticket", reset.body["ticket"] ?? .null), ("code", .string(code)),
            ("password", .string(password)),
        ])
        #expect(set.status == 200, "\(set.rawBody)")
        try h.database().run("UPDATE accounts SET email_verified = 0 WHERE id = ?", [.text(accountId)])
        let refused = try h.admin(["unlink", accountId, "apple"])
        #expect(refused.status == 69, "\(refused.stdout) \(refused.stderr)")
        #expect(try h.count("identities") == 1)
        try h.database().run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(accountId)])
        let unlinked = try h.admin(["unlink", accountId, "apple"])
        #expect(unlinked.status == 0, "\(unlinked.stdout) \(unlinked.stderr)")
        #expect(unlinked.json["providers"] == .array(["password"]))
    }

    @Test func statsCountsWhatTheStoreHolds() throws {
        let h = try Harness()
        let a = try h.signedIn("g-stats-a", email: "stats.a@gmail.com")
        _ = try h.signedIn("g-stats-a", email: "stats.a@gmail.com")
        let b = try h.signedIn("g-stats-b")
        _ = try h.admin(["disable", b.accountId])
        let stats = try h.admin(["stats"])
        #expect(stats.status == 0)
        #expect(stats.json["accounts"] == 2 && stats.json["disabled"] == 1 && stats.json["liveSessions"] == 2)
        #expect(stats.json["eventsWaiting"] == 0 && stats.json["relayUsersWaiting"] == 0)
        #expect(stats.json["schemaVersion"] == .number(Double(Database.schemaVersion)))
        if h.postgres == nil {
            #expect(stats.json["sqliteVersion"]?.stringValue?.hasPrefix("3.") == true)
        } else {
            #expect(stats.json["store"] == "postgresql" && stats.json["postgresVersion"]?.stringValue?.hasPrefix("15") == true)
        }
        _ = try h.admin(["delete", a.accountId])
        let after = try h.admin(["stats"])
        // The disable and the session it ended, then the deletion.
        #expect(after.json["accounts"] == 1 && after.json["ledgerLines"] == 3 && after.json["deletionsAudited"] == 1)
    }
}
