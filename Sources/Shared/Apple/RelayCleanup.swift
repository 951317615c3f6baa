#if canImport(Glibc)
import Glibc
#endif

/// Rule 4: the relay keeps nobody. Each relay user gets a clean-up record the moment
/// `signInWithIdp` answers (its id and refresh token, nothing about the person, no account); the
/// record goes only when the user is gone. The request that made the user deletes it after its
/// answer; a deletion that fails is retried by later requests, a few records each, with backoff.
public enum RelayCleanup {
    /// A relay user this process made and deletes after its answer.
    public struct Pending: Sendable {
        public let localId: String
        public let idToken: String?
        public let refreshToken: String?
        public var recordId: Int64?
    }

    /// Records one request retries after its answer: bounded work whatever the backlog.
    static let retriesPerRequest = 3
    /// How long other processes leave a fresh record alone while the process that wrote it deletes.
    static let ownerLeaseSeconds: Int64 = 120

    /// Seconds before the next try after `attempts` failed ones: 1, 2, 4 … minutes, at most a day.
    static func backoff(attempts: Int64) -> Int64 {
        min(Int64(30) << min(max(attempts, 1), 12), 86_400)
    }

    /// Writes the record; its id.
    public static func record(localId: String, refreshToken: String?, db: Database, now: UnixTime)
        throws(FrontdoorError) -> Int64
    {
        let rows = try db.query(
            """
            INSERT INTO relay_cleanups (relay_uid, refresh_token, attempts, next_attempt_at, created_at)
            VALUES (?, ?, 0, ?, ?) RETURNING id
            """,
            [
                .text(localId), refreshToken.map(SQLValue.text) ?? .null, .integer(now + ownerLeaseSeconds),
                .integer(now),
            ])
        guard let id = rows.first?.int(0) else { throw .internal("relay_cleanups: insert returned no id") }
        return id
    }

    /// After the answer: deletes the relay user this request made, and settles its record.
    public static func finish(_ pending: Pending, relay: FirebaseRelay, db: Database, now: UnixTime) {
        var pending = pending
        let outcome = delete(localId: pending.localId, idToken: pending.idToken, refreshToken: pending.refreshToken,
                             relay: relay)
        if pending.recordId == nil, outcome != nil {
            // The record could not be written before the answer; one more try, so a retry can happen.
            pending.recordId = try? record(
                localId: pending.localId, refreshToken: pending.refreshToken, db: db, now: now)
        }
        guard let id = pending.recordId else {
            if let outcome {
                SysLog.error("frontdoor relay-cleanup uid=\(pending.localId) result=unrecorded detail=\(outcome)")
            }
            return
        }
        settle(id: id, localId: pending.localId, failure: outcome, attempts: 1, db: db, now: now)
    }

    /// After the answer: a bounded number of due records, each claimed first (pushed out by its
    /// backoff), so two processes never work on the same one. Stops when `hasTime` says so.
    public static func retryDue(relay: FirebaseRelay, db: Database, now: UnixTime, hasTime: () -> Bool) {
        let due: [Row]
        do {
            due = try db.query(
                """
                SELECT id, relay_uid, refresh_token, attempts FROM relay_cleanups
                WHERE next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?
                """,
                [.integer(now), .integer(Int64(retriesPerRequest))])
        } catch {
            SysLog.error("frontdoor relay-cleanup result=query-failed detail=\(error.detail ?? error.message)")
            return
        }
        for row in due {
            guard hasTime() else { return }
            guard let id = row.int(0), let localId = row.text(1) else { continue }
            let attempts = (row.int(3) ?? 0) + 1
            do {
                let claimed = try db.run(
                    "UPDATE relay_cleanups SET attempts = ?, next_attempt_at = ? WHERE id = ? AND next_attempt_at <= ?",
                    [.integer(attempts), .integer(now + backoff(attempts: attempts)), .integer(id), .integer(now)])
                guard claimed == 1 else { continue }
            } catch {
                SysLog.error("frontdoor relay-cleanup result=claim-failed detail=\(error.detail ?? error.message)")
                return
            }
            var refreshToken = row.text(2)
            let failure = delete(localId: localId, idToken: nil, refreshToken: refreshToken, relay: relay) { fresh in
                refreshToken = fresh
            }
            if failure != nil, let refreshToken, refreshToken != row.text(2) {
                _ = try? db.run(
                    "UPDATE relay_cleanups SET refresh_token = ? WHERE id = ?", [.text(refreshToken), .integer(id)])
            }
            settle(id: id, localId: localId, failure: failure, attempts: attempts, db: db, now: now)
        }
    }

    /// Deletes the relay user with `idToken`, or with a fresh one from `refreshToken`. nil when the
    /// user is gone; otherwise why not (a short reason, never a token).
    static func delete(
        localId: String, idToken: String?, refreshToken: String?, relay: FirebaseRelay,
        rotated: (String) -> Void = { _ in }
    ) -> String? {
        do throws(FrontdoorError) {
            var token = idToken
            if token == nil {
                guard let refreshToken else { return "no token left to delete with (needs the operator)" }
                guard let fresh = try relay.refresh(refreshToken: refreshToken) else { return nil }
                if let next = fresh.refreshToken { rotated(next) }
                token = fresh.idToken
            }
            guard let token else { return "no token" }
            _ = try relay.deleteUser(idToken: token)
            return nil
        } catch {
            return error.detail ?? error.message
        }
    }

    private static func settle(
        id: Int64, localId: String, failure: String?, attempts: Int64, db: Database, now: UnixTime
    ) {
        do {
            if let failure {
                try db.run(
                    "UPDATE relay_cleanups SET attempts = ?, next_attempt_at = ? WHERE id = ?",
                    [.integer(attempts), .integer(now + backoff(attempts: attempts)), .integer(id)])
                SysLog.warning(
                    "frontdoor relay-cleanup uid=\(localId) result=retry attempts=\(attempts) detail=\(failure)")
            } else {
                try db.run("DELETE FROM relay_cleanups WHERE id = ?", [.integer(id)])
                SysLog.info("frontdoor relay-cleanup uid=\(localId) result=deleted attempts=\(attempts)")
            }
        } catch {
            let detail = error.detail ?? error.message
            SysLog.error("frontdoor relay-cleanup uid=\(localId) result=store-failed detail=\(detail)")
        }
    }
}
