#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 19, item 3: `frontdoor-check` run as root, the docs' last install step, made the database,
/// its WAL and the events hint owned by root, reported ✓, and then every request answered 500.
/// Every file made beside the database now belongs to the database's owner (before there is one,
/// its folder's), and the check says ✗ when they differ. The tests run as root (as `make test`
/// does in CI); the programs then run as another uid, as fcgiwrap's user would.
@Suite(.serialized) struct StoreOwnershipTests {
    /// The data folder's owner: a uid no account of the box has.
    static let programs: uid_t = 48_213

    struct World {
        let h: Harness
        let data: String
        var databasePath: String { data + "/frontdoor.sqlite3" }
    }

    /// A data folder owned by `programs`, 0750, and a config (with events to a receiver that is
    /// down, so an event waits and its hint stays) that `programs` can read.
    func world() throws -> World {
        try #require(geteuid() == 0, "this suite runs as root, as make test does in CI")
        let h = try Harness()
        let data = h.dir + "/data"
        #expect(mkdir(data, 0o750) == 0 && chown(data, Self.programs, Self.programs) == 0)
        let secret = h.dir + "/events-secret"
        let text = "ownership-events-secret-" + Hex.encode(try SecureRandom.bytes(16))
        try h.writeText(secret, text + "\n")
        TestLogs.register(text)
        // The programs' user cannot enter a checkout in root's home: it reads a copy of the list.
        let list = h.dir + "/common-passwords"
        let copied = try ChildProcess.run("/bin/cp", arguments: [PasswordListFile.built, list], environment: [:], workDir: h.dir)
        #expect(copied.exitStatus == 0, "\(copied.stderrText)")
        try h.writeConfig([
            ("databasePath", .string(data + "/frontdoor.sqlite3")),
            ("passwords", .object([("listFile", .string(list))])),
            ("events", .object([
                ("url", .string("http://127.0.0.1:\(try Stack.freePort())/events")), ("secretFile", .string(secret)),
                ("timeoutSeconds", 1),
            ])),
        ])
        // The test's own files are not what is under test: the programs' user may read them.
        #expect(chmod(h.dir, 0o755) == 0 && chmod(h.configPath, 0o644) == 0 && chmod(secret, 0o644) == 0
            && chmod(list, 0o644) == 0)
        return World(h: h, data: data)
    }

    func check(_ w: World, _ arguments: [String] = []) throws -> ChildProcess.Result {
        try ChildProcess.run(
            Harness.binDir + "/frontdoor-check",
            arguments: ["--config", w.h.configPath, "--routes", "ipv4=yes,ipv6=yes", "--timeout", "1"] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], workDir: w.h.dir)
    }

    /// `endpoint` run as `uid` (root, or the programs' user through setpriv).
    func run(_ w: World, _ endpoint: String, json: String, as uid: uid_t) throws -> CGIAnswer {
        let body = Array(json.utf8)
        Harness.registerSecrets(of: body, authorization: nil)
        let env = w.h.environment(
            method: "POST", contentType: "application/json", contentLength: body.count, authorization: nil, extra: [:])
        let program = Harness.binDir + "/" + endpoint
        let result = uid == 0
            ? try ChildProcess.run(program, environment: env, stdin: body, workDir: w.h.dir)
            : try ChildProcess.run(
                "/usr/bin/setpriv", arguments: ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", program],
                environment: env, stdin: body, workDir: w.h.dir)
        guard let answer = CGIAnswer.parse(result) else {
            throw HarnessError("\(endpoint) did not answer CGI: \(result.stdoutText) \(result.stderrText)")
        }
        return answer
    }

    /// Every file in the data folder, with its owner's uid.
    func owners(_ w: World) -> [String: uid_t] {
        var out: [String: uid_t] = [:]
        guard let dir = opendir(w.data) else { return out }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            if stat(w.data + "/" + name, &info) == 0 { out[name] = info.st_uid }
        }
        return out
    }

    @Test func filesMadeByRootBelongToTheDataFoldersOwnerAndTheProgramsKeepWorking() throws {
        let w = try world()
        // The install's last step, as root, on a fresh data folder.
        let first = try check(w)
        #expect(first.stdoutText.contains(
            "✓ database files: the database, its WAL, its shared memory, the session file, the session file's WAL, "
                + "the session file's shared memory owned by \(Self.programs):\(Self.programs), as their folder"),
            "\(first.stdoutText)")
        // A root request that makes the server key (a registration's limits) and leaves an event
        // waiting for a receiver that is down (the events hint).
        let registered = try run(
            w, "signin-email", json: #"{"action":"register","email":"root.made@example.org","password":"a long enough password 1"}"#,
            as: 0)
        #expect(registered.status == 201, "\(registered.rawBody)")
        let made = owners(w)
        for name in ["frontdoor.sqlite3", "frontdoor.sqlite3-wal", "frontdoor.sqlite3-shm", "frontdoor.sqlite3-events", "audit-key"] {
            #expect(made[name] == Self.programs, "\(name): \(made)")
        }
        #expect(made.values.allSatisfy { $0 == Self.programs }, "\(made)")

        // The programs, as the folder's owner, sign people in and write events, and the check agrees.
        let signedIn = try run(
            w, "signin-email", json: #"{"action":"register","email":"programs@example.org","password":"a long enough password 2"}"#,
            as: Self.programs)
        #expect(signedIn.status == 201, "\(signedIn.rawBody)")
        let again = try check(w)
        #expect(again.stdoutText.contains("✓ database files: the database, its WAL, its shared memory, the session file, "
            + "the session file's WAL, the session file's shared memory, the events hint, "
            + "the door's lock, the server key owned by \(Self.programs):\(Self.programs), as their folder"), "\(again.stdoutText)")
    }

    @Test func theCheckSaysWhenAFileBesideTheDatabaseHasAnotherOwner() throws {
        let w = try world()
        _ = try check(w)
        #expect(try run(
            w, "signin-email", json: #"{"action":"register","email":"stray@example.org","password":"a long enough password 3"}"#,
            as: Self.programs).status == 201)
        // A file root made before this fix: the programs could no longer move the hint.
        let hint = EventHint.path(databasePath: w.databasePath)
        #expect(chown(hint, 0, 0) == 0)
        var result = try check(w)
        #expect(result.exitStatus == 1)
        #expect(result.stdoutText.contains(
            "✗ database files: owned by another user than the database's \(Self.programs):\(Self.programs): "
                + "the events hint \(hint) (root:root)"), "\(result.stdoutText)")
        #expect(chown(hint, Self.programs, Self.programs) == 0)
        // The database itself made by root in a folder the programs own.
        #expect(chown(w.databasePath, 0, 0) == 0)
        result = try check(w)
        #expect(result.stdoutText.contains(
            "✗ database \(w.databasePath): owned by root:root, its folder by \(Self.programs):\(Self.programs)"),
            "\(result.stdoutText)")
    }
}
