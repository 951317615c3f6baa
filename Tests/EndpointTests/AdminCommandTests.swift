#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `frontdoor-admin`'s command line (issue 20): every command, every exit status (`sysexits.h`:
/// 0, 64, 66, 69, 70), every bad argument, one JSON object on stdout and a sentence on stderr
/// when it fails, and one audit line per action, without the address it was asked for.
@Suite struct AdminCommandTests {
    static let commands = [
        "find", "export", "disable", "enable", "sign-out", "delete", "unlink", "backup", "restore",
        "reapply-deletions", "stats",
    ]

    @Test func helpListsEveryCommand() throws {
        let h = try Harness()
        for flag in ["--help", "-h"] {
            let run = try h.admin([flag])
            #expect(run.status == 0)
            for command in Self.commands { #expect(run.stdout.contains("  \(command) "), "\(command)") }
            #expect(run.stdout.contains("--keep N"))
        }
    }

    /// Each bad command line: exit 64, `{"error": "usage"}`, a sentence on stderr, nothing done.
    @Test(arguments: [
        [], ["frobnicate"], ["find"], ["find", "a", "b"], ["export"], ["disable"], ["enable", "a", "b"], ["sign-out"],
        ["delete"], ["delete", "a", "b"], ["unlink", "a"], ["unlink", "a", "b", "c"], ["unlink", "a", "password"],
        ["backup"], ["backup", "d", "e"], ["backup", "d", "--keep"], ["backup", "d", "--keep", "0"],
        ["backup", "d", "--keep", "two"], ["restore"], ["restore", "a", "b"], ["reapply-deletions"], ["stats", "x"],
        ["stats", "--verbose"], ["find", ""], ["--config"],
    ])
    func aBadCommandLineIsAUsageError(_ arguments: [String]) throws {
        let h = try Harness()
        let made = try h.signedIn("g-usage", email: "usage@gmail.com")
        let before = try h.sessionRows()
        // "--config" alone: the harness's own --config comes first, so this one has no value.
        let run = try h.admin(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stdout) \(run.stderr)")
        #expect(run.error == "usage", "\(arguments): \(run.stdout)")
        #expect(run.json["message"]?.stringValue?.isEmpty == false)
        #expect(run.stderr.hasPrefix("frontdoor-admin: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(try h.sessionRows() == before)
        #expect(try h.holds(made.accountId))
        #expect(run.audit.isEmpty, "a usage error is no action")
    }

    /// 66 for every account command given an id or address nobody has, and for missing files.
    /// Account ids are base64url: one may begin with "-", and is an id, not an option.
    @Test func anIdThatBeginsWithADashIsAnId() throws {
        let h = try Harness()
        let dashed = "--4-nRNiUnhTl-DNohDMVQ"
        try h.database().run(
            "INSERT INTO accounts (id, password_hash, created_at) VALUES (?, 'x', ?)", [.text(dashed), .integer(Clock.now())])
        for command in ["find", "export", "sign-out"] {
            let run = try h.admin([command, dashed])
            #expect(run.status == 0, "\(command): \(run.stdout)")
        }
        let deleted = try h.admin(["delete", dashed])
        #expect(deleted.json["accountId"] == .string(dashed), "\(deleted.stdout)")
        #expect(h.ledgerLines.first?.hasSuffix(" \(dashed)") == true)
    }

    @Test func unknownAccountsAndMissingFilesAre66() throws {
        let h = try Harness()
        _ = try h.signedIn("g-known", email: "known@gmail.com")
        let nobody = "AAAAAAAAAAAAAAAAAAAAAA"
        for arguments in [
            ["find", nobody], ["find", "nobody@example.org"], ["export", nobody], ["disable", nobody], ["enable", nobody],
            ["sign-out", nobody], ["delete", nobody], ["unlink", nobody, "google"], ["backup", h.dir + "/no-such-folder"],
            ["restore", h.dir + "/no-such-snapshot"], ["reapply-deletions", h.dir + "/no-such-ledger"],
        ] {
            let run = try h.admin(arguments)
            if h.postgres != nil && ["backup", "restore"].contains(arguments[0]) {
                // SQLite's snapshots: refused on PostgreSQL, pointing at PostgreSQL's own backups.
                #expect(run.status == 64 && run.stderr.contains("PostgreSQL's own"), "\(arguments): \(run.stdout)")
                continue
            }
            #expect(run.status == 66, "\(arguments): \(run.stdout)")
            #expect(run.error == "not_found", "\(arguments)")
            #expect(!run.stderr.isEmpty)
        }
        // No config file at all: 66 too, for every command.
        let run = try h.admin(["stats"], config: h.dir + "/no-such-config.json")
        #expect(run.status == 66 && run.error == "not_found", "\(run.stdout)")
        #expect(try h.count("accounts") == 1 && h.ledgerLines.isEmpty)
    }

    /// 69: a snapshot that is not a database (or not a frontdoor store), and so not sealed by this
    /// box, is refused before the door closes, and before SQLite opens it; 70: a config that does not parse.
    @Test func refusalsAre69AndABrokenConfigIs70() throws {
        let h = try Harness()
        let me = try h.signedIn("g-refuse", email: "refuse@gmail.com")
        // Restores are SQLite's (a snapshot file): the last two parts hold on both engines.
        if h.postgres == nil { try Self.snapshotRefusals(h, me) }
        // Unlinking the last way in is refused.
        let last = try h.admin(["unlink", me.accountId, "google"])
        #expect(last.status == 69 && last.error == "unavailable", "\(last.stdout)")
        #expect(try h.count("identities") == 1)

        try h.writeText(h.dir + "/broken.json", "{ not json")
        let broken = try h.admin(["stats"], config: h.dir + "/broken.json")
        #expect(broken.status == 70 && broken.error == "internal", "\(broken.stdout)")
    }

    static func snapshotRefusals(_ h: Harness, _ me: SignedIn) throws {
        try h.writeText(h.dir + "/junk.sqlite3", "this is not a database, only text\n")
        let junk = try h.admin(["restore", h.dir + "/junk.sqlite3"])
        #expect(junk.status == 69 && junk.error == "unavailable", "\(junk.stdout)")
        // Refused for its missing seal before SQLite parses it (the fourth review's T5-12): no
        // "not a database", which only SQLite's parse could say.
        #expect(junk.stderr.contains("has no junk.sqlite3.mac beside it") && !junk.stderr.contains("not a database"),
                "\(junk.stderr)")
        // An SQLite file, but not a store of ours.
        let made = try ChildProcess.run("/usr/bin/python3", arguments: ["-c", """
            import sqlite3; c = sqlite3.connect('\(h.dir)/plain.sqlite3'); c.execute('create table t(x)'); c.commit()
            """], environment: [:], workDir: h.dir)
        #expect(made.exitStatus == 0, "\(made.stderrText)")
        let plain = try h.admin(["restore", h.dir + "/plain.sqlite3"])
        #expect(plain.status == 69 && plain.json["message"]?.stringValue?.contains("has no plain.sqlite3.mac beside it") == true,
                "\(plain.stdout)")
        // Nothing changed: the door stayed open, the person is still signed in.
        #expect(!Door.isClosed(h.databasePath))
        #expect(try h.check(me.bearer).status == 200)
    }

    /// Each action leaves exactly one line: action, account id, uid, SUDO_USER, result; never the
    /// address `find` was asked for, and a `SUDO_USER` that could bend the line is shown as `?`.
    @Test func eachActionWritesOneAuditLineWithoutTheAddress() throws {
        let h = try Harness()
        let email = "Audited.Person@gmail.com"
        TestLogs.register(email)
        let me = try h.signedIn("g-audited", email: email)
        let found = try h.admin(["find", email.uppercased()])
        #expect(found.status == 0)
        #expect(found.audit == ["frontdoor-admin action=find account=\(me.accountId) uid=\(getuid()) sudoUser=ops-person result=ok"])
        for line in found.audit { #expect(!line.lowercased().contains("audited.person")) }
        let missing = try h.admin(["find", "someone.else@example.org"])
        #expect(missing.audit == ["frontdoor-admin action=find account=- uid=\(getuid()) sudoUser=ops-person result=not_found"])
        let bent = try h.admin(["stats"], environment: ["SUDO_USER": "evil result=ok\nfrontdoor-admin action=forged"])
        #expect(bent.audit == ["frontdoor-admin action=stats account=- uid=\(getuid()) sudoUser=? result=ok"], "\(bent.audit)")
        let disabled = try h.admin(["disable", me.accountId])
        #expect(disabled.audit == ["frontdoor-admin action=disable account=\(me.accountId) uid=\(getuid()) sudoUser=ops-person result=ok"])
        let typo = try h.admin(["export", email])
        #expect(typo.status == 66)
        #expect(typo.audit == ["frontdoor-admin action=export account=? uid=\(getuid()) sudoUser=ops-person result=not_found"])
    }

    /// While a restore holds the door closed, every command but `restore` and `reapply-deletions`
    /// refuses with 69 and touches nothing (the store may not even be in its place).
    @Test func aClosedDoorIsRefusedByEveryOtherCommand() throws {
        let h = try Harness()
        let me = try h.signedIn("g-closed", email: "closed@gmail.com")
        _ = try Door.close(h.databasePath, now: Clock.now())
        mkdir(h.dir + "/backups", 0o700)
        for arguments in [
            ["find", me.accountId], ["export", me.accountId], ["disable", me.accountId], ["enable", me.accountId],
            ["sign-out", me.accountId], ["delete", me.accountId], ["unlink", me.accountId, "google"],
            ["backup", h.dir + "/backups"], ["stats"],
        ] {
            let run = try h.admin(arguments)
            #expect(run.status == 69 && run.error == "unavailable", "\(arguments): \(run.stdout)")
            #expect(run.json["message"]?.stringValue?.contains("door is closed") == true)
        }
        #expect(try Files.list(h.dir + "/backups").isEmpty)
        #expect(h.ledgerLines.isEmpty)
        try Door.open(h.databasePath)
        #expect(try h.check(me.bearer).status == 200)
    }
}
