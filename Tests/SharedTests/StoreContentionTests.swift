#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Testing
@testable import Shared

/// Issue 22, the store under contention: many requests from one address write the same row (its
/// rate-limit window), through the real handler, each on a connection of its own (as CGI
/// processes are), on both engines. And what each engine does with `Durability` and with U+0000.
@Suite struct StoreContentionTests {
    static let requests = 16
    static let limit: Int64 = 10
    static let client = "192.0.2.7"

    /// The config of a store on either engine, with `members` added. The server key is written
    /// first: made on first use, it is not what sixteen requests at once are about here.
    static func config(_ store: TestStore, _ members: String = "") throws -> Config {
        let key = store.dir.path + "/audit-key"
        let fd = open(key, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd >= 0 {
            let text = Array((Hex.encode(try SecureRandom.bytes(32)) + "\n").utf8)
            _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let place: String
        if let url = store.url, case .unixSocket(let directory, let port) = url.address {
            place = #""postgresUrl": "postgresql://\#(url.user)@/\#(url.database)?host=\#(directory)&port=\#(port)", "#
                + #""deletion": {"ledgerFile": "\#(store.dir.path)/deletions.ledger", "auditKeyFile": "\#(store.dir.path)/audit-key"}"#
        } else {
            place = #""databasePath": "\#(store.path)""#
        }
        // The list `make deps` built: the test binary is not installed beside it.
        let passwords = #", "passwords": {"listFile": "\#(PasswordListFile.built)"}"#
        return try Config.parse(Array(#"{\#(place), "google": {"clientIds": ["a"]}\#(passwords)\#(members)}"#.utf8))
    }

    static func call(
        _ config: Config, _ members: [(String, JSONValue)], client: String = client,
        durability: Database.Durability = .powerCutSafe, now: UnixTime = Clock.now()
    ) -> (status: Int, code: String?) {
        let request = CGIRequest(
            method: "POST", contentType: "application/json", contentLength: 0, authorization: nil,
            remoteAddress: client, body: [])
        let context = RequestContext(
            config: config, request: request, body: .object(members), now: now, durability: durability)
        defer { if context.usedDatabase, let db = try? context.database() { db.close() } }
        do throws(FrontdoorError) {
            return (try EmailSignIn.handle(context).status, nil)
        } catch {
            return (error.status, error.code.rawValue + (error.detail.map { ": " + $0 } ?? ""))
        }
    }

    /// Sixteen sign-ups at once from one address (a busy office behind one NAT) against a limit of
    /// ten an hour: exactly ten made, six refused with 429, none 503, and the window counts ten.
    /// On PostgreSQL every one of them writes the same rate-limit row in a SERIALIZABLE
    /// transaction: the losers of each round are aborted (40001) and run again, within the
    /// retry budget (`PostgresDatabase.retryBudgetMillis`).
    @Test(arguments: StoreEngine.allCases) func oneAddressAtOnceCountsExactlyAndNever503s(_ engine: StoreEngine) throws {
        let store = try TestStore(engine)
        let config = try Self.config(store, #", "limits": {"registrationsPerClientPerHour": \#(Self.limit)}"#)
        _ = try store.open()  // the schema, made once before the rush
        let outcomes = StoreCollector<(Int, String?)>()
        let start = StoreStartLine(Self.requests)
        let began = Clock.monotonicMillis()
        // One moment for all sixteen: the hour's window must not end between two of them.
        let now = Clock.now()
        storeRunThreads(Self.requests) { i in
            start.wait()
            outcomes.append(Self.call(config, [
                ("action", "register"), ("email", .string("office\(i)@example.org")), ("password", "a long enough password"),
            ], now: now))
        }
        let elapsed = Clock.monotonicMillis() - began
        let statuses = outcomes.all.map(\.0)
        var byStatus: [Int: Int] = [:]
        for status in statuses { byStatus[status, default: 0] += 1 }
        print("StoreContentionTests: \(engine): \(Self.requests) sign-ups from one address, limit \(Self.limit): "
              + "\(byStatus) in \(Int(elapsed)) ms")
        #expect(byStatus[201] == Int(Self.limit), "\(outcomes.all)")
        #expect(byStatus[429] == Self.requests - Int(Self.limit), "\(outcomes.all)")
        #expect(statuses.allSatisfy { $0 == 201 || $0 == 429 }, "\(outcomes.all)")
        let db = try store.open()
        #expect(try db.query("SELECT count(*) FROM accounts").first?.int(0) == Self.limit)
        #expect(try db.query("SELECT number FROM ephemeral WHERE kind = ?", [.integer(Ephemeral.Kind.rateLimit.rawValue)])
            .map { $0.int(0) } == [Self.limit])
    }

    /// Why `SELECT … FOR UPDATE` first in the body does not take the place of the retries: in a
    /// SERIALIZABLE transaction that very statement takes the snapshot before it waits for the
    /// lock, so once the holder commits, the row has changed since the snapshot and the attempt is
    /// aborted (40001) all the same. Ordered without timing: the other begins once the holder has
    /// the row, and the holder commits once `pg_stat_activity` shows the other waiting on a lock.
    @Test func forUpdateFirstInTheBodyIsAbortedAllTheSame() throws {
        let store = try TestStore(.postgres)
        let url = try #require(store.url)
        let setup = try store.open()
        try setup.run("INSERT INTO ephemeral (kind, key, number, expires_at) VALUES (2, ?, 0, 0)", [.blob([7])])
        let runs = StoreCollector<Int>()
        let failures = StoreCollector<String>()
        let path = store.path
        let held = StoreStartLine(2)
        storeRunThreads(2) { i in
            do {
                if i == 0 {
                    let db = try Database(postgres: url, boxPath: path)
                    defer { db.close() }
                    held.wait()
                    var mine = 0
                    try db.transaction { () throws(FrontdoorError) in
                        mine += 1
                        let n = try db.query("SELECT number FROM ephemeral WHERE key = ? FOR UPDATE", [.blob([7])])
                            .first?.int(0) ?? -1
                        try db.run("UPDATE ephemeral SET number = ? WHERE key = ?", [.integer(n + 1), .blob([7])])
                    }
                    runs.append(mine)
                } else {
                    let holder = try PostgresConnection(url)
                    let watcher = try PostgresConnection(url)
                    defer { holder.close(); watcher.close() }
                    try holder.begin()
                    try holder.run("UPDATE ephemeral SET number = 10 WHERE key = $1", [.blob([7])])
                    held.wait()
                    var waiting: Int64 = 0
                    for _ in 0..<2_000 where waiting == 0 {
                        waiting = try watcher.query(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                        ).rows.first?.int(0) ?? 0
                        if waiting == 0 { usleep(5_000) }
                    }
                    if waiting == 0 { failures.append("the other never waited on the lock") }
                    try holder.commit()
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all == [])
        #expect(runs.all == [2], "aborted once after the wait, then committed")
        #expect(try setup.query("SELECT number FROM ephemeral WHERE key = ?", [.blob([7])]).first?.int(0) == 11)
    }

    /// On PostgreSQL both durabilities keep the database's own `synchronous_commit` (here made
    /// `on`, as the test servers run with it off): an unflushed commit does not survive a crash of
    /// the server, which SQLite's crashSafe promises to survive.
    @Test func everyCommitWaitsForTheFlushOnPostgres() throws {
        let store = try TestStore(.postgres)
        let url = try #require(store.url)
        let owner = try store.open()
        try owner.run("ALTER DATABASE \(url.database) SET synchronous_commit = on")
        func inside(_ durability: Database.Durability) throws -> (inside: String?, after: String?) {
            let db = try Database(postgres: url, boxPath: store.path, durability: durability)
            defer { db.close() }
            let seen = try db.transaction { () throws(FrontdoorError) -> String? in
                try db.query("SELECT current_setting('synchronous_commit')").first?.text(0)
            }
            return (seen, try db.query("SELECT current_setting('synchronous_commit')").first?.text(0))
        }
        let crashSafe = try inside(.crashSafe)
        #expect(crashSafe.inside == "on")
        #expect(crashSafe.after == "on")
        let powerCutSafe = try inside(.powerCutSafe)
        #expect(powerCutSafe.inside == "on")
        #expect(powerCutSafe.after == "on")
    }

    /// A crashSafe connection's transactions commit, and are retried after a conflict, as any.
    @Test func crashSafeTransactionsCommitAndRetry() throws {
        let store = try TestStore(.postgres)
        let url = try #require(store.url)
        let db = try Database(postgres: url, boxPath: store.path, durability: .crashSafe)
        defer { db.close() }
        let other = try store.open()
        try db.run("INSERT INTO ephemeral (kind, key, number, expires_at) VALUES (1, ?, 0, 0)", [.blob([1])])
        var runs = 0
        try db.transaction { () throws(FrontdoorError) in
            runs += 1
            let n = try db.query("SELECT number FROM ephemeral WHERE key = ?", [.blob([1])]).first?.int(0) ?? -1
            if runs == 1 { try other.run("UPDATE ephemeral SET number = 10 WHERE key = ?", [.blob([1])]) }
            try db.run("UPDATE ephemeral SET number = ? WHERE key = ?", [.integer(n + 1), .blob([1])])
        }
        #expect(runs == 2)
        #expect(try other.query("SELECT number FROM ephemeral WHERE key = ?", [.blob([1])]).first?.int(0) == 11)
    }

    /// U+0000 in a field that reaches the store as text is a 400 on both engines (a login's
    /// address, a name), never a 500 (on PostgreSQL, whose text cannot hold it) nor a stored NUL
    /// (on SQLite); an address to register stays 422 `invalid_email`. A password may hold one: it
    /// is hashed, never stored or searched as text.
    @Test(arguments: StoreEngine.allCases) func aNULInAFieldIsInvalidRequest(_ engine: StoreEngine) throws {
        let store = try TestStore(engine)
        let config = try Self.config(store)
        let login = Self.call(config, [("action", "login"), ("email", "nul\u{0}@example.org"), ("password", "whatever it is")])
        #expect(login.status == 400 && login.code?.hasPrefix("invalid_request") == true, "\(login)")
        // An address to register is refused by its own rules first, as every control character is.
        let address = Self.call(config, [("action", "register"), ("email", "nul\u{0}@example.org"), ("password", "a long enough password")])
        #expect(address.status == 422 && address.code == "invalid_email", "\(address)")
        let name = Self.call(config, [
            ("action", "register"), ("email", "named@example.org"), ("password", "a long enough password"),
            ("name", "Ann\u{0}e"),
        ])
        #expect(name.status == 400 && name.code?.hasPrefix("invalid_request") == true, "\(name)")
        let password = Self.call(config, [
            ("action", "register"), ("email", "nul.password@example.org"), ("password", "with\u{0}nul inside it"),
        ])
        #expect(password.status == 201, "\(password)")
        #expect(Self.call(config, [
            ("action", "login"), ("email", "nul.password@example.org"), ("password", "with\u{0}nul inside it"),
        ]).status == 200)
        #expect(try store.open().query("SELECT count(*) FROM accounts").first?.int(0) == 1)
    }

    /// What else could carry a NUL to PostgreSQL (a provider's claim) is refused before it is
    /// sent, as the same typed 400, and the connection stays usable.
    @Test func aNULInABoundTextIsRefusedBeforeThePostgresServer() throws {
        try withStore(.postgres) { db, _ throws in
            let error = #expect(throws: FrontdoorError.self) {
                try db.run("INSERT INTO accounts (id, email_key, created_at) VALUES (?, ?, 1)", [.text("a1"), .text("a\u{0}b")])
            }
            #expect(error?.code == .invalidRequest)
            #expect(try db.query("SELECT count(*) FROM accounts").first?.int(0) == 0)
        }
    }
}
