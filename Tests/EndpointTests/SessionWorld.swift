#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// What the session tests share: a signed-in person, the `session` check run as nginx runs it,
/// and the stored times of a session, moved instead of waiting.
struct SignedIn {
    let token: String
    let accountId: String
    let sessionId: String
    var bearer: String { "Bearer \(token)" }
}

extension Harness {
    /// A Google sign-in of `sub` (new or returning) and its session.
    func signedIn(_ sub: String, email: String? = nil, deviceName: String? = nil) throws -> SignedIn {
        var members: [(String, JSONValue)] = [("idToken", .string(try google.token(sub: sub, email: email)))]
        if let deviceName { members.append(("deviceName", .string(deviceName))) }
        let answer = try run("signin-google", json: JSONValue.object(members).serialized)
        guard answer.status == 200, let token = answer.body["sessionToken"]?.stringValue,
            let accountId = answer.body["accountId"]?.stringValue, let sessionId = answer.body["sessionId"]?.stringValue
        else { throw HarnessError("sign-in of \(sub) failed: \(answer.rawBody)") }
        return SignedIn(token: token, accountId: accountId, sessionId: sessionId)
    }

    /// The `session` program as an `auth_request` subrequest reaches it: the original method, the
    /// bearer token, no body (a CONTENT_LENGTH may still be announced).
    func check(
        _ authorization: String?, method: String = "GET", body: [UInt8] = [], contentLength: Int? = nil,
        extraEnvironment: [String: String] = [:]
    ) throws -> CGIAnswer {
        try run(
            "session", body: body, method: method, contentType: nil, contentLength: contentLength,
            authorization: authorization, extraEnvironment: extraEnvironment)
    }

    struct StoredSession: Equatable {
        let createdAt: Int64
        let lastUsedAt: Int64
        let expiresAt: Int64
    }

    func stored(_ sessionId: String) throws -> StoredSession? {
        try database().query(
            "SELECT created_at, last_used_at, expires_at FROM sessions WHERE session_id = ?", [.text(sessionId)]
        ).first.map { StoredSession(createdAt: $0.int(0) ?? -1, lastUsedAt: $0.int(1) ?? -1, expiresAt: $0.int(2) ?? -1) }
    }

    /// Moves a session's stored times `seconds` into the past: as if it had been made that long ago.
    func age(_ sessionId: String, by seconds: Int64) throws {
        try database().run(
            """
            UPDATE sessions SET created_at = created_at - ?, last_used_at = last_used_at - ?, expires_at = expires_at - ?
            WHERE session_id = ?
            """,
            [.integer(seconds), .integer(seconds), .integer(seconds), .text(sessionId)])
    }

    /// Every session row, for "nothing changed".
    func sessionRows() throws -> [String] {
        try database().query(
            "SELECT session_id, account_id, created_at, last_used_at, expires_at, device_name FROM sessions ORDER BY session_id"
        ).map { row in (0..<row.count).map { "\(row[$0])" }.joined(separator: "|") }
    }

    /// The WALs' size, the store's and the session file's (`SessionFile`) together: a plain read
    /// leaves it as it was.
    var walBytes: Int {
        var info = stat()
        let store = stat(databasePath + "-wal", &info) == 0 ? Int(info.st_size) : -1
        let sessions = stat(databasePath + "-sessions-wal", &info) == 0 ? Int(info.st_size) : 0
        return store < 0 ? -1 : store + sessions
    }
}
