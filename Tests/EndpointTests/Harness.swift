#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// One test's world: a temporary folder, a fake Google and an SMTP sink on loopback, a config naming
/// them, and the built CGI programs run as real processes. The store is an SQLite file in the
/// folder, or on the PostgreSQL pass (`TestStore`) a database of the test's own.
final class Harness: @unchecked Sendable {
    let dir: String
    let google: FakeGoogle
    let smtp: SMTPSink
    /// The test's PostgreSQL database on the PostgreSQL pass, else nil.
    let postgres: TestPostgresDatabase?
    /// A second box's own pgbouncer; nil: the shared pair's.
    let bouncer: PostgresServers.Pair?
    /// The second box of a two-box test shares the first's fakes, and leaves them running.
    private let ownsFakes: Bool
    var configPath: String { dir + "/config.json" }
    /// The SQLite file; on PostgreSQL the stem of the box's own files (the events hint, the door's
    /// lock), `frontdoor-box` beside the ledger, as `Config` makes it.
    var databasePath: String { dir + (postgres == nil ? "/frontdoor.sqlite3" : "/" + Config.boxFilesStem) }
    /// The deletion ledger: the default beside the SQLite file, named in the config on PostgreSQL.
    var ledgerPath: String { dir + "/deletions.ledger" }
    /// The clock the programs' rate limits count in (`FRONTDOOR_TEST_LIMITS_NOW`, debug builds): a
    /// moment that stands still, so the windows a test fills never end under it whenever it runs.
    /// The start of a day two days ahead: every window begins there, and no window's row expires
    /// (by the wall clock) while the test runs. A test that waits a window out moves it instead.
    var limitsNow: UnixTime = (Clock.now() / 86_400 + 2) * 86_400

    /// Where the built executables are: `FRONTDOOR_BIN_DIR` (set by `make test`), else beside the test bundle.
    static let binDir: String = {
        if let dir = getenv("FRONTDOOR_BIN_DIR").map({ String(cString: $0) }), !dir.isEmpty { return dir }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let exe = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
        return String(exe[..<(exe.lastIndex(of: "/") ?? exe.endIndex)])
    }()

    /// `postgres`: the store on PostgreSQL whichever pass runs (the two-box and restart tests), on
    /// `pair` (a test's own servers) or the shared ones.
    init(
        keys: [SigningKey]? = nil, config extra: [(String, JSONValue)] = [], postgres: Bool = TestStore.isPostgres,
        pair: PostgresServers.Pair? = nil
    ) throws {
        dir = try Harness.makeFolder()
        self.postgres = postgres || pair != nil ? try TestPostgresDatabase(pair: pair) : nil
        bouncer = nil
        ownsFakes = true
        google = try FakeGoogle(keys: keys ?? [try TestKeys.rsa()])
        smtp = try SMTPSink()
        if self.postgres != nil { try writeText(auditKeyPath, Hex.encode(try SecureRandom.bytes(32)) + "\n") }
        try writeConfig(extra)
    }

    /// Another box of `first`'s: a folder of its own (its ledger, key cache, events hint), the same
    /// PostgreSQL database reached through `bouncer` (that box's own pgbouncer), the same fakes,
    /// and the same config otherwise: the audit key and the events secret every box holds alike.
    init(secondBoxOf first: Harness, through bouncer: PostgresServers.Pair) throws {
        guard let postgres = first.postgres else { throw HarnessError("a second box needs the PostgreSQL store") }
        dir = try Harness.makeFolder()
        self.postgres = postgres
        self.bouncer = bouncer
        ownsFakes = false
        google = first.google
        smtp = first.smtp
        limitsNow = first.limitsNow
        let firstConfig = try JSONParser.parse(FileIO.readFile(first.configPath) ?? [])
        guard case .object(var members) = firstConfig else { throw HarnessError("\(first.configPath) is no object") }
        members.removeAll { $0.0 == "postgresUrl" }
        members.append(("postgresUrl", .string(postgres.url(through: bouncer).description)))
        if let index = members.firstIndex(where: { $0.0 == "deletion" }), case .object(var section) = members[index].1 {
            section.removeAll { $0.0 == "ledgerFile" }
            section.append(("ledgerFile", .string(ledgerPath)))
            members[index].1 = .object(section)
        }
        try writeText(configPath, JSONValue.object(members).serialized)
    }

    deinit {
        if ownsFakes {
            google.server.stop()
            smtp.stop()
        }
        _ = ChildProcess.removeTree(dir)
    }

    private static func makeFolder() throws -> String {
        var template = Array("/tmp/frontdoor-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed") }
        return String(cString: made)
    }

    /// The kit's page as the notices link to it (`mail.pageUrl`).
    static let pageUrl = "https://example.com/auth/kit/"

    func writeConfig(_ extra: [(String, JSONValue)] = []) throws {
        var members: [(String, JSONValue)] = storeMembers() + [
            ("development", true),
            ("google", .object([
                ("clientIds", .array([.string(FakeGoogle.clientId), "second-app.apps.googleusercontent.com"])),
                ("certsUrl", .string(google.certsURL)),
            ])),
            // No wait before a reset mail (mail.resetDelaySeconds): the tests read the code at once.
            ("mail", .object([
                ("smtpUrl", .string(smtp.url)), ("from", "frontdoor-test@localhost"), ("timeoutSeconds", 3),
                ("resetDelaySeconds", 0), ("pageUrl", .string(Self.pageUrl)),
            ])),
            // The suites not about passwords set short ones ("the old password"): 8, the least the
            // config takes. PasswordRulesTests gives its own section, without minLength (15).
            ("passwords", .object([("minLength", 8)])),
        ]
        for (name, value) in extra {
            members.removeAll { $0.0 == name }
            if !value.isNull { members.append((name, withLedger(name, value))) }
        }
        members = members.map { $0.0 == "passwords" ? ($0.0, Self.withPasswordList($0.1)) : $0 }
        try writeText(configPath, JSONValue.object(members).serialized)
    }

    /// Where the audit key is: made beside the SQLite file on first use; on PostgreSQL a file the
    /// config names, as every box holds the same one (`Harness.init` writes it).
    var auditKeyPath: String { dir + "/audit-key" }

    /// The store's keys: `databasePath`, or on PostgreSQL `postgresUrl`, the box's ledger file and
    /// the shared audit key.
    func storeMembers() -> [(String, JSONValue)] {
        guard let postgres else { return [("databasePath", .string(databasePath))] }
        return [
            ("postgresUrl", .string(postgres.url(through: bouncer).description)),
            ("deletion", .object([("ledgerFile", .string(ledgerPath)), ("auditKeyFile", .string(auditKeyPath))])),
        ]
    }

    /// Every config names the list `make deps` built (the test binaries are not installed beside
    /// it), unless the test names another.
    static func withPasswordList(_ value: JSONValue) -> JSONValue {
        guard case .object(var section) = value, !section.contains(where: { $0.0 == "listFile" }) else { return value }
        section.append(("listFile", .string(PasswordListFile.built)))
        return .object(section)
    }

    /// A test's own `deletion` section keeps the ledger file and audit key PostgreSQL requires.
    private func withLedger(_ name: String, _ value: JSONValue) -> JSONValue {
        guard postgres != nil, name == "deletion", case .object(var section) = value else { return value }
        for (key, path) in [("ledgerFile", ledgerPath), ("auditKeyFile", auditKeyPath)]
        where !section.contains(where: { $0.0 == key }) {
            section.append((key, .string(path)))
        }
        return .object(section)
    }

    func writeText(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw HarnessError("cannot write \(path)") }
        FileIO.writeAll(fd, Array(text.utf8))
        close(fd)
    }

    func environment(
        method: String, contentType: String?, contentLength: Int?, authorization: String?, extra: [String: String]
    ) -> [String: String] {
        var env: [String: String] = [
            "REQUEST_METHOD": method, "AUTH_CONFIG": configPath, "REMOTE_ADDR": "127.0.0.1",
            "GATEWAY_INTERFACE": "CGI/1.1", "PATH": "/usr/bin:/bin", "FRONTDOOR_TEST_LIMITS_NOW": String(limitsNow),
            "FRONTDOOR_TEST_STRICT_VIEWS": "1",
        ]
        if let contentType { env["CONTENT_TYPE"] = contentType }
        if let contentLength { env["CONTENT_LENGTH"] = String(contentLength) }
        if let authorization { env["HTTP_AUTHORIZATION"] = authorization }
        for (k, v) in TestLogs.childEnvironment { env[k] = v }
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// Pipes one CGI request into the built program `endpoint` and parses its answer.
    func run(
        _ endpoint: String, body: [UInt8], method: String = "POST", contentType: String? = "application/json",
        contentLength: Int? = nil, authorization: String? = nil, extraEnvironment: [String: String] = [:]
    ) throws -> CGIAnswer {
        let env = environment(
            method: method, contentType: contentType, contentLength: contentLength ?? body.count,
            authorization: authorization, extra: extraEnvironment)
        Harness.registerSecrets(of: body, authorization: authorization)
        let result = try ChildProcess.run(Harness.binDir + "/" + endpoint, environment: env, stdin: body, workDir: dir)
        guard let answer = CGIAnswer.parse(result) else {
            throw HarnessError("\(endpoint) did not answer CGI (exit \(result.exitStatus)): \(result.stdoutText) \(result.stderrText)")
        }
        return answer
    }

    /// What a request carried that no log may hold, for the log scan after `make test`: passwords,
    /// addresses, tokens, nonces, codes from Apple (the six-digit mailed codes are too short to
    /// scan for without matching by chance).
    static func registerSecrets(of body: [UInt8], authorization: String?) {
        guard TestLogs.directory != nil else { return }
        if let bearer = authorization?.split(separator: " ").last { TestLogs.register(String(bearer)) }
        guard let json = try? JSONParser.parse(body) else { return }
        for name in [
            "password", "email", "idToken", "identityToken", "rawNonce", "ticket", "appleAuthorizationCode",
            "appleIdentityToken", "appleRawNonce", "currentPassword", "newPassword", "newEmail",
        ] {
            TestLogs.register(json[name]?.stringValue)
        }
    }

    func run(_ endpoint: String, json: String, authorization: String? = nil) throws -> CGIAnswer {
        try run(endpoint, body: Array(json.utf8), authorization: authorization)
    }

    func signInGoogle(_ token: String) throws -> CGIAnswer {
        try run("signin-google", json: JSONValue.object([("idToken", .string(token))]).serialized)
    }

    func signInEmail(_ members: [(String, JSONValue)]) throws -> CGIAnswer {
        try run("signin-email", json: JSONValue.object(members).serialized)
    }

    func register(_ email: String, _ password: String, acceptAsTyped: Bool? = nil) throws -> CGIAnswer {
        var members: [(String, JSONValue)] = [("action", "register"), ("email", .string(email)), ("password", .string(password))]
        if let acceptAsTyped { members.append(("acceptAsTyped", .bool(acceptAsTyped))) }
        return try signInEmail(members)
    }

    func login(_ email: String, _ password: String, remoteAddress: String = "127.0.0.1") throws -> CGIAnswer {
        let body = JSONValue.object([("action", "login"), ("email", .string(email)), ("password", .string(password))])
        return try run("signin-email", body: Array(body.serialized.utf8), extraEnvironment: ["REMOTE_ADDR": remoteAddress])
    }

    func verify(_ members: [(String, JSONValue)], authorization: String? = nil) throws -> CGIAnswer {
        try run("verify-email", json: JSONValue.object(members).serialized, authorization: authorization)
    }

    /// The store the programs use, whichever engine it is.
    func database() throws -> Database {
        guard let postgres else { return try Database(path: databasePath) }
        return try Database(postgres: postgres.url(through: bouncer), boxPath: databasePath)
    }

    /// A table's rows, or a kind's when `table` is the name of the table the kind was.
    func count(_ table: String) throws -> Int64 {
        if let kind = Ephemeral.Kind.allCases.first(where: { $0.name == table }) { return try count(kind) }
        return try database().query("SELECT count(*) FROM \(table)").first?.int(0) ?? -1
    }

    /// The rows of one kind of `ephemeral` (nonces, rate-limit windows, cached tokens, codes, relay records).
    func count(_ kind: Ephemeral.Kind) throws -> Int64 {
        try database().query("SELECT count(*) FROM ephemeral WHERE kind = ?", [.integer(kind.rawValue)]).first?.int(0) ?? -1
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Keys are slow to make; tests share a few.
enum TestKeys {
    private static let cache = Locked<[String: SigningKey]>([:])

    static func rsa(_ kid: String = "rsa-1") throws -> SigningKey {
        try cached(kid) { try SigningKey.rsa(kid: kid) }
    }

    static func p256(_ kid: String = "ec-1") throws -> SigningKey {
        try cached(kid) { try SigningKey.p256(kid: kid) }
    }

    private static func cached(_ kid: String, make: () throws -> SigningKey) throws -> SigningKey {
        if let key = cache.current[kid] { return key }
        let key = try make()
        return cache.withLock { keys in
            if let existing = keys[kid] { return existing }
            keys[kid] = key
            return key
        }
    }
}
