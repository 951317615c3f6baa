#if canImport(Glibc)
import Glibc
#endif
import DevSupport
@testable import Shared
import Testing

/// A new store's first crowd (issue 44): twenty first sign-ins at once on a store that does not
/// exist yet (a new box, the first minutes after `make install`) used to answer 503 after the
/// whole busy time-out, all but a few, as the processes making the store and its session file
/// waited on each other's locks. One process at a time now makes or migrates them (`SetupLock`
/// on SQLite, the migrations' advisory lock on PostgreSQL) and the others find the work done.
@Suite struct FirstCrowdTests {
    /// `count` Google sign-ins of new people, started at once; their answers.
    static func crowd(_ h: Harness, _ tag: String, count: Int = 20) throws -> [CGIAnswer] {
        finish(try start(h, tag, count: count))
    }

    typealias Started = (pid: Int32, stdoutPath: String, stderrPath: String)

    /// `count` Google sign-ins of new people started at once, not waited for.
    static func start(_ h: Harness, _ tag: String, count: Int) throws -> [Started] {
        try (0..<count).map { i in
            let token = try h.google.token(sub: "\(tag)-\(i)", email: "\(tag).\(i)@gmail.com")
            let body = Array(JSONValue.object([("idToken", .string(token))]).serialized.utf8)
            Harness.registerSecrets(of: body, authorization: nil)
            let env = h.environment(
                method: "POST", contentType: "application/json", contentLength: body.count, authorization: nil, extra: [:])
            return try ChildProcess.start(Harness.binDir + "/signin-google", environment: env, stdin: body, workDir: h.dir)
        }
    }

    static func finish(_ started: [Started]) -> [CGIAnswer] {
        started.compactMap { CGIAnswer.parse(ChildProcess.finish(pid: $0.pid, stdoutPath: $0.stdoutPath, stderrPath: $0.stderrPath)) }
    }

    @Test func twentyFirstSignInsOnANewStoreAllSucceed() throws {
        let h = try Harness()
        if h.postgres == nil { #expect(access(h.databasePath, F_OK) != 0, "the store is not there yet") }
        let answers = try Self.crowd(h, "first-crowd")
        #expect(answers.count == 20)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map { "\($0.status) \($0.stderr)" })")
        #expect(try h.count("accounts") == 20)
        #expect(try StoreInvariants.violations(h.database()) == [])
    }

    /// Twenty while a migration runs (a new version copied onto a busy box): the store is a
    /// version behind; the first sign-in holds the migration with everything
    /// done but its commit (SQLite: the set-up lock and the write lock; PostgreSQL: the advisory
    /// lock and the altered tables) past the 5 s busy time-out while nineteen more start. Let go,
    /// every one of the twenty answers 200 and the store is at this code's version. Both engines.
    @Test func twentyWhileAMigrationRunsAllSucceed() throws {
        let h = try Harness()
        let behind = Database.schemaVersion - 1
        if let postgres = h.postgres {
            _ = try Database(postgres: postgres.url(through: h.bouncer), boxPath: h.databasePath, upTo: behind)
        } else {
            _ = try Database(path: h.databasePath, upTo: behind)
        }
        let token = try h.google.token(sub: "migrator", email: "migrator@gmail.com")
        let held = try HeldRequest(
            h, "signin-google", json: JSONValue.object([("idToken", .string(token))]).serialized, holdAt: "migrating")
        try held.waitUntilHeld()
        let started = try Self.start(h, "during", count: 19)
        usleep(6_000_000)
        let first = try held.release()
        #expect(first.status == 200, "\(first.rawBody) \(first.stderr)")
        let answers = Self.finish(started)
        #expect(answers.count == 19)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map { "\($0.status) \($0.stderr)" })")
        #expect(try h.count("accounts") == 20)
        #expect(try StoreInvariants.violations(h.database()) == [])
    }

    /// The same twenty while the store is being made: the first holds the set-up (its lock taken,
    /// nothing made yet) past the busy time-out while the nineteen others start; let go, it makes
    /// the store and every one of them then answers 200. (SQLite's set-up lock.)
    @Test func twentyWhileTheStoreIsBeingMadeAllSucceed() throws {
        let h = try Harness()
        guard h.postgres == nil else { return }
        let token = try h.google.token(sub: "maker", email: "maker@gmail.com")
        let held = try HeldRequest(
            h, "signin-google", json: JSONValue.object([("idToken", .string(token))]).serialized, holdAt: "setup-locked")
        try held.waitUntilHeld()
        let started = try Self.start(h, "waiting", count: 19)
        // Longer than the 5 s busy time-out the processes used to fail at.
        usleep(6_000_000)
        let first = try held.release()
        #expect(first.status == 200, "\(first.rawBody) \(first.stderr)")
        let answers = Self.finish(started)
        #expect(answers.count == 19)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map { "\($0.status) \($0.stderr)" })")
        #expect(try h.count("accounts") == 20)
    }
}
