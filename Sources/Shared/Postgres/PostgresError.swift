/// Why a PostgreSQL call failed. A server's refusal carries its SQLSTATE, so a caller can tell a
/// conflict it should retry whole (40001, 40P01) from an outage (503) and from a fault of ours
/// (500). `description` is for stderr: it never holds a bound value, a password, or the parts of
/// a server message that quote data (DETAIL, and the message of a data exception).
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server (or pgbouncer) answered an ErrorResponse: see `sqlstate`.
        case server
        /// The socket could not be reached: no such socket, connection refused, no address.
        case connectFailed
        /// The connection closed or failed mid-conversation. Whether a COMMIT in flight took
        /// effect is unknown: never retry a write on this alone.
        case connectionLost
        /// No answer within the bound. The connection is closed; a query in flight was asked to
        /// cancel.
        case timedOut
        /// The server sent something that is not the protocol, or not in its order.
        case protocolViolation
        /// A method this client does not speak, a password missing, or a SCRAM server
        /// signature that does not verify.
        case authentication
        /// A call the client refuses: a closed connection, a transaction inside one, a COMMIT of
        /// a transaction the server had already aborted, a statement too large for the protocol.
        case misuse
    }

    public let kind: Kind
    /// The five-character SQLSTATE of a server error (`40001`); nil for every other kind.
    public let sqlstate: String?
    /// ERROR, FATAL or PANIC for a server error.
    public let severity: String?
    /// A line safe for logs (see the type's comment).
    public let reason: String
    /// The constraint a server error names, when it names one (23505 on a unique index).
    public let constraint: String?

    init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
        sqlstate = nil
        severity = nil
        constraint = nil
    }

    /// A server's ErrorResponse. The primary message of a data exception (class 22) can quote a
    /// bound value (`invalid input syntax for type bigint: "…"`), so it is kept out.
    init(server fields: ErrorFields) {
        kind = .server
        let code = fields.value(of: UInt8(ascii: "C")) ?? "XX000"
        sqlstate = code
        severity = fields.value(of: UInt8(ascii: "V")) ?? fields.value(of: UInt8(ascii: "S"))
        constraint = fields.value(of: UInt8(ascii: "n"))
        var line = "\(severity ?? "ERROR") \(code)"
        if !code.hasPrefix("22"), let message = fields.value(of: UInt8(ascii: "M")) {
            line += ": " + PostgresError.shortened(message)
        }
        for (tag, name) in [(UInt8(ascii: "t"), "table"), (UInt8(ascii: "c"), "column"), (UInt8(ascii: "n"), "constraint")] {
            if let value = fields.value(of: tag) { line += " \(name)=\(PostgresError.shortened(value))" }
        }
        reason = line
    }

    /// 40001: the transaction was rolled back because a serializable schedule was impossible.
    public var isSerializationFailure: Bool { sqlstate == "40001" }
    /// 40P01: the transaction was rolled back to break a deadlock.
    public var isDeadlock: Bool { sqlstate == "40P01" }
    /// The server rolled the whole transaction back for a conflict: run it again from BEGIN.
    public var isRetryable: Bool { isSerializationFailure || isDeadlock }

    /// FATAL or PANIC: the server ends the connection after sending it.
    var endsConnection: Bool { severity == "FATAL" || severity == "PANIC" }

    /// The store could not be reached or is going away for a while: the client should come back
    /// (503). A conflict still standing after the retries is such a moment too.
    public var isUnavailable: Bool {
        switch kind {
        case .connectFailed, .connectionLost, .timedOut: return true
        case .protocolViolation, .authentication, .misuse: return false
        case .server:
            guard let code = sqlstate else { return false }
            // 08: connection exceptions (pgbouncer's own: "server conn crashed?", "pgbouncer
            // cannot connect to server", query_wait_timeout); 53: out of connections, memory or
            // disk; 57P01-03: shut down by an operator, after a crash, or still starting up;
            // 57014: cancelled (a statement time-out); 55P03: a lock time-out; 25006: a read-only
            // standby after a fail-over.
            return code.hasPrefix("08") || code.hasPrefix("53") || code.hasPrefix("57P") || code == "57014"
                || code == "55P03" || code == "25006" || isRetryable
        }
    }

    /// The answer an endpoint gives: 503 `upstream_unavailable` (retry in a second) for an
    /// outage or a conflict, 500 `internal` for anything else.
    public var frontdoorError: FrontdoorError {
        if isUnavailable {
            return FrontdoorError(
                .upstreamUnavailable, "The service is busy. Please try again.", detail: "postgres: \(reason)",
                retryAfterSeconds: 1)
        }
        return .internal("postgres: \(reason)")
    }

    public var description: String { "postgres: \(reason)" }

    /// At most 200 bytes of a server's text, control characters replaced, so one line stays one line.
    static func shortened(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(200) {
            out.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar)
        }
        return out
    }
}
