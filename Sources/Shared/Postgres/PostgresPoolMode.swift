/// What sits behind `postgresUrl`, as `frontdoor-check` will name it: pgbouncer's pool mode for
/// our database (frontdoor needs `transaction` or `session`; `statement` breaks transactions), or
/// PostgreSQL itself, or why pgbouncer would not say.
public enum PostgresPoolMode: Sendable, Equatable {
    /// pgbouncer's mode for the URI's database: `transaction`, `session` or `statement`.
    case pgbouncer(String)
    /// The server has no admin console: PostgreSQL itself (no database named `pgbouncer`).
    case notPgbouncer
    /// pgbouncer (or something) refused the console: the reason. Its `stats_users` must list
    /// the URI's user, and its hba must let that user into the database `pgbouncer`.
    case unknown(String)

    /// Asks pgbouncer's admin console (the database `pgbouncer` on the same socket, as the same
    /// user), which speaks only the simple protocol: `SHOW POOLS` gives the mode each pool runs
    /// in; before any client made the pool, `SHOW DATABASES` gives the database's own mode and
    /// `SHOW CONFIG` the default.
    public static func of(_ url: PostgresURL, timeoutSeconds: Double = 5) -> PostgresPoolMode {
        let console: PostgresConnection
        do {
            console = try PostgresConnection(url.database("pgbouncer"), timeoutSeconds: timeoutSeconds)
        } catch {
            // PostgreSQL refuses a database it does not have (3D000); pgbouncer refuses with its own 08P01.
            return error.sqlstate == "3D000" ? .notPgbouncer : .unknown(error.reason)
        }
        defer { console.close() }
        do {
            if let mode = try column("pool_mode", of: console.simpleQuery("SHOW POOLS"), where: "database", is: url.database) {
                return .pgbouncer(mode)
            }
            if let mode = try column("pool_mode", of: console.simpleQuery("SHOW DATABASES"), where: "name", is: url.database) {
                return .pgbouncer(mode)
            }
            if let mode = try column("value", of: console.simpleQuery("SHOW CONFIG"), where: "key", is: "pool_mode") {
                return .pgbouncer(mode)
            }
            return .unknown("pgbouncer's console named no pool mode")
        } catch {
            // A PostgreSQL that has a database named pgbouncer: SHOW POOLS is no statement there.
            return error.sqlstate == "42704" || error.sqlstate == "42601" ? .notPgbouncer : .unknown(error.reason)
        }
    }

    /// The non-empty text of `name` in the first row whose `key` column is `value`.
    private static func column(_ name: String, of result: PostgresResult, where key: String, is value: String) -> String? {
        guard let keyIndex = result.columns.firstIndex(of: key), let index = result.columns.firstIndex(of: name) else {
            return nil
        }
        for row in result.rows where row.text(keyIndex) == value {
            if let text = row.text(index), !text.isEmpty { return text }
        }
        return nil
    }
}
