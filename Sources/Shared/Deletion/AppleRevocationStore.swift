/// The `apple_revocations` table: one row per deletion answered `scheduled`. A row holds secrets
/// (the code, a relay ID token or an Apple refresh token) only while it waits for a retry, and
/// never anything about the person: the checks that needed the person's token are done before a
/// row can wait.
enum AppleRevocationStore {
    /// Apple's authorization codes work for five minutes; past that a code-based retry is pointless.
    static let codeLifetimeSeconds: Int64 = 300
    /// A refresh token does not expire soon, but a failing revoke is not retried for ever.
    static let refreshRetrySeconds: Int64 = 86_400
    /// Rows one request retries after its answer.
    static let retriesPerRequest = 3

    /// What a waiting row keeps for its retry.
    struct Kept: Sendable {
        var clientId: String? = nil
        var code: String? = nil
        var idToken: String? = nil
        var refreshToken: String? = nil
        var relayCleanupId: Int64? = nil
        /// Direct mode, before the code is spent: the deleted account's Apple `sub` as
        /// `subjectHash` gives it, to bind the code by the ID token Apple's token endpoint returns.
        var subjectHash: [UInt8]? = nil
        var until: UnixTime
    }

    /// An HMAC of an Apple `sub` with a secret derived from the server key: a waiting row can
    /// check a `sub` without naming one.
    static func subjectHash(_ subject: String, config: Config) throws(FrontdoorError) -> [UInt8] {
        subjectHash(subject, auditKey: try DeletionAudit.key(config: config))
    }

    static func subjectHash(_ subject: String, auditKey: [UInt8]) -> [UInt8] {
        let secret = HMACSHA256.mac(key: auditKey, message: Array("frontdoor revocation subjects".utf8))
        return HMACSHA256.mac(key: secret, message: Array(subject.utf8))
    }

    struct Due: Sendable {
        let id: String
        let mode: Config.Apple.Mode
        let kept: Kept
        let attempts: Int64
    }

    /// `subjectHash`: the deleted account's Apple `sub`, kept after the row settles so that Apple's
    /// `consent-revoked` echo of the revocation is recognised (`apple-notify`).
    static func insert(
        _ plan: AppleRevocation.Plan, subjectHash: [UInt8], db: Database, now: UnixTime
    ) throws(FrontdoorError) {
        try db.run(
            """
            INSERT INTO apple_revocations (id, mode, state, retry_until, subject_hash, created_at, updated_at)
            VALUES (?, ?, 'scheduled', ?, ?, ?, ?)
            """,
            [
                .text(plan.id), .text(plan.mode.rawValue), .integer(now + codeLifetimeSeconds), .blob(subjectHash),
                .integer(now), .integer(now),
            ])
    }

    /// Records the outcome: a settled one drops every secret; `retry` keeps what `kept` says, each
    /// secret sealed under the server key (`SealedColumn`), filed under its row and column. The
    /// `sub`'s HMAC stays for Apple's echo (it names nobody without the server key).
    static func settle(
        id: String, mode: Config.Apple.Mode, outcome: AppleRevocation.Outcome, attempts: Int64, db: Database,
        now: UnixTime
    ) {
        let kept = outcome.kept
        do {
            try db.run(
                """
                UPDATE apple_revocations SET state = ?, detail = ?, client_id = ?, code = ?, id_token = ?,
                  refresh_token = ?, relay_cleanup_id = ?, subject_hash = coalesce(?, subject_hash), attempts = ?,
                  next_attempt_at = ?,
                  retry_until = ?, updated_at = ?
                WHERE id = ?
                """,
                [
                    .text(outcome.state), outcome.detail.map(SQLValue.text) ?? .null,
                    kept?.clientId.map(SQLValue.text) ?? .null,
                    try SealedColumn.seal(kept?.code, db: db, binding: SealedColumn.revocation("code", id)),
                    try SealedColumn.seal(kept?.idToken, db: db, binding: SealedColumn.revocation("id_token", id)),
                    try SealedColumn.seal(kept?.refreshToken, db: db, binding: SealedColumn.revocation("refresh_token", id)),
                    kept?.relayCleanupId.map(SQLValue.integer) ?? .null, kept?.subjectHash.map(SQLValue.blob) ?? .null,
                    .integer(attempts),
                    kept == nil ? .null : .integer(now + backoff(attempts: attempts)),
                    kept.map { .integer($0.until) } ?? .null, .integer(now), .text(id),
                ])
        } catch {
            let detail = error.detail ?? error.message
            SysLog.error("frontdoor apple-revocation id=\(id) result=store-failed detail=\(detail)")
        }
        let line = "frontdoor apple-revocation id=\(id) mode=\(mode.rawValue) result=\(outcome.state) "
            + "attempts=\(attempts) detail=\(outcome.detail ?? "-")"
        switch outcome {
        case .revoked: SysLog.info(line)
        case .retry: SysLog.warning(line)
        case .mismatch, .failed: SysLog.error(line)
        }
    }

    /// 30 s, 60 s, 90 s …: a code lives five minutes, so a few tries fit.
    static func backoff(attempts: Int64) -> Int64 { 30 * max(attempts, 1) }

    /// Due rows, each claimed (pushed out by its backoff) before it is returned, so two processes
    /// never send the same code twice at once.
    static func claimDue(db: Database, now: UnixTime) -> [Due] {
        let rows: [Row]
        do {
            rows = try db.query(
                """
                SELECT id, mode, client_id, code, id_token, refresh_token, relay_cleanup_id, attempts, retry_until,
                  subject_hash
                FROM apple_revocations WHERE state = 'retry' AND next_attempt_at <= ? AND retry_until > ?
                ORDER BY next_attempt_at LIMIT ?
                """,
                [.integer(now), .integer(now), .integer(Int64(retriesPerRequest))])
        } catch {
            SysLog.error("frontdoor apple-revocation result=query-failed detail=\(error.detail ?? error.message)")
            return []
        }
        var due: [Due] = []
        for row in rows {
            guard let id = row.text(0), let mode = row.text(1).flatMap(Config.Apple.Mode.init(rawValue:)),
                let until = row.int(8)
            else { continue }
            let attempts = (row.int(7) ?? 0) + 1
            let claimed = try? db.run(
                """
                UPDATE apple_revocations SET attempts = ?, next_attempt_at = ?, updated_at = ?
                WHERE id = ? AND state = 'retry' AND next_attempt_at <= ?
                """,
                [
                    .integer(attempts), .integer(now + backoff(attempts: attempts)), .integer(now), .text(id),
                    .integer(now),
                ])
            guard claimed == 1 else { continue }
            let kept = Kept(
                clientId: row.text(2), code: SealedColumn.open(row.text(3), db: db, binding: SealedColumn.revocation("code", id)),
                idToken: SealedColumn.open(row.text(4), db: db, binding: SealedColumn.revocation("id_token", id)),
                refreshToken: SealedColumn.open(row.text(5), db: db, binding: SealedColumn.revocation("refresh_token", id)),
                relayCleanupId: row.int(6), subjectHash: row.blob(9), until: until)
            due.append(Due(id: id, mode: mode, kept: kept, attempts: attempts))
        }
        return due
    }
}
