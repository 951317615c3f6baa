#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// docs/events.md's Python receiver, exactly as printed there, against the real programs: it
/// verifies what they send, applies each event once, refuses a bad signature, deletes the app's
/// data of a deleted account, bounds what it reads, and serves others while a client stalls. python3 is one of the packages `make deps` installs; without
/// it the test fails, never skips.
@Suite struct EventsDocsTests {
    static let python: String? = {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where access("\(dir)/python3", X_OK) == 0 { return "\(dir)/python3" }
        return nil
    }()

    /// The first fenced block of `language` in docs/events.md.
    static func example(_ language: String) throws -> String {
        let text = String(decoding: FileIO.readFile(Stack.root + "/docs/events.md") ?? [], as: UTF8.self)
        let fence = "```" + language + "\n"
        guard let start = text.firstRange(of: fence)?.upperBound,
            let end = text[start...].firstRange(of: "```")?.lowerBound
        else { throw HarnessError("docs/events.md has no \(language) block") }
        return String(text[start..<end])
    }

    /// A connection that sent a request's head announcing `contentLength` bytes, and no body.
    static func stalledClient(port: Int, path: String, contentLength: Int) throws -> Int32 {
        let fd = try RawHTTP.connect(port: port)
        FileIO.writeAll(fd, Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(contentLength)\r\n\r\n".utf8))
        return fd
    }

    @Test func thePythonReceiverOfTheDocsTakesWhatTheProgramsSend() throws {
        try #require(Self.python != nil, "python3 is not on PATH (make deps installs it)")
        let h = try Harness()
        let events = try EventsFixture(h, settings: EventsFixture.quick)
        try h.writeText(h.dir + "/receiver.py", try Self.example("python"))
        let port = try Stack.freePort()
        let appDatabase = h.dir + "/app.sqlite3"
        let env = ["PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"]
        let receiver = try ChildProcess.start(
            Self.python ?? "python3", arguments: [h.dir + "/receiver.py", String(port), events.secretPath, appDatabase],
            environment: env, workDir: h.dir)
        defer {
            kill(receiver.pid, SIGKILL)
            _ = ChildProcess.finish(pid: receiver.pid, stdoutPath: receiver.stdoutPath, stderrPath: receiver.stderrPath)
        }
        let url = "http://127.0.0.1:\(port)/frontdoor/events"
        let client = CurlHTTPClient(totalTimeoutSeconds: 5)
        let started = Clock.monotonicMillis()
        while (try? client.send(HTTPRequest(method: "POST", url: url))) == nil && Clock.monotonicMillis() - started < 10_000 {
            usleep(50_000)
        }
        try h.writeConfig([("events", .object([("url", .string(url)), ("secretFile", .string(events.secretPath))] + EventsFixture.quick))])

        // Issue 19: a client that announces a body and never sends it holds up nobody (a thread per
        // connection), and a body past the bound is refused before it is read.
        let stalled = try Self.stalledClient(port: port, path: "/frontdoor/events", contentLength: 100)
        defer { close(stalled) }
        let huge = try RawHTTP.exchange(
            port: port, method: "POST", path: "/frontdoor/events", headers: ["Content-Length: 10000000"])
        #expect(huge.status == 413)
        let garbled = try RawHTTP.exchange(
            port: port, method: "POST", path: "/frontdoor/events", headers: ["Content-Length: a lot"])
        #expect(garbled.status == 400)

        let made = try h.signInGoogle(try h.google.token(sub: "g-doc", email: "doc@gmail.com"))
        let accountId = try #require(made.body["accountId"]?.stringValue, "\(made.rawBody)")
        #expect(try h.count("events") == 0, "the receiver answered 204")
        func sql(_ statement: String) throws -> String {
            let run = try ChildProcess.run(
                Self.python ?? "python3",
                arguments: ["-c", "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); r=db.execute(sys.argv[2]).fetchall(); db.commit(); print(r)",
                            appDatabase, statement],
                environment: env, workDir: h.dir)
            return run.stdoutText.trimmingWhitespace()
        }
        #expect(try sql("SELECT count(*) FROM events_seen") == "[(1,)]")

        // A bad signature is refused; the same event again is taken and applied no second time.
        let body = Array(#"{"id":"replayed-id-000000000","type":"account.created","accountId":"x","occurredAt":"2026-01-01T00:00:00Z","providers":[]}"#.utf8)
        let now = Clock.now()
        func post(_ secret: [UInt8]) throws -> Int {
            try client.send(HTTPRequest(method: "POST", url: url, headers: [
                ("Content-Type", "application/json"),
                ("Frontdoor-Signature", EventSignature.header(body: body, secret: secret, time: now)),
            ], body: body)).status
        }
        #expect(try post(Array("not-the-secret-but-at-least-32-bytes-long".utf8)) == 401)
        #expect(try post(events.secret) == 204)
        #expect(try post(events.secret) == 204)
        #expect(try sql("SELECT count(*) FROM events_seen") == "[(2,)]")

        // The app keeps notes; the account's deletion takes them.
        _ = try sql("INSERT INTO notes VALUES ('\(accountId)', 'a note'), ('someone-else', 'kept')")
        let session = try #require(made.body["sessionToken"]?.stringValue)
        #expect(try h.run("delete-account", json: "{}", authorization: "Bearer \(session)").status == 200)
        #expect(try h.count("events") == 0)
        #expect(try sql("SELECT account_id FROM notes") == "[('someone-else',)]")
        kill(receiver.pid, SIGKILL)
        usleep(100_000)
        let out = String(decoding: FileIO.readFile(receiver.stdoutPath) ?? [], as: UTF8.self)
        #expect(out.contains("event account.created \(accountId) ['google']"), "\(out)")
        #expect(out.contains("event account.deleted \(accountId) ['google']"), "\(out)")
        #expect(out.split(separator: "\n").filter { $0 == "event account.created x []" }.count == 1,
                "the replayed id was applied once: \(out)")
    }
}
