#if canImport(Glibc)
import Glibc
#endif

/// One connection to PostgreSQL, or to a pgbouncer in front of it, used by one thread: protocol
/// 3.0 over a unix socket (or loopback TCP), written for a process that lives one request.
///
/// - Every statement is the unnamed prepared statement (Parse, Bind, Describe, Execute, Sync in
///   one write): pgbouncer 1.18 in transaction pooling carries no named one from one
///   transaction to the next, and frontdoor keeps no session state (no SET, no SQL PREPARE, no
///   session advisory locks), since each transaction may meet another server connection.
/// - Every wait is bounded: connecting and logging in by the URI's `connect_timeout`, each
///   exchange by `timeoutSeconds`, and every one of them by the process's ceiling (rule 9) less
///   `ceilingMarginSeconds`, so a server that stalls, trickles or never answers gets a 503
///   answered in time rather than a process ended mid-request. A time-out asks the server to
///   cancel what it runs, then closes the connection; so does any failure that leaves the stream
///   out of step. Later calls then throw `connectionLost` at once.
/// - The password is sent only as `require_auth` allows (`PostgresURL`): by default never (SCRAM
///   proves it without sending it); never as MD5; in the clear only over a unix socket when named.
/// - A statement that fails inside a transaction aborts the transaction (PostgreSQL's rule):
///   until ROLLBACK, the server refuses everything else. `transactionStatus` says which state
///   the server reported last.
public final class PostgresConnection {
    public let url: PostgresURL
    public let timeoutSeconds: Double
    /// The server's state after the last exchange (its ReadyForQuery).
    public private(set) var transactionStatus: TransactionStatus = .idle
    /// Requests written and waited for since login (a pipelined pair counts once): what the
    /// tests count, as a request's cost is mostly its round trips.
    public private(set) var roundTrips = 0
    /// What the server reported with ParameterStatus (`server_version`, `client_encoding`, …),
    /// names and values side by side: plain string arrays cost a process no generic set-up.
    private var parameterNames: [String] = []
    private var parameterValues: [String] = []
    /// PostgreSQL reports about 14, pgbouncer fewer: a server that sends more names than this, or
    /// more reports than `maxParameterReports` in a connection's life, is not one (the fourth
    /// review's T5-13; 100,000 were taken, each kept).
    static let maxParameterNames = 64
    static let maxParameterReports = 4096
    private var parameterReports = 0
    private let socket: PostgresSocket
    private var framer = PostgresFramer()
    private var backendKey: (processID: Int32, secretKey: Int32)?
    private var failure: PostgresError?

    /// The answer to a request still has to be written when the store gives up: every wait ends
    /// this long before the process's ceiling (the cancel after a time-out takes at most one more).
    static let ceilingMarginSeconds = 2.0

    /// `deadline` (monotonic milliseconds), or earlier when the process's ceiling comes first.
    static func withinCeiling(_ deadline: Double, margin: Double = ceilingMarginSeconds) -> Double {
        guard let left = Lifetime.remainingSeconds() else { return deadline }
        return min(deadline, Clock.monotonicMillis() + max(0, left - margin) * 1000)
    }

    /// Connects and logs in, within the URI's `connect_timeout`.
    public init(_ url: PostgresURL, timeoutSeconds: Double = 10) throws(PostgresError) {
        self.url = url
        self.timeoutSeconds = timeoutSeconds
        let deadline = Self.withinCeiling(Clock.monotonicMillis() + Double(url.connectTimeoutSeconds) * 1000)
        socket = try PostgresSocket(url.address, deadline: deadline)
        do {
            try logIn(deadline: deadline)
        } catch {
            socket.close()
            throw error
        }
    }

    deinit { close() }

    /// Says goodbye (Terminate) and closes the socket. Safe to call twice.
    public func close() {
        if socket.isOpen && failure == nil {
            var out = PostgresFrontend()
            out.terminate()
            try? socket.write(out.bytes, deadline: Clock.monotonicMillis() + 100)
        }
        socket.close()
        if failure == nil { failure = PostgresError(.misuse, "the connection was closed") }
    }

    /// `server_version` as the server reported it (`15.18 (Debian 15.18-0+deb12u1)`); through
    /// pgbouncer, that of the server it logged in to.
    public var serverVersion: String? { parameter("server_version") }

    /// `server_version` as PostgreSQL numbers it: 150018 for 15.18, 90603 for 9.6.3.
    public var serverVersionNumber: Int? {
        guard let version = serverVersion else { return nil }
        let numbers = version.prefix { $0 == "." || $0.isASCII && $0.isNumber }.split(separator: ".").compactMap { Int($0) }
        guard let major = numbers.first else { return nil }
        if major >= 10 { return major * 10_000 + (numbers.count > 1 ? numbers[1] : 0) }
        return major * 10_000 + (numbers.count > 1 ? numbers[1] * 100 : 0) + (numbers.count > 2 ? numbers[2] : 0)
    }

    public func parameter(_ name: String) -> String? {
        parameterNames.lastIndex(of: name).map { parameterValues[$0] }
    }

    /// The server process serving this connection now (BackendKeyData). Through pgbouncer this
    /// is pgbouncer's own number for the client, not a PostgreSQL backend's.
    public var processID: Int32? { backendKey?.processID }

    /// Runs one statement with `params` bound to `$1`, `$2`, … and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ params: [SQLValue] = []) throws(PostgresError) -> PostgresResult {
        try checkUsable()
        var out = PostgresFrontend()
        try out.parse(sql, params)
        try out.bind(params)
        out.describePortal()
        out.execute()
        out.sync()
        return try exchange(out.bytes, extended: true)
    }

    /// Runs one statement and returns how many rows it inserted, updated, deleted or selected.
    @discardableResult
    public func run(_ sql: String, _ params: [SQLValue] = []) throws(PostgresError) -> Int {
        try query(sql, params).affected
    }

    /// One statement without parameters, by the simple protocol: transaction control, and
    /// pgbouncer's admin console, which speaks nothing else.
    @discardableResult
    func simpleQuery(_ sql: String) throws(PostgresError) -> PostgresResult {
        try checkUsable()
        var out = PostgresFrontend()
        try out.query(sql)
        return try exchange(out.bytes, extended: false)
    }

    private func checkUsable() throws(PostgresError) {
        if let failure {
            throw failure.kind == .misuse ? failure : PostgresError(.connectionLost, "the connection failed before: \(failure.reason)")
        }
    }

    private enum Phase {
        case parse, bind, describe, rows, done
    }

    /// Two statements in one write, each with its own Sync, so neither's failure touches the
    /// other (outside a transaction each is a transaction of its own); then both answers. A
    /// server's error comes back in its answer; one that ends the connection is thrown.
    func queryPipelined(
        _ first: (sql: String, params: [SQLValue]), _ second: (sql: String, params: [SQLValue])
    ) throws(PostgresError) -> (Result<PostgresResult, PostgresError>, Result<PostgresResult, PostgresError>) {
        try checkUsable()
        var out = PostgresFrontend()
        for statement in [first, second] {
            try out.parse(statement.sql, statement.params)
            try out.bind(statement.params)
            out.describePortal()
            out.execute()
            out.sync()
        }
        let deadline = try send(out.bytes)
        var answers: [Result<PostgresResult, PostgresError>] = []
        for _ in 0..<2 {
            do {
                answers.append(.success(try answer(extended: true, deadline: deadline)))
            } catch {
                // Only an error in step with the stream leaves the second answer to read.
                guard error.kind == .server && !error.endsConnection else { throw error }
                answers.append(.failure(error))
            }
        }
        return (answers[0], answers[1])
    }

    /// Sends one request and reads its answer up to ReadyForQuery.
    private func exchange(_ bytes: [UInt8], extended: Bool) throws(PostgresError) -> PostgresResult {
        let deadline = try send(bytes)
        return try answer(extended: extended, deadline: deadline)
    }

    /// Writes one request (or a pipelined pair); returns the deadline for its answers.
    private func send(_ bytes: [UInt8]) throws(PostgresError) -> Double {
        let deadline = Self.withinCeiling(Clock.monotonicMillis() + timeoutSeconds * 1000)
        roundTrips += 1
        do {
            try socket.write(bytes, deadline: deadline)
        } catch {
            throw failed(error)
        }
        return deadline
    }

    /// Reads one answer up to its ReadyForQuery.
    private func answer(extended: Bool, deadline: Double) throws(PostgresError) -> PostgresResult {
        do throws(PostgresError) {
            var phase: Phase = extended ? .parse : .describe
            var columns: [BackendMessage.Column] = []
            var rows: [Row] = []
            var tag: String? = nil
            var serverError: PostgresError? = nil
            while true {
                let message = try nextMessage(deadline: deadline)
                if case .readyForQuery(let status) = message {
                    transactionStatus = status
                    break
                }
                if case .errorResponse(let fields) = message {
                    let error = PostgresError(server: fields)
                    if error.endsConnection { throw error }
                    guard serverError == nil else { throw violation("a second error before ReadyForQuery") }
                    serverError = error
                    continue
                }
                // After an error the server skips to the Sync: only ReadyForQuery may follow.
                guard serverError == nil else { throw violation("a message after an error") }
                switch (phase, message) {
                case (.parse, .parseComplete):
                    phase = .bind
                case (.bind, .bindComplete):
                    phase = .describe
                case (.describe, .rowDescription(let described)):
                    columns = described
                    phase = .rows
                case (.describe, .noData) where extended:
                    phase = .rows
                case (.rows, .dataRow(let row)):
                    rows.append(Row(try row.values(columns)))
                case (.rows, .commandComplete(let text)):
                    tag = text
                    phase = .done
                case (.describe, .commandComplete(let text)) where !extended,
                     (.done, .commandComplete(let text)) where !extended:
                    // A simple query of several statements completes each; the last one's tag stands.
                    tag = text
                    phase = .done
                case (.rows, .emptyQueryResponse), (.describe, .emptyQueryResponse):
                    tag = ""
                    phase = .done
                default:
                    throw violation("\(message.name) out of order")
                }
            }
            if let serverError { throw serverError }
            guard let tag else { throw violation("ReadyForQuery before the statement completed") }
            return PostgresResult(columns: columns.map(\.name), rows: rows, command: tag)
        } catch {
            if error.kind == .server && !error.endsConnection { throw error }
            throw failed(error)
        }
    }

    /// The stream is out of step or gone: the connection is failed, and this is what to throw.
    private func failed(_ error: PostgresError) -> PostgresError {
        // A server that ended the connection said why first (57P01 for an operator's
        // shutdown, pgbouncer's 08P01): that reason is worth more than "connection lost".
        let reported = error.kind == .connectionLost ? (lastWords() ?? error) : error
        fail(reported)
        return reported
    }

    /// An ErrorResponse that arrived before the connection broke, if one did.
    private func lastWords() -> PostgresError? {
        socket.drain(into: &framer)
        while let frame = try? framer.next() {
            if case .errorResponse(let fields)? = try? BackendMessage.decode(type: frame.type, body: frame.body) {
                return PostgresError(server: fields)
            }
        }
        return nil
    }

    private func violation(_ what: String) -> PostgresError {
        PostgresError(.protocolViolation, what)
    }

    /// The next message that answers something; notices and parameter changes are taken in
    /// passing (a notice can quote data, so it is not logged).
    private func nextMessage(deadline: Double) throws(PostgresError) -> BackendMessage {
        while true {
            if let frame = try framer.next() {
                let message = try BackendMessage.decode(type: frame.type, body: frame.body)
                switch message {
                case .noticeResponse, .notification:
                    continue
                case .parameterStatus(let name, let value):
                    parameterReports += 1
                    guard parameterReports <= Self.maxParameterReports else {
                        throw violation("more than \(Self.maxParameterReports) ParameterStatus messages")
                    }
                    if let index = parameterNames.firstIndex(of: name) {
                        parameterValues[index] = value
                    } else {
                        guard parameterNames.count < Self.maxParameterNames else {
                            throw violation("more than \(Self.maxParameterNames) server parameters")
                        }
                        parameterNames.append(name)
                        parameterValues.append(value)
                    }
                    continue
                default:
                    return message
                }
            }
            try socket.read(into: &framer, deadline: deadline)
        }
    }

    /// The stream is out of step or gone: ask the server to stop what it runs (after a time-out)
    /// and close.
    private func fail(_ error: PostgresError) {
        failure = error
        // Before the close: pgbouncer forwards a cancel only for a client it still has.
        if error.kind == .timedOut { cancelRunningStatement() }
        socket.close()
    }

    /// A CancelRequest on a new connection (PostgreSQL docs, "Canceling Requests in Progress"),
    /// waiting at most a second for the server to close that connection, which it does once it has
    /// passed the request on; the server may or may not act on it.
    private func cancelRunningStatement() {
        guard let key = backendKey else { return }
        let deadline = Self.withinCeiling(Clock.monotonicMillis() + 1000, margin: Self.ceilingMarginSeconds / 2)
        guard let other = try? PostgresSocket(url.address, deadline: deadline) else { return }
        defer { other.close() }
        guard (try? other.write(PostgresFrontend.cancelRequest(processID: key.processID, secretKey: key.secretKey), deadline: deadline)) != nil else { return }
        var ignored = PostgresFramer(maxMessageBytes: 4096)
        while (try? other.read(into: &ignored, deadline: deadline)) != nil {}
    }

    private func logIn(deadline: Double) throws(PostgresError) {
        var parameters = ["user", url.user, "database", url.database, "client_encoding", "UTF8"]
        if let name = url.applicationName { parameters += ["application_name", name] }
        var out = PostgresFrontend()
        try out.startup(parameters)
        try socket.write(out.bytes, deadline: deadline)
        var scram: SCRAMClient? = nil
        var scramVerified = false
        var sentPassword = false
        while true {
            let message = try nextMessage(deadline: deadline)
            switch message {
            case .authentication(.ok):
                if scram != nil && !scramVerified { throw PostgresError(.authentication, "SCRAM ended without the server's proof") }
                if scram == nil && !sentPassword && !url.authentication.contains(.none) {
                    throw refused("no authentication at all")
                }
            case .authentication(.cleartextPassword):
                // Checked before anything is sent: the password must not reach a server it should not.
                guard url.authentication.contains(.password) else { throw refused("the password in the clear") }
                var answer = PostgresFrontend()
                try answer.password(try password(for: "password"))
                try socket.write(answer.bytes, deadline: deadline)
                sentPassword = true
            case .authentication(.md5Password):
                throw refused("an MD5 password")
            case .authentication(.sasl(let mechanisms)):
                guard url.authentication.contains(.scram) else { throw refused("SCRAM-SHA-256") }
                guard mechanisms.contains("SCRAM-SHA-256") else {
                    throw PostgresError(.authentication, "the server offers no SASL mechanism this client speaks")
                }
                let client = try SCRAMClient(password: try password(for: "scram-sha-256"))
                scram = client
                var answer = PostgresFrontend()
                try answer.saslInitialResponse(mechanism: "SCRAM-SHA-256", client.initialResponse)
                try socket.write(answer.bytes, deadline: deadline)
            case .authentication(.saslContinue(let data)):
                guard var client = scram else { throw violation("SASLContinue without SASL") }
                let final = try client.finalResponse(serverFirst: data)
                scram = client
                var answer = PostgresFrontend()
                try answer.saslResponse(final)
                try socket.write(answer.bytes, deadline: deadline)
            case .authentication(.saslFinal(let data)):
                guard let client = scram else { throw violation("SASLFinal without SASL") }
                try client.verify(serverFinal: data)
                scramVerified = true
            case .authentication(.unsupported(let code)):
                throw PostgresError(.authentication, "the server asks for an authentication method this client does not speak (\(code))")
            case .backendKeyData(let processID, let secretKey):
                backendKey = (processID, secretKey)
            case .errorResponse(let fields):
                throw PostgresError(server: fields)
            case .negotiateProtocolVersion:
                throw PostgresError(.protocolViolation, "the server does not serve protocol 3.0")
            case .readyForQuery(let status):
                transactionStatus = status
                return
            default:
                throw violation("\(message.name) while logging in")
            }
        }
    }

    /// The server asks for a way of logging in that `require_auth` does not allow; nothing was sent.
    private func refused(_ what: String) -> PostgresError {
        PostgresError(
            .authentication,
            "the server asks for \(what), which postgresUrl's require_auth (\(PostgresURL.names(url.authentication))) "
                + "does not allow; nothing was sent")
    }

    private func password(for method: String) throws(PostgresError) -> String {
        guard let password = url.password else {
            throw PostgresError(.authentication, "the server asks for a password (\(method)) and postgresUrl has none")
        }
        return password
    }
}

/// What one statement answered.
public struct PostgresResult: Sendable {
    /// The columns' names, in the order of each row's values.
    public let columns: [String]
    public let rows: [Row]
    /// CommandComplete's tag: `INSERT 0 1`, `UPDATE 3`, `SELECT 2`, `BEGIN`, `ROLLBACK`, ….
    public let command: String

    /// The count the tag ends with (rows inserted, updated, deleted, selected); 0 for commands without one.
    public var affected: Int {
        guard let last = command.split(separator: " ").last, command.contains(" ") else { return 0 }
        return Int(last) ?? 0
    }
}
