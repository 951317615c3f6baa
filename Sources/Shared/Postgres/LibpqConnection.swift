import CPQ

/// Candidate (a) of the client decision (docs/performance.md, PostgreSQL): the same calls as
/// `PostgresConnection` over libpq, opened on first use (Sources/CPQ/loader.c). Synchronous
/// libpq: a read has no bound of its own beyond `connect_timeout` (the asynchronous API would
/// be needed for that).
public final class LibpqConnection {
    private let handle: OpaquePointer

    public init(_ url: PostgresURL) throws(PostgresError) {
        var parts: [String] = []
        func add(_ key: String, _ value: String) {
            var quoted = ""
            for c in value {
                if c == "\\" || c == "'" { quoted.append("\\") }
                quoted.append(c)
            }
            parts.append("\(key)='\(quoted)'")
        }
        switch url.address {
        case .unixSocket(let directory, let port):
            add("host", directory)
            add("port", String(port))
        case .tcp(let host, let port):
            add("hostaddr", host)
            add("port", String(port))
        }
        add("user", url.user)
        add("dbname", url.database)
        if let password = url.password { add("password", password) }
        add("connect_timeout", String(url.connectTimeoutSeconds))
        add("client_encoding", "UTF8")
        if let name = url.applicationName { add("application_name", name) }
        guard let connection = PQconnectdb(parts.joined(separator: " ")) else {
            throw PostgresError(.connectFailed, "libpq could not be loaded")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = PQerrorMessage(connection).map { String(cString: $0) } ?? "?"
            PQfinish(connection)
            throw PostgresError(.connectFailed, "libpq: " + PostgresError.shortened(message))
        }
        handle = connection
    }

    deinit { PQfinish(handle) }

    public var serverVersion: String? {
        PQparameterStatus(handle, "server_version").map { String(cString: $0) }
    }

    @discardableResult
    public func query(_ sql: String, _ params: [SQLValue] = []) throws(PostgresError) -> [Row] {
        var types: [UInt32] = []
        var values: [[CChar]?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for param in params {
            switch param {
            case .null:
                types.append(0); values.append(nil); lengths.append(0); formats.append(0)
            case .integer(let v):
                types.append(PostgresType.int8); values.append(Array(String(v).utf8CString)); lengths.append(0); formats.append(0)
            case .text(let s):
                types.append(0); values.append(Array(s.utf8CString)); lengths.append(0); formats.append(0)
            case .blob(let b):
                types.append(PostgresType.bytea); values.append(b.map { CChar(bitPattern: $0) } + [0])
                lengths.append(Int32(b.count)); formats.append(1)
            }
        }
        let pointers = values.map { value -> UnsafeMutablePointer<CChar>? in
            guard let value else { return nil }
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: value.count)
            copy.initialize(from: value, count: value.count)
            return copy
        }
        defer { pointers.forEach { $0?.deallocate() } }
        let constPointers = pointers.map { UnsafePointer($0) }
        let result = PQexecParams(handle, sql, Int32(params.count), types, constPointers, lengths, formats, 0)
        guard let result else { throw PostgresError(.connectionLost, "libpq: no result") }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let code = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? "XX000"
            throw PostgresError(server: ErrorFields([(UInt8(ascii: "C"), code)]))
        }
        var rows: [Row] = []
        let columns = PQnfields(result)
        for r in 0..<PQntuples(result) {
            var row: [SQLValue] = []
            for c in 0..<columns {
                if PQgetisnull(result, r, c) == 1 {
                    row.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, r, c))
                guard let value = PQgetvalue(result, r, c) else { throw PostgresError(.protocolViolation, "libpq: no value") }
                let bytes = value.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
                row.append(try PostgresType.value(bytes, typeOID: PQftype(result, c)))
            }
            rows.append(Row(row))
        }
        return rows
    }
}
