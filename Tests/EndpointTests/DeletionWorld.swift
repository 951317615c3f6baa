#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// An `AppleWorld` set up for `delete-account`: a short process ceiling (8 s) and outbound
/// timeouts (2 s), and in direct mode Apple's token and revoke endpoints with a team key on disk.
final class DeletionWorld: @unchecked Sendable {
    static let processLifetime: Int64 = 8
    static let teamId = "TEAM123456"

    let w: AppleWorld
    var h: Harness { w.h }
    var apple: FakeApple { w.apple }
    var firebase: FakeFirebase { w.firebase }

    init(mode: String = "relay", config extra: [(String, JSONValue)] = []) throws {
        w = try AppleWorld(mode: mode)
        var members: [(String, JSONValue)] = [("processLifetimeSeconds", .number(Double(Self.processLifetime)))]
        if mode == "direct" {
            let key = try TestKeys.p256("team-key-1")
            apple.setTeam(FakeApple.Team(teamId: Self.teamId, key: key))
            let keyFile = h.dir + "/AuthKey_team-key-1.p8"
            try h.writeText(keyFile, try key.privateKeyPEM())
            members += [
                ("firebase", nil),
                ("apple", .object([
                    ("bundleIds", .array([.string(FakeApple.bundleId)])), ("mode", "direct"),
                    ("keysUrl", .string(apple.keysURL)), ("tokenUrl", .string(apple.tokenURL)),
                    ("revokeUrl", .string(apple.revokeURL)), ("teamId", .string(Self.teamId)),
                    ("keyId", .string(key.kid)), ("privateKeyFile", .string(keyFile)),
                ])),
            ]
        }
        try w.writeConfig(members + extra)
    }

    /// Signs in with Apple as `sub`; the session token and account id.
    func appleAccount(_ sub: String, email: String? = nil, name: String? = nil) throws -> Account {
        let nonce = AppleWorld.nonce()
        let token = try apple.token(sub: sub, rawNonce: nonce, email: email)
        return try account(try w.signIn(token, nonce: nonce, givenName: name))
    }

    func googleAccount(_ sub: String, email: String? = nil) throws -> Account {
        try account(try h.signInGoogle(try h.google.token(sub: sub, email: email)))
    }

    typealias Account = (session: String, id: String)

    private func account(_ answer: CGIAnswer) throws -> Account {
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        let session = try #require(answer.body["sessionToken"]?.stringValue)
        return (session, try #require(answer.body["accountId"]?.stringValue))
    }

    /// What the phone sends after a fresh Apple authorization as `sub`; `codeHashOf` puts another
    /// code's `c_hash` in the token.
    func freshBody(sub: String, code: String? = nil, codeHashOf: String? = nil, token: String? = nil,
                   nonce: String? = nil) throws -> (body: String, code: String) {
        let code = try code ?? apple.issueCode(sub: sub)
        let raw = nonce ?? AppleWorld.nonce()
        let idToken = try token ?? apple.token(sub: sub, rawNonce: raw, code: codeHashOf ?? code)
        let body = JSONValue.object([
            ("appleAuthorizationCode", .string(code)), ("appleIdentityToken", .string(idToken)),
            ("appleRawNonce", .string(raw)),
        ]).serialized
        return (body, code)
    }

    /// Runs delete-account to its exit (work after the answer included).
    func delete(_ session: String?, body: String = "{}") throws -> CGIAnswer {
        try h.run("delete-account", json: body, authorization: session.map { "Bearer \($0)" })
    }

    struct Timed {
        let answer: CGIAnswer
        /// From the start of the process to its stdout being closed.
        let answerMillis: Double
        /// Whether the account was already gone when the answer had arrived.
        let goneAtAnswer: Bool
        let exitStatus: Int32
        let exitMillis: Double
    }

    /// Runs delete-account, reading the answer as soon as stdout closes, then waits for the exit.
    func deleteTimed(_ session: String, body: String, accountId: String) throws -> Timed {
        let bytes = Array(body.utf8)
        Harness.registerSecrets(of: bytes, authorization: "Bearer \(session)")
        let env = h.environment(
            method: "POST", contentType: "application/json", contentLength: bytes.count,
            authorization: "Bearer \(session)", extra: [:])
        let started = Clock.monotonicMillis()
        let child = try ChildProcess.startPiped(
            Harness.binDir + "/delete-account", environment: env, stdin: bytes, workDir: h.dir)
        let out = ChildProcess.readToEnd(child.stdout)
        let answered = Clock.monotonicMillis() - started
        let gone = try h.database().query("SELECT count(*) FROM accounts WHERE id = ?", [.text(accountId)])
            .first?.int(0) == 0
        let status = ChildProcess.wait(pid: child.pid)
        let exited = Clock.monotonicMillis() - started
        let err = FileIO.readFile(child.stderrPath) ?? []
        unlink(child.stderrPath)
        guard let answer = CGIAnswer.parse(ChildProcess.Result(exitStatus: status, stdout: out, stderr: err)) else {
            throw HarnessError("delete-account did not answer CGI: \(String(decoding: out, as: UTF8.self))")
        }
        return Timed(answer: answer, answerMillis: answered, goneAtAnswer: gone, exitStatus: status, exitMillis: exited)
    }

    /// The one revocation row: state, detail, and whether any secret is still kept.
    func revocationRow() throws -> (state: String?, detail: String?, keepsSecrets: Bool) {
        let rows = try h.database().query(
            """
            SELECT state, detail, code IS NOT NULL OR id_token IS NOT NULL OR refresh_token IS NOT NULL
            FROM apple_revocations
            """)
        #expect(rows.count == 1)
        return (rows.first?.text(0), rows.first?.text(1), rows.first?.int(2) == 1)
    }

    /// Firebase paths asked for since `mark` requests.
    func firebasePaths(after mark: Int) -> [String] { Array(w.firebasePaths.dropFirst(mark)) }

    /// The whole database as bytes: the file and its WAL.
    /// The store's files on disk: its own and its WAL, and the session file's (`SessionFile`).
    func storeBytes() -> [UInt8] {
        ["", "-wal", "-sessions", "-sessions-wal"].flatMap { FileIO.readFile(h.databasePath + $0, limit: 64 << 20) ?? [] }
    }
}

extension Array where Element == UInt8 {
    func contains(_ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard !needle.isEmpty, needle.count <= count else { return false }
        for start in 0...(count - needle.count) where self[start] == needle[0] {
            if Array(self[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }
}
