import Testing
@testable import Shared

/// `databasePath` xor `postgresUrl`, and what `postgresUrl` needs besides (DESIGN.md's store keys).
@Suite struct ConfigStoreTests {
    static let url = "postgresql://frontdoor@/frontdoor?host=/run/pgbouncer&port=6432"
    static let deletion = #""deletion": {"ledgerFile": "/var/lib/frontdoor/deletions.ledger", "auditKeyFile": "/etc/frontdoor/secrets/audit-key"}"#

    static func parse(_ members: String, scope: Config.Scope = .everything) throws(ConfigError) -> Config {
        try Config.parse(Array("{\(members)}".utf8), scope: scope)
    }

    @Test func postgresUrlNamesTheStoreAndTheBoxsFilesSitBesideTheLedger() throws {
        let config = try Self.parse(#""postgresUrl": "\#(Self.url)", \#(Self.deletion)"#)
        #expect(config.postgresUrl?.database == "frontdoor")
        #expect(config.postgresUrl?.address == .unixSocket(directory: "/run/pgbouncer", port: 6432))
        #expect(config.databasePath == "/var/lib/frontdoor/frontdoor-box")
        // The session check reads no deletion section, yet finds the box's files.
        let check = try Self.parse(#""postgresUrl": "\#(Self.url)", \#(Self.deletion)"#, scope: .sessionCheck)
        #expect(check.databasePath == "/var/lib/frontdoor/frontdoor-box")
        let sqlite = try Self.parse(#""databasePath": "/var/lib/frontdoor/frontdoor.sqlite3""#)
        #expect(sqlite.postgresUrl == nil && sqlite.databasePath == "/var/lib/frontdoor/frontdoor.sqlite3")
    }

    @Test(arguments: [
        (#""databasePath": "/x.sqlite3", "postgresUrl": "\#(url)", \#(deletion)"#, "postgresUrl"),
        (#""google": {"clientIds": ["a"]}"#, "databasePath"),
        (#""postgresUrl": "\#(url)""#, "deletion.ledgerFile"),
        (#""postgresUrl": "\#(url)", "deletion": {"ledgerFile": "relative.ledger", "auditKeyFile": "/k"}"#, "deletion.ledgerFile"),
        (#""postgresUrl": "\#(url)", "deletion": {"ledgerFile": "/l/deletions.ledger"}"#, "deletion.auditKeyFile"),
        (#""postgresUrl": "postgresql://frontdoor@db.example.com/frontdoor", \#(deletion)"#, "postgresUrl"),
        (#""postgresUrl": "host=/run/pgbouncer", \#(deletion)"#, "postgresUrl"),
    ])
    func refusalsNameTheirKey(_ members: String, key: String) {
        let error = #expect(throws: ConfigError.self) { try Self.parse(members) }
        #expect(error?.key == key, "\(error.map { "\($0)" } ?? "-")")
    }
}
