#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

/// `frontdoor-check` with `postgresUrl`: it connects, names the schema version and the server's,
/// and says what serves the URI (issue 22: pgbouncer's pool mode when it can).
@Suite struct SelfCheckPostgresTests {
    @Test func itConnectsNamesTheVersionsAndCallsADirectConnectionOut() throws {
        let store = try TestStore(.postgres)
        let url = try #require(store.url)
        guard case .unixSocket(let socketDir, let port) = url.address else { throw ConfigError(key: "-", reason: "-") }
        let keyPath = store.dir.path + "/audit-key"
        let configPath = store.dir.path + "/config.json"
        for (path, text) in [
            (keyPath, String(repeating: "k", count: 40) + "\n"),
            (configPath, """
                {"postgresUrl": "postgresql://\(url.user)@/\(url.database)?host=\(socketDir)&port=\(port)",
                 "deletion": {"ledgerFile": "\(store.dir.path)/deletions.ledger", "auditKeyFile": "\(keyPath)"}}
                """),
        ] {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            FileIO.writeAll(fd, Array(text.utf8))
            close(fd)
        }
        var check = SelfCheck(configPath: configPath, resolver: FileResolver(text: ""), routes: Routes(ipv4: true, ipv6: true))
        let findings = check.run()
        let store1 = findings.first { $0.text.contains("schema version") }
        #expect(store1?.ok == true)
        #expect(store1?.text.contains("PostgreSQL 15") == true)
        #expect(store1?.text.contains("schema version \(Database.schemaVersion)") == true)
        let pool = findings.first { $0.text.hasPrefix("store: ") }
        #expect(pool?.ok == false)
        #expect(pool?.text.contains("reaches PostgreSQL itself") == true)
        // The check made the schema of the empty database, as the first request would.
        #expect(try store.open().query("SELECT version FROM schema_version").first?.int(0) == Int64(Database.schemaVersion))
    }

    @Test func poolModes() {
        #expect(SelfCheck.poolModeFinding(.pgbouncer("transaction")).ok)
        #expect(SelfCheck.poolModeFinding(.pgbouncer("session")).ok)
        #expect(!SelfCheck.poolModeFinding(.pgbouncer("statement")).ok)
        #expect(!SelfCheck.poolModeFinding(.notPgbouncer).ok)
        let unknown = SelfCheck.poolModeFinding(.unknown("08P01: not allowed"))
        #expect(unknown.ok && unknown.text.contains("stats_users"))
    }
}
