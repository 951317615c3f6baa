#if canImport(Glibc)
import Glibc
#endif

/// What `pg-probe` does (docs/performance.md, PostgreSQL): a CGI program as small as an endpoint
/// can be that still reaches the store. It reads the URI from the first line of the file
/// `AUTH_CONFIG` names, connects, selects one row by a bound key and answers it as JSON. (At
/// commit 0dc4b98 it could go through libpq instead, for the client decision.)
public enum PostgresProbe {
    public static func main() {
        var answer = "Status: 500 Internal Server Error\r\nContent-Type: application/json\r\n\r\n{\"error\":\"internal\"}\n"
        defer { FileIO.writeAll(STDOUT_FILENO, Array(answer.utf8)) }
        guard let path = getenv("AUTH_CONFIG").map({ String(cString: $0) }),
            let file = FileIO.readFile(path, limit: 4096),
            let url = try? PostgresURL.parse(String(decoding: file.prefix { $0 != 0x0A }, as: UTF8.self))
        else {
            FileIO.log("pg-probe: no URI in the file AUTH_CONFIG names")
            return
        }
        do throws(PostgresError) {
            let connection = try PostgresConnection(url)
            let rows = try connection.query("SELECT id, token FROM probe WHERE id = $1", [.integer(1)]).rows
            connection.close()
            guard let row = rows.first, let token = row.text(1) else {
                FileIO.log("pg-probe: no row")
                return
            }
            answer = "Status: 200 OK\r\nContent-Type: application/json\r\n\r\n{\"token\":\"\(token)\"}\n"
        } catch {
            FileIO.log("pg-probe: \(error)")
        }
    }
}
