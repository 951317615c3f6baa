/// `postgresUrl`: a connection URI as libpq writes it (PostgreSQL docs, "Connection URIs"):
///
///     postgresql://[user[:password]@][host][:port][/dbname][?name=value&…]
///
/// e.g. `postgresql://frontdoor@/frontdoor?host=/run/pgbouncer&port=6432`. Every part may be
/// percent-encoded, and `host`, `port`, `dbname`, `user` and `password` may also be given as
/// parameters (which win, as in libpq). Read: `user` (required: frontdoor does not guess it from
/// the process), `password`, `host` (a socket directory, or a loopback address: this client
/// speaks no TLS, so a remote server is reached through a pgbouncer on the box), `port` (5432),
/// `dbname` (the user's name), `connect_timeout` (seconds, 5 when unset; libpq's 0, "wait for
/// ever", is refused), `application_name`, and `sslmode` only as `disable`, `allow` or `prefer`
/// (the modes that let a connection go without TLS), and `require_auth` (below). Anything else is
/// refused with its name.
///
/// The password leaves the process only for SCRAM-SHA-256, which never sends it (issue 29): a
/// server that asks for it in the clear or as MD5 is refused before anything is sent. `require_auth`
/// (libpq's name, a subset of its values) lists what the client accepts: `scram-sha-256`, `none`
/// (the server asks for nothing: `trust`, or `peer` on pgbouncer's socket), and `password`, the
/// password in the clear, which is accepted only with a unix socket (`host` a directory) and only
/// when named. Unset, it is `scram-sha-256,none`. `md5` is never accepted.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public enum Address: Sendable, Equatable {
        /// `directory/.s.PGSQL.port`, the name PostgreSQL and pgbouncer give their sockets.
        case unixSocket(directory: String, port: Int)
        /// A loopback address, numeric: `127.0.0.1`, `::1`.
        case tcp(host: String, port: Int)
    }

    /// The ways of logging in the client accepts (`require_auth`).
    public struct Authentication: OptionSet, Sendable, Equatable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// SCRAM-SHA-256, which proves the password without sending it.
        public static let scram = Authentication(rawValue: 1)
        /// The server asks for nothing (`trust`, `peer`).
        public static let none = Authentication(rawValue: 2)
        /// The password in the clear: only over a unix socket, only when `require_auth` names it.
        public static let password = Authentication(rawValue: 4)
        public static let standard: Authentication = [.scram, .none]
    }

    public var address: Address
    public var user: String
    public var password: String?
    public var database: String
    /// Bounds reaching the server and logging in (libpq's minimum of 2 s applies).
    public var connectTimeoutSeconds: Int
    public var applicationName: String?
    public var authentication: Authentication

    /// Debian's libpq looks here when no host is given (its DEFAULT_PGSOCKET_DIR).
    public static let defaultSocketDirectory = "/var/run/postgresql"
    public static let defaultConnectTimeoutSeconds = 5
    static let key = "postgresUrl"

    public init(
        address: Address, user: String, password: String? = nil, database: String,
        connectTimeoutSeconds: Int = PostgresURL.defaultConnectTimeoutSeconds, applicationName: String? = nil,
        authentication: Authentication = .standard
    ) {
        self.address = address
        self.user = user
        self.password = password
        self.database = database
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.applicationName = applicationName
        self.authentication = authentication
    }

    /// The socket file's path, for a unix socket.
    public var socketPath: String? {
        if case .unixSocket(let directory, let port) = address { return directory + "/.s.PGSQL.\(port)" }
        return nil
    }

    /// The URI without its password, for logs and for `frontdoor-check`.
    public var description: String {
        var out = "postgresql://" + Self.encode(user) + (password == nil ? "" : ":***") + "@"
        switch address {
        case .unixSocket(let directory, let port):
            out += "/" + Self.encode(database) + "?host=" + Self.encode(directory) + "&port=\(port)"
        case .tcp(let host, let port):
            out += (host.contains(":") ? "[\(host)]" : host) + ":\(port)/" + Self.encode(database)
        }
        if authentication != .standard { out += (out.contains("?") ? "&" : "?") + "require_auth=" + Self.names(authentication) }
        return out
    }

    /// `require_auth`'s value for `methods`.
    static func names(_ methods: Authentication) -> String {
        [(Authentication.scram, "scram-sha-256"), (.none, "none"), (.password, "password")]
            .filter { methods.contains($0.0) }.map(\.1).joined(separator: ",")
    }

    /// The same server's other database (pgbouncer's admin console is the database `pgbouncer`).
    public func database(_ name: String) -> PostgresURL {
        var other = self
        other.database = name
        return other
    }

    public static func parse(_ text: String) throws(ConfigError) -> PostgresURL {
        let bytes = Array(text.utf8)
        var rest: ArraySlice<UInt8>
        if bytes.starts(with: "postgresql://".utf8) {
            rest = bytes[13...]
        } else if bytes.starts(with: "postgres://".utf8) {
            rest = bytes[11...]
        } else {
            throw refusal("must start with postgresql:// (the key=value form is not read)")
        }
        var query: ArraySlice<UInt8> = []
        if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = rest[(mark + 1)...]
            rest = rest[..<mark]
        }
        var path: ArraySlice<UInt8>? = nil
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
            path = rest[(slash + 1)...]
            rest = rest[..<slash]
        }
        var user: String? = nil, password: String? = nil
        if let at = rest.lastIndex(of: UInt8(ascii: "@")) {
            let userInfo = rest[..<at]
            rest = rest[(at + 1)...]
            if let colon = userInfo.firstIndex(of: UInt8(ascii: ":")) {
                user = try decode(userInfo[..<colon], "user")
                password = try decode(userInfo[(colon + 1)...], "password")
            } else {
                user = try decode(userInfo, "user")
            }
        }
        var host: String? = nil, port: String? = nil
        if rest.contains(UInt8(ascii: ",")) { throw refusal("host: one host only (a list is not read)") }
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { throw refusal("host: an unclosed [") }
            host = try decode(rest[(rest.startIndex + 1)..<close], "host")
            let after = rest[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw refusal("host: text after ]") }
                port = try decode(after.dropFirst(), "port")
            }
        } else if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
            host = try decode(rest[..<colon], "host")
            port = try decode(rest[(colon + 1)...], "port")
        } else if !rest.isEmpty {
            host = try decode(rest, "host")
        }
        if host?.isEmpty == true { host = nil }
        var database = try path.map { p throws(ConfigError) in try decode(p, "dbname") }
        if database?.isEmpty == true { database = nil }

        var connectTimeout: String? = nil, applicationName: String? = nil, requireAuth: String? = nil
        var seen: [String] = []
        // By hand, not `split`: an array of slices costs a process its generic set-up.
        var next = query.startIndex
        while next < query.endIndex {
            let end = query[next...].firstIndex(of: UInt8(ascii: "&")) ?? query.endIndex
            let pair = query[next..<end]
            next = end + 1
            if pair.isEmpty { continue }
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else {
                throw refusal("a parameter without a value: \(loggable(pair))")
            }
            let name = try decode(pair[..<equals], "parameter name")
            let value = try decode(pair[(equals + 1)...], name)
            guard !seen.contains(name) else { throw refusal("\(name): given twice") }
            seen.append(name)
            switch name {
            case "host": host = value
            case "port": port = value
            case "dbname": database = value
            case "user": user = value
            case "password": password = value
            case "connect_timeout": connectTimeout = value
            case "application_name": applicationName = value
            case "require_auth": requireAuth = value
            case "sslmode":
                guard ["disable", "allow", "prefer"].contains(value) else {
                    throw refusal("sslmode=\(loggable(Array(value.utf8)[...])): TLS is not supported (reach a remote server through a pgbouncer on this box)")
                }
            default:
                throw refusal("\(loggable(Array(name.utf8)[...])): not a parameter frontdoor reads")
            }
        }

        guard let user, !user.isEmpty else { throw refusal("user: required") }
        let portNumber: Int
        if let port {
            guard let n = Int(port), n >= 1, n <= 65535, port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw refusal("port: not a port number")
            }
            portNumber = n
        } else {
            portNumber = 5432
        }
        let address = try Self.address(host ?? defaultSocketDirectory, port: portNumber)
        let authentication = try requireAuth.map { text throws(ConfigError) in try Self.authentication(text, address) }
            ?? .standard
        var timeout = defaultConnectTimeoutSeconds
        if let connectTimeout {
            guard let n = Int(connectTimeout), n > 0, n <= 600 else {
                throw refusal("connect_timeout: seconds from 1 to 600 (never 0: every wait is bounded)")
            }
            timeout = max(n, 2)
        }
        if let applicationName, applicationName.utf8.count > 63 {
            throw refusal("application_name: at most 63 bytes")
        }
        return PostgresURL(
            address: address, user: user, password: password, database: database ?? user,
            connectTimeoutSeconds: timeout, applicationName: applicationName, authentication: authentication)
    }

    /// `require_auth`: a list of `scram-sha-256`, `none` and `password` (the last over a unix
    /// socket only). libpq's negations and its other methods are refused by name.
    private static func authentication(_ text: String, _ address: Address) throws(ConfigError) -> Authentication {
        var methods: Authentication = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            switch name {
            case "scram-sha-256": methods.insert(.scram)
            case "none": methods.insert(.none)
            case "password":
                guard case .unixSocket = address else {
                    throw refusal("require_auth=password: the password in the clear only over a unix socket (host a directory)")
                }
                methods.insert(.password)
            case "md5":
                throw refusal("require_auth=md5: not accepted (an MD5 response opens the role to whoever reads it); use scram-sha-256")
            default:
                throw refusal("require_auth: \(loggable(Array(name.utf8)[...])) is not one of scram-sha-256, none, password")
            }
        }
        return methods
    }

    private static func address(_ host: String, port: Int) throws(ConfigError) -> Address {
        if host.hasPrefix("/") {
            // sockaddr_un holds 107 bytes and a NUL.
            guard host.utf8.count + "/.s.PGSQL.\(port)".utf8.count <= 107 else {
                throw refusal("host: the socket path is longer than 107 bytes")
            }
            var directory = host
            while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            return .unixSocket(directory: directory, port: port)
        }
        if host == "localhost" { return .tcp(host: "127.0.0.1", port: port) }
        if host == "::1" { return .tcp(host: host, port: port) }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts[0] == "127",
            parts.allSatisfy({ p in p.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && (UInt8(p) != nil) })
        {
            return .tcp(host: host, port: port)
        }
        throw refusal("host: a socket directory or a loopback address (TLS is not supported: reach a remote server through a pgbouncer on this box)")
    }

    private static func refusal(_ reason: String) -> ConfigError {
        ConfigError(key: key, reason: reason)
    }

    /// Percent-decoding; a value holding a NUL byte or invalid UTF-8 is refused (the error names
    /// the part, never its text: it may be the password).
    private static func decode(_ part: ArraySlice<UInt8>, _ what: String) throws(ConfigError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(part.count)
        var i = part.startIndex
        while i < part.endIndex {
            let c = part[i]
            if c == UInt8(ascii: "%") {
                guard i + 2 < part.endIndex, let hi = PostgresType.hexDigit(part[i + 1]),
                    let lo = PostgresType.hexDigit(part[i + 2])
                else {
                    throw refusal("\(what): a % not followed by two hex digits")
                }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(c)
                i += 1
            }
        }
        guard !out.contains(0) else { throw refusal("\(what): holds a NUL byte") }
        guard let text = String(validating: out, as: UTF8.self) else { throw refusal("\(what): not UTF-8") }
        return text
    }

    /// A parameter name or value the operator wrote, fit for an error line: printable ASCII only.
    private static func loggable(_ bytes: ArraySlice<UInt8>) -> String {
        let kept = bytes.prefix(40).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }
        return String(decoding: kept, as: UTF8.self)
    }

    /// Percent-encodes all but RFC 3986's unreserved characters and `/` (for socket directories).
    private static func encode(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            let unreserved = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2F
            out += unreserved ? String(Unicode.Scalar(b)) : "%" + Hex.encode([b]).uppercased()
        }
        return out
    }
}
