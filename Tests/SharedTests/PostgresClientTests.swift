import DevSupport
@testable import Shared
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The client against the real PostgreSQL 15 and pgbouncer 1.18 (`PostgresServers`).
@Suite struct PostgresClientTests {
    @Test(arguments: ["bouncer", "direct"])
    func connectsAndReadsEveryTypeTheStoreUses(_ path: String) throws {
        let servers = try PostgresServers.shared()
        let url = path == "bouncer" ? servers.bouncer : servers.direct
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        #expect(connection.serverVersionNumber.map { $0 >= 150_000 && $0 < 160_000 } == true)

        let table = PostgresServers.tableName("types")
        try connection.run("CREATE TABLE \(table) (id bigint PRIMARY KEY, name text, data bytea, flag boolean)")
        defer { _ = try? connection.run("DROP TABLE \(table)") }
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x5C, 0x27, 0x22]
        let inserted = try connection.run(
            "INSERT INTO \(table) (id, name, data, flag) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)",
            [.integer(Int64.max), .text("Zoë 'quoted' \\ \"x\""), .blob(bytes), .text("true"),
             .integer(Int64.min), .null, .blob([]), .null])
        #expect(inserted == 2)

        let result = try connection.query("SELECT id, name, data, flag FROM \(table) ORDER BY id DESC")
        #expect(result.columns == ["id", "name", "data", "flag"])
        #expect(result.rows.count == 2)
        #expect(result.affected == 2)
        #expect(result.rows[0][0] == .integer(Int64.max))
        #expect(result.rows[0][1] == .text("Zoë 'quoted' \\ \"x\""))
        #expect(result.rows[0][2] == .blob(bytes))
        #expect(result.rows[0][3] == .integer(1))
        #expect(result.rows[1][0] == .integer(Int64.min))
        #expect(result.rows[1][1] == .null)
        #expect(result.rows[1][2] == .blob([]))
        #expect(result.rows[1][3] == .null)

        // A parameter is a value, never SQL.
        let hostile = try connection.query("SELECT count(*) FROM \(table) WHERE name = $1", [.text("x' OR '1'='1")])
        #expect(hostile.rows[0][0] == .integer(0))
        #expect(try connection.run("UPDATE \(table) SET name = $1 WHERE id = $2", [.text("n"), .integer(Int64.min)]) == 1)
        #expect(try connection.run("DELETE FROM \(table) WHERE id = $1", [.integer(42)]) == 0)
        #expect(connection.transactionStatus == .idle)
    }

    @Test func namesTheServerVersionAndPgbouncersPoolMode() throws {
        let servers = try PostgresServers.shared()
        for url in [servers.bouncer, servers.direct] {
            let connection = try PostgresConnection(url)
            defer { connection.close() }
            #expect(connection.serverVersion?.hasPrefix("15.") == true)
            let number = try connection.query("SELECT current_setting('server_version_num')::bigint").rows[0][0]
            #expect(number == .integer(Int64(connection.serverVersionNumber ?? 0)))
        }
        #expect(PostgresPoolMode.of(servers.bouncer) == .pgbouncer("transaction"))
        #expect(PostgresPoolMode.of(servers.bouncerPair) == .pgbouncer("transaction"))
        #expect(PostgresPoolMode.of(servers.direct) == .notPgbouncer)
        let missing = PostgresURL(address: .unixSocket(directory: "/nonexistent", port: 6432), user: "u", database: "d")
        guard case .unknown(let reason) = PostgresPoolMode.of(missing) else {
            Issue.record("a missing socket was named a pool mode")
            return
        }
        #expect(reason.contains("no such socket"))
    }

    @Test(arguments: ["bouncer", "direct"])
    func carriesLargeResultsAndValues(_ path: String) throws {
        let servers = try PostgresServers.shared()
        let connection = try PostgresConnection(path == "bouncer" ? servers.bouncer : servers.direct)
        defer { connection.close() }
        let rows = try connection.query("SELECT g, md5(g::text) FROM generate_series(1, 20000) AS g").rows
        #expect(rows.count == 20000)
        #expect(rows.last?[0] == .integer(20000))
        let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let echoed = try connection.query("SELECT $1::bytea, length($1::bytea)", [.blob(big)]).rows[0]
        #expect(echoed[0] == .blob(big))
        #expect(echoed[1] == .integer(1 << 20))
    }

    @Test func sendsItsApplicationName() throws {
        let servers = try PostgresServers.shared()
        for var url in [servers.bouncer, servers.direct] {
            url.applicationName = "frontdoor-test"
            let connection = try PostgresConnection(url)
            defer { connection.close() }
            #expect(try connection.query("SELECT current_setting('application_name')").rows[0][0] == .text("frontdoor-test"))
        }
    }

    @Test(arguments: ["bouncer", "direct"])
    func aFailedStatementOutsideATransactionLeavesTheConnectionUsable(_ path: String) throws {
        let servers = try PostgresServers.shared()
        let connection = try PostgresConnection(path == "bouncer" ? servers.bouncer : servers.direct)
        defer { connection.close() }
        for (sql, code) in [("SELECT 1 / $1::bigint", "22012"), ("SELEC 1", "42601"), ("SELECT * FROM no_such_table", "42P01")] {
            do {
                _ = try connection.query(sql, sql.contains("$1") ? [.integer(0)] : [])
                Issue.record("\(sql) did not fail")
            } catch {
                #expect(error.kind == .server)
                #expect(error.sqlstate == code)
                #expect(error.frontdoorError.status == 500)
            }
            #expect(connection.transactionStatus == .idle)
            #expect(try connection.query("SELECT 1").rows[0][0] == .integer(1))
        }
        // An empty statement is an answer, not an error.
        #expect(try connection.query("").rows.isEmpty)
    }

    @Test func aClosedConnectionRefusesCalls() throws {
        let connection = try PostgresConnection(try PostgresServers.shared().bouncer)
        connection.close()
        connection.close()
        #expect {
            try connection.query("SELECT 1")
        } throws: { error in
            (error as? PostgresError)?.kind == .misuse
        }
    }

    /// Password roles in the groups scripts/pg-stack's pg_hba.conf sends to each method. SCRAM
    /// logs in as the URI stands; the password in the clear only over the socket and only when
    /// `require_auth` names it; MD5 never (issue 29). A refusal sends nothing.
    @Test(arguments: ["frontdoor_cleartext", "frontdoor_md5", "frontdoor_scram"])
    func logsInByPassword(_ group: String) throws {
        let servers = try PostgresServers.shared()
        let admin = try PostgresConnection(servers.superuser)
        defer { admin.close() }
        let role = PostgresServers.tableName("pw")
        let password = Hex.encode(try SecureRandom.bytes(12)) + "'\\ x"
        TestLogs.register(password)
        let literal = password.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''")
        // The cases run at once, and every GRANT or REVOKE on the database rewrites its one
        // catalog row: two at once fail with "tuple concurrently updated". One at a time.
        let catalogRow: SQLValue = .integer(0x6672_6470_7764)
        try admin.begin()
        try admin.run("SELECT pg_advisory_xact_lock($1)", [catalogRow])
        if group == "frontdoor_md5" { try admin.run("SET LOCAL password_encryption = 'md5'") }
        try admin.run("CREATE ROLE \(role) LOGIN PASSWORD '\(literal)' IN ROLE \(group)")
        try admin.run("GRANT CONNECT ON DATABASE frontdoor TO \(role)")
        try admin.commit()
        defer {
            try? admin.begin()
            _ = try? admin.run("SELECT pg_advisory_xact_lock($1)", [catalogRow])
            _ = try? admin.run("REVOKE CONNECT ON DATABASE frontdoor FROM \(role)")
            _ = try? admin.run("DROP ROLE \(role)")
            try? admin.commit()
        }
        let stored = try admin.query("SELECT left(rolpassword, 5) FROM pg_authid WHERE rolname = $1", [.text(role)]).rows[0][0]
        // Stored as the method needs it: an MD5 hash for md5, a SCRAM verifier otherwise.
        #expect(stored.textValue?.hasPrefix(group == "frontdoor_md5" ? "md5" : "SCRAM") == true)

        var url = servers.direct
        url.user = role
        url.password = password
        if group != "frontdoor_scram" {
            do {
                _ = try PostgresConnection(url)
                Issue.record("\(group) logged in without require_auth naming it")
            } catch {
                #expect(error.kind == .authentication && error.reason.contains("nothing was sent"), "\(error)")
            }
        }
        if group == "frontdoor_md5" {
            url.authentication = [.scram, .none, .password]
            #expect(throws: PostgresError.self) { try PostgresConnection(url) }
            return
        }
        if group == "frontdoor_cleartext" {
            url = try PostgresURL.parse(
                "postgresql://\(role)@/frontdoor?host=\(servers.dir)&port=5432&require_auth=password")
            url.password = password
        }
        let connection = try PostgresConnection(url)
        #expect(try connection.query("SELECT current_user").rows[0][0] == .text(role))
        connection.close()

        url.password = password + "wrong"
        do {
            _ = try PostgresConnection(url)
            Issue.record("a wrong password logged in")
        } catch {
            #expect(error.sqlstate == "28P01")
            #expect(error.frontdoorError.status == 500)
            #expect(!error.description.contains(password))
        }
        url.password = nil
        do {
            _ = try PostgresConnection(url)
            Issue.record("no password logged in")
        } catch {
            #expect(error.kind == .authentication)
        }
    }

    /// A unique key's value never reaches a log: not the error's description, and not PostgreSQL's
    /// own log (`log_error_verbosity = terse` drops the DETAIL that quotes it; make test scans it).
    @Test func aUniqueViolationQuotesNoValue() throws {
        let connection = try PostgresConnection(try PostgresServers.shared().bouncer)
        defer { connection.close() }
        let table = PostgresServers.tableName("unique")
        try connection.run("CREATE TABLE \(table) (email_key text PRIMARY KEY)")
        defer { _ = try? connection.run("DROP TABLE \(table)") }
        let email = "ada.\(Hex.encode(try SecureRandom.bytes(4)))@example.com"
        TestLogs.register(email)
        try connection.run("INSERT INTO \(table) VALUES ($1)", [.text(email)])
        do {
            try connection.run("INSERT INTO \(table) VALUES ($1)", [.text(email)])
            Issue.record("a duplicate key went in")
        } catch {
            #expect(error.sqlstate == "23505")
            #expect(error.constraint == "\(table)_pkey")
            #expect(!error.description.contains(email))
            #expect(!error.frontdoorError.description.contains(email))
        }
    }

    @Test func aMissingSocketFailsToConnectAtOnce() {
        let url = PostgresURL(address: .unixSocket(directory: "/tmp/frontdoor-no-such-dir", port: 5432), user: "u", database: "d")
        let started = Clock.monotonicMillis()
        do {
            _ = try PostgresConnection(url)
            Issue.record("connected to nothing")
        } catch {
            #expect(error.kind == .connectFailed)
            #expect(error.frontdoorError.status == 503)
            #expect(Clock.monotonicMillis() - started < 1000)
        }
    }
}

extension SQLValue {
    var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }
}
