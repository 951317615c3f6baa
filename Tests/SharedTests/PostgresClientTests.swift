import DevSupport
import Shared
import Testing

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
}
