import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-admin stats`: how many of everything, read as of one moment; counts only.
enum AdminStats {
    static func run(session: AdminSession) throws -> JSONValue {
        let db = try session.database()
        let now = session.now
        let counts = try db.transaction { () throws(FrontdoorError) -> [(String, JSONValue)] in
            func count(_ sql: String, _ params: [SQLValue] = []) throws(FrontdoorError) -> JSONValue {
                .number(Double(try db.query(sql, params).first?.int(0) ?? 0))
            }
            return [
                ("accounts", try count("SELECT count(*) FROM accounts")),
                ("disabled", try count("SELECT count(*) FROM accounts WHERE disabled_at IS NOT NULL")),
                ("liveSessions", try count("SELECT count(*) FROM sessions WHERE expires_at > ?", [.integer(now)])),
                ("eventsWaiting", try count("SELECT count(*) FROM events")),
                ("relayUsersWaiting", try count("SELECT count(*) FROM relay_cleanups")),
                ("appleRevocationsWaiting", try count(
                    "SELECT count(*) FROM apple_revocations WHERE state IN ('scheduled', 'retry')")),
                ("deletionsAudited", try count("SELECT count(*) FROM deletion_audit")),
            ]
        }
        let ledger = LedgerFile.path(config: session.config)
        let ledgerLines = (try? LedgerFile.read(ledger).entries.count) ?? 0
        var engine: [(String, JSONValue)] = [
            ("sqliteVersion", .string(String(cString: sqlite3_libversion()))),
            ("databaseBytes", .number(Double(size(session.config.databasePath)))),
            ("walBytes", .number(Double(max(0, db.walFileBytes)))),
        ]
        if db.isPostgres {
            let bytes = try db.query("SELECT pg_database_size(current_database())").first?.int(0) ?? 0
            engine = [
                ("store", .string("postgresql")), ("postgresVersion", db.serverVersion.map(JSONValue.string) ?? .null),
                ("databaseBytes", .number(Double(bytes))),
            ]
        }
        return .object(counts + [
            ("ledgerLines", .number(Double(ledgerLines))),
            ("schemaVersion", .number(Double(Database.schemaVersion))),
        ] + engine)
    }

    static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
