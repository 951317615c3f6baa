#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 35: the session check, nginx's (behind every protected route of the app) and the phone's
/// (with the account's view, once built), parses the session file's schema and nothing else
/// (`SessionFile`, `AccountView`). Counted by callgrind, whose counts are the same at every run:
/// the schema objects SQLite reads at the first statement, and the instructions of that read.
/// Either grows if the check's file gains what the checks do not read, or a check opens the store
/// again (its 28 objects cost about 0.6 M).
@Suite struct CheckSchemaCostTests {
    /// The sessions' table and its three indexes, the account views' table, and the schema tables
    /// of `main` and `temp` themselves, which SQLite builds through the same callback.
    static let objects = 5 + 2
    /// sqlite3Init, inclusive, as measured for those (0.149 M, the same in debug and release
    /// builds: SQLite is built alone, `scripts/sqlite-deps`), with room for SQLite's own changes;
    /// the store's schema parsed beside it would cost about 0.7 M more.
    static let initBound = 200_000

    @Test(arguments: [true, false]) func theCheckParsesTheSessionFilesSchemaAlone(_ headersOnly: Bool) throws {
        let valgrind = "/usr/bin/valgrind"
        try #require(access(valgrind, X_OK) == 0, "make deps installs valgrind")
        let h = try Harness()
        let me = try h.signedIn("g-cost")
        let answer = headersOnly ? SessionCheckTests.headersOnly : [:]
        // A first check empties the WAL the sign-in left, as every later check finds it (the
        // phone's first one builds the account's view).
        #expect(try h.check(me.bearer, extraEnvironment: answer).status == 200)
        // valgrind 3.19 gives up on the DWARF 5 that clang writes; the counts need no debug sections.
        let stripped = h.dir + "/session.stripped"
        let strip = try ChildProcess.run(
            "/usr/bin/objcopy", arguments: ["--strip-debug", Harness.binDir + "/session", stripped], environment: [:],
            workDir: h.dir)
        try #require(strip.exitStatus == 0, "\(strip.stderrText)")
        let out = h.dir + "/check.cg"
        var env = h.environment(
            method: "GET", contentType: nil, contentLength: nil, authorization: me.bearer, extra: answer)
        env["PATH"] = "/usr/bin:/bin"
        let run = try ChildProcess.run(
            valgrind, arguments: ["--tool=callgrind", "--callgrind-out-file=" + out, stripped], environment: env,
            workDir: h.dir)
        #expect(run.stdoutText.contains("X-Frontdoor-Session: \(me.sessionId)"), "\(run.stdoutText) \(run.stderrText)")
        #expect(headersOnly || run.stdoutText.contains("\"providers\":[\"google\"]"), "\(run.stdoutText)")
        let profile = String(decoding: FileIO.readFile(out, limit: 64 << 20) ?? [], as: UTF8.self)
        let parsed = Self.calls(to: "sqlite3InitCallback", in: profile)
        #expect(parsed == Self.objects, "schema objects parsed by the check")
        let annotate = try ChildProcess.run(
            "/usr/bin/callgrind_annotate", arguments: ["--inclusive=yes", out], environment: ["PATH": "/usr/bin:/bin"],
            workDir: h.dir)
        let initCost = try #require(Self.inclusive("sqlite3Init", in: annotate.stdoutText), "\(annotate.stdoutText.prefix(2000))")
        print("CheckSchemaCostTests: \(parsed) schema objects, sqlite3Init \(initCost) instructions (bound \(Self.initBound))")
        #expect(initCost < Self.initBound)
    }

    /// How many times `function` is called in a callgrind profile: its `calls=` lines under
    /// `cfn=` lines that name it (by name, or by the number callgrind's name compression gave it).
    static func calls(to function: String, in profile: String) -> Int {
        var ids: Set<String> = []
        var total = 0
        var calling = false
        for line in profile.split(separator: "\n") {
            if line.hasPrefix("fn=") || line.hasPrefix("cfn=") {
                let rest = line.drop { $0 != "=" }.dropFirst()
                let id = rest.hasPrefix("(") ? String(rest.prefix { $0 != ")" }) + ")" : ""
                let name = rest.hasPrefix("(") ? rest.drop { $0 != ")" }.dropFirst().drop { $0 == " " } : rest
                if name == function[...] || name.hasPrefix(function + " ") { ids.insert(id) }
                calling = line.hasPrefix("cfn=") && (name == function[...] || (!id.isEmpty && ids.contains(id)))
            } else if calling, line.hasPrefix("calls=") {
                total += Int(line.dropFirst("calls=".count).prefix { $0 != " " }) ?? 0
                calling = false
            }
        }
        return total
    }

    /// The inclusive count callgrind_annotate gives `function` (`1,234 (5.6%)  ???:function [...]`).
    static func inclusive(_ function: String, in report: String) -> Int? {
        for line in report.split(separator: "\n") where line.contains(":\(function) [") {
            let digits = line.drop { $0 == " " }.prefix { $0 != " " }.filter { $0 != "," }
            if let n = Int(digits) { return n }
        }
        return nil
    }
}
