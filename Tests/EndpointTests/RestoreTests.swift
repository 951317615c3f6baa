#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `frontdoor-admin restore` and `reapply-deletions` (rule 13): a snapshot put back brings nobody
/// back who deleted their account since, the door is closed (503) while it runs, no 2xx answered
/// after it began is lost, and a restore killed anywhere leaves a closed door that a second
/// restore finishes.
@Suite struct RestoreTests {
    /// A short ceiling (the restore waits it out) that the outbound and mail timeouts still fit in.
    static let config: [(String, JSONValue)] = [
        ("processLifetimeSeconds", 8), ("http", .object([("totalTimeoutSeconds", 2)])),
    ]

    /// Before the snapshot: `kept` and `deletedByPerson` and `deletedByOperator`; after it,
    /// `late` signs in, the person deletes their own account, and the operator deletes another.
    struct Story {
        let kept: SignedIn
        let deletedByPerson: SignedIn
        let deletedByOperator: SignedIn
        let late: SignedIn
        let snapshot: String
    }

    static func story(_ h: Harness) throws -> Story {
        let kept = try h.signedIn("g-kept", email: "kept@gmail.com")
        let byPerson = try h.signedIn("g-gone-person", email: "gone.person@gmail.com")
        let byOperator = try h.signedIn("g-gone-operator", email: "gone.operator@gmail.com")
        mkdir(h.dir + "/backups", 0o700)
        let backup = try h.admin(["backup", h.dir + "/backups"])
        let snapshot = try #require(backup.json["path"]?.stringValue, "\(backup.stdout)")
        let late = try h.signedIn("g-late", email: "late@gmail.com")
        let deleted = try h.run("delete-account", json: "{}", authorization: byPerson.bearer)
        #expect(deleted.status == 200, "\(deleted.rawBody)")
        #expect(try h.admin(["delete", byOperator.accountId]).status == 0)
        return Story(kept: kept, deletedByPerson: byPerson, deletedByOperator: byOperator, late: late, snapshot: snapshot)
    }

    /// What the store must be once a restore of the story's snapshot is done.
    static func expectRestored(_ h: Harness, _ s: Story) throws {
        #expect(!Door.isClosed(h.databasePath))
        let ids = Set(try h.database().query("SELECT id FROM accounts").compactMap { $0.text(0) })
        #expect(ids == [s.kept.accountId], "the snapshot's people, less those who deleted since")
        #expect(try StoreInvariants.violations(h.database()) == [])
        #expect(try h.check(s.kept.bearer).status == 200)
        for gone in [s.deletedByPerson, s.deletedByOperator] {
            #expect(try h.check(gone.bearer).status == 401, "an old session of a person deleted after the snapshot")
            #expect(try h.check(gone.bearer, extraEnvironment: SessionCheckTests.headersOnly).status == 401)
            #expect(try h.run("account", json: #"{"action":"get"}"#, authorization: gone.bearer).status == 401)
        }
        // Deleted again the normal way: an audit row each (two from before, two re-applied).
        #expect(try h.count("deletion_audit") == 2)
        let again = try h.signInGoogle(try h.google.token(sub: "g-gone-person", email: "gone.person@gmail.com"))
        #expect(again.status == 200 && again.body["created"] == true, "\(again.rawBody)")
    }

    @Test func aRoundTripBringsTheSnapshotBackAndNobodyWhoDeletedSince() throws {
        let h = try Harness(config: Self.config)
        let events = try EventsFixture(h, settings: EventsFixture.quick)
        try h.writeConfig(Self.config + [events.member])
        let s = try Self.story(h)
        #expect(h.ledgerLines.count == 2)
        let run = try h.admin(["restore", s.snapshot])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.json["restored"] == .string(s.snapshot))
        #expect(run.json["deletionsReapplied"] == 2 && run.json["ledgerLines"] == 2)
        #expect(run.json["takenAt"]?.stringValue?.hasSuffix("Z") == true)
        #expect(run.audit == ["frontdoor-admin action=restore account=- uid=\(getuid()) sudoUser=ops-person result=ok count=2"])
        let aside = try #require(run.json["movedAside"]?.stringValue)
        // The store as it was is kept aside whole, file and WAL together.
        let old = try Database(path: aside + "/frontdoor.sqlite3")
        #expect(try old.query("SELECT count(*) FROM accounts").first?.int(0) == 2)
        old.close()
        #expect(!Files.exists(h.databasePath + ".restoring"))
        // The app hears of the two deletions again, since its own copy may have come back too.
        let deadline = Clock.monotonicMillis() + 10_000
        func deletedAgain() -> Int { events.taken.filter { $0.hasPrefix("account.deleted") }.count }
        while deletedAgain() < 4 && Clock.monotonicMillis() < deadline { usleep(50_000) }
        #expect(deletedAgain() == 4, "\(events.taken)")
        try Self.expectRestored(h, s)
        // The person who signed in after the snapshot is not in it: they sign in again, as new.
        #expect(try h.check(s.late.bearer).status == 401)
        #expect(try h.admin(["stats"]).json["accounts"] == 2)
    }

    @Test func everyEndpointAnswers503WhileTheDoorIsClosed() throws {
        let w = try AppleWorld(config: Self.config)
        let h = w.h
        try w.writeConfig(Self.config)
        let s = try Self.story(h)
        let restore = try h.startAdmin(["restore", s.snapshot], holdAt: "restore-door-closed")
        try restore.waitUntilHeld()
        let before = try DisabledSignInTests.rows(h)
        let nonce = AppleWorld.nonce()
        let answers: [(String, CGIAnswer)] = [
            ("signin-google", try h.signInGoogle(try h.google.token(sub: "g-at-the-door", email: "door@gmail.com"))),
            ("signin-apple", try w.signIn(try w.apple.token(sub: "apple-at-the-door", rawNonce: nonce), nonce: nonce)),
            ("signin-email", try h.register("door@example.org", "a door password")),
            ("verify-email", try h.verify([("action", "reset_request"), ("email", "kept@gmail.com")])),
            ("session", try h.check(s.kept.bearer)),
            ("account", try h.run("account", json: #"{"action":"get"}"#, authorization: s.kept.bearer)),
            ("sign-out", try h.run("sign-out", body: [], contentType: nil, authorization: s.kept.bearer)),
            ("delete-account", try h.run("delete-account", json: "{}", authorization: s.kept.bearer)),
        ]
        for (endpoint, answer) in answers {
            #expect(answer.status == 503 && answer.errorCode == "upstream_unavailable", "\(endpoint): \(answer.rawBody)")
            #expect(answer.header("retry-after") == "60", "\(endpoint)")
        }
        #expect(try DisabledSignInTests.rows(h) == before)
        let check = try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--config", h.configPath, "--routes", "ipv4=yes,ipv6=yes"],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(check.exitStatus == 1)
        #expect(check.stdoutText.contains("the door is closed since"), "\(check.stdoutText)")
        let prune = try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--config", h.configPath, "--prune"],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(prune.exitStatus == 1 && prune.stdoutText.contains("the door is closed"))
        let done = restore.finish()
        #expect(done.status == 0, "\(done.json)")
        try Self.expectRestored(h, s)
    }

    /// A sign-in that committed to the old store before the door closed, and had not answered
    /// yet, answers 503, not 200: its write went to the file the restore moves aside.
    @Test func aWriteCommittedBeforeTheDoorClosedIsNotAnswered2xx() throws {
        let h = try Harness(config: Self.config)
        let s = try Self.story(h)
        let signIn = try HeldRequest.signInGoogle(
            h, sub: "g-in-flight", email: "in.flight@gmail.com", holdAt: "answer-ready")
        try signIn.waitUntilHeld()
        let restore = try h.startAdmin(["restore", s.snapshot], holdAt: "restore-door-closed")
        try restore.waitUntilHeld()
        let answer = try signIn.release()
        #expect(answer.status == 503 && answer.errorCode == "upstream_unavailable", "\(answer.rawBody)")
        #expect(restore.finish().status == 0)
        try Self.expectRestored(h, s)
    }

    /// A 2xx being written when the door closes holds the restore back until it is out: the
    /// restore begins (passes its barrier) only after every such answer.
    @Test func anAnswerBeingWrittenHoldsTheRestoreBackUntilItIsOut() throws {
        let h = try Harness(config: Self.config)
        let s = try Self.story(h)
        let signIn = try HeldRequest.signInGoogle(
            h, sub: "g-answering", email: "answering@gmail.com", holdAt: "answer-permitted")
        try signIn.waitUntilHeld()
        let restore = try h.startAdmin(["restore", s.snapshot], holdAt: "restore-door-closed")
        // The door closes at once (new requests are refused) but the restore waits at its barrier.
        let deadline = Clock.monotonicMillis() + 10_000
        while !Door.isClosed(h.databasePath) && Clock.monotonicMillis() < deadline { usleep(10_000) }
        #expect(Door.isClosed(h.databasePath))
        #expect(try h.signInGoogle(try h.google.token(sub: "g-too-late")).status == 503)
        usleep(500_000)
        #expect(!Files.exists(restore.folder + "/restore-door-closed.waiting"), "past the barrier while an answer was being written")
        let answer = try signIn.release()
        #expect(answer.status == 200, "it looked at the door before it closed: \(answer.rawBody)")
        try restore.waitUntilHeld()
        #expect(restore.finish().status == 0)
        try Self.expectRestored(h, s)
    }

    /// SIGKILL at each step: the door stays closed (from its closing on), and a second restore of
    /// the same snapshot finishes the job with the store as one restore makes it.
    @Test(arguments: ["restore-staged", "restore-door-closed", "restore-moving", "restore-placed", "restore-reapplied"])
    func aKilledRestoreLeavesAClosedDoorThatASecondRestoreFinishes(_ point: String) throws {
        let h = try Harness(config: Self.config)
        let s = try Self.story(h)
        let first = try h.startAdmin(["restore", s.snapshot], holdAt: point)
        try first.waitUntilHeld()
        #expect(first.kill() == 128 + SIGKILL)
        if point == "restore-staged" {
            #expect(!Door.isClosed(h.databasePath), "killed before it closed the door: nothing changed")
            #expect(try h.check(s.late.bearer).status == 200)
        } else {
            #expect(Door.isClosed(h.databasePath))
            #expect(try h.check(s.kept.bearer).status == 503, "never open over a half-restored store")
            #expect(try h.signInGoogle(try h.google.token(sub: "g-meanwhile")).status == 503)
        }
        let second = try h.admin(["restore", s.snapshot])
        #expect(second.status == 0, "\(point): \(second.stdout) \(second.stderr)")
        try Self.expectRestored(h, s)
        // The store that was live before the first attempt is the one kept aside, whole.
        let aside = try #require(second.json["movedAside"]?.stringValue)
        let old = try Database(path: aside + "/frontdoor.sqlite3")
        #expect(try Set(old.query("SELECT id FROM accounts").compactMap { $0.text(0) }) == [s.kept.accountId, s.late.accountId])
        old.close()
    }

    /// For a store put back by other means: the ledgers named are re-applied, the normal way, and
    /// a second run finds nobody left to delete. Lines of neither the old form (`<time> <id>`) nor
    /// the new are skipped and counted.
    @Test func reapplyDeletionsAloneDeletesWhomTheLedgersName() throws {
        let h = try Harness(config: Self.config)
        let s = try Self.story(h)
        // "Other means": the snapshot copied over the store while nothing runs.
        for suffix in ["-wal", "-shm", ""] { unlink(h.databasePath + suffix) }
        let copied = try ChildProcess.run("/bin/cp", arguments: [s.snapshot, h.databasePath], environment: [:], workDir: h.dir)
        #expect(copied.exitStatus == 0)
        #expect(try h.holds(s.deletedByPerson.accountId) && h.holds(s.deletedByOperator.accountId))
        #expect(try h.check(s.deletedByPerson.bearer).status == 200, "the copy brought the session back")
        let extra = h.dir + "/other-box.ledger"
        // The other box's line for the same person, and one for an id nobody has.
        try h.writeText(extra, "1700000000 \(s.deletedByOperator.accountId)\n1700000001 AAAAAAAAAAAAAAAAAAAAAA\n")
        let run = try h.admin(["reapply-deletions", h.dir + "/deletions.ledger", extra])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.json["deletionsReapplied"] == 2 && run.json["ledgerLines"] == 4, "\(run.json)")
        #expect(run.json["unreadableLines"] == 0 && run.json["withdrawnLines"] == 0 && run.json["reapplied"]?["deletions"] == 2)
        #expect(run.audit.first?.hasSuffix("result=ok count=2") == true, "\(run.audit)")
        try Self.expectRestored(h, s)
        let again = try h.admin(["reapply-deletions", h.dir + "/deletions.ledger"])
        #expect(again.json["deletionsReapplied"] == 0)
        try h.writeText(extra, "not a ledger line\n\(s.kept.accountId)\n")
        let torn = try h.admin(["reapply-deletions", extra])
        #expect(torn.json["deletionsReapplied"] == 0 && torn.json["ledgerLines"] == 0 && torn.json["unreadableLines"] == 2)
        #expect(try h.holds(s.kept.accountId))
    }
}
