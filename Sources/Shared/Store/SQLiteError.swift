import CSQLite

/// How a failed SQLite call becomes a FrontdoorError. The detail carries SQLite's message, which
/// names tables and columns but never a bound value, so it cannot leak an email or a token.
enum SQLiteError {
    /// A lock still held by another process after the busy timeout: a 503 the client may retry,
    /// not a fault of ours.
    static let busyMessage = "The service is busy. Please try again."

    static func make(_ db: OpaquePointer?, _ op: String, _ rc: Int32) -> FrontdoorError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return make(op, rc, message)
    }

    static func make(_ op: String, _ rc: Int32, _ message: String) -> FrontdoorError {
        let detail = "sqlite: \(op): \(message) (\(rc))"
        if rc & 0xFF == SQLITE_BUSY {
            return FrontdoorError(.upstreamUnavailable, busyMessage, detail: detail, retryAfterSeconds: 1)
        }
        return .internal(detail)
    }
}
