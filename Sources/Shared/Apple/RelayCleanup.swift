#if canImport(Glibc)
import Glibc
#endif

/// Rule 4: the relay keeps nobody. Each relay user gets a clean-up record the moment
/// `signInWithIdp` answers (its id and refresh token, nothing about the person, no account); the
/// record goes only when the user is gone.
///
/// Firebase deletes a user with its own ID token only within a few minutes of its sign-in (a
/// refreshed token keeps the sign-in's `auth_time`), so a record lives in one of three states:
/// `token`, deleted with the user's own (refreshed) ID token until `delete_by_token_until`, first
/// by the process that made it, after its answer, then by later requests; `admin`, past that
/// window, deleted by `localId` through the Admin API when a service account is configured and
/// otherwise left, without its refresh token, to the operator (`frontdoor-check` counts them);
/// `stuck`, when the Admin API kept failing. Every failure is bounded by the window or a number
/// of tries; nothing is retried daily for ever.
public enum RelayCleanup {
    /// Firebase's recent sign-in for a deletion is five minutes (FirebaseUI-Android#478, from the
    /// Firebase team); four leave a minute for calls in flight. Measured on our own clock from
    /// before `signInWithIdp` was sent, which is no later than Firebase's `auth_time`.
    public static let deleteByTokenWindowSeconds: Int64 = 240
    /// Records one request retries after its answer: bounded work whatever the backlog.
    static let retriesPerRequest = 3
    /// The creating process's waits between tries of its own delete, after its answer.
    static let ownerRetryDelays: [Double] = [0.25, 1]
    /// Tries through the Admin API before a record is left to the operator.
    public static let adminMaxAttempts: Int64 = 8

    public enum State: String, Sendable { case token, admin, stuck }

    /// A relay user this process made and deletes after its answer.
    public struct Pending: Sendable {
        public let localId: String
        public var idToken: String?
        public var refreshToken: String?
        public var recordId: Int64?
        public let deleteByTokenUntil: UnixTime
    }

    /// How one attempt on a relay user ended.
    enum Attempt: Equatable {
        /// Deleted now, or already gone: the record goes.
        case gone(String)
        /// It can no longer be deleted with its own token.
        case pastWindow(String)
        /// Worth another try (bounded).
        case failed(String)
    }

    /// Seconds before the next try inside the window after `attempts` failed ones: 15, 30, 60.
    static func backoff(attempts: Int64) -> Int64 { min(Int64(15) << min(max(attempts - 1, 0), 2), 60) }

    /// Through the Admin API: 1, 2, 4 … minutes, at most six hours.
    static func adminBackoff(attempts: Int64) -> Int64 { min(Int64(60) << min(max(attempts - 1, 0), 9), 21_600) }

    /// How long other processes leave a fresh record to the process that made it (its ceiling
    /// ends it by then), never more than half the window.
    static func ownerLease(_ config: Config) -> Int64 {
        min(config.processLifetimeSeconds, deleteByTokenWindowSeconds / 2)
    }

    /// Writes the record, its refresh token sealed under the server key (`SealedColumn`); its id.
    /// `sentAt` is when `signInWithIdp` was sent.
    public static func record(
        localId: String, refreshToken: String, sentAt: UnixTime, lease: Int64, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> Int64 {
        let rows = try db.query(
            """
            INSERT INTO relay_cleanups (relay_uid, refresh_token, attempts, next_attempt_at, created_at, state,
              delete_by_token_until)
            VALUES (?, ?, 0, ?, ?, 'token', ?) RETURNING id
            """,
            [
                .text(localId),
                try SealedColumn.seal(refreshToken, db: db, binding: SealedColumn.relayRefreshToken(localId)),
                .integer(now + lease), .integer(now),
                .integer(sentAt + deleteByTokenWindowSeconds),
            ])
        guard let id = rows.first?.int(0) else { throw .internal("relay_cleanups: insert returned no id") }
        return id
    }

    /// Whether `localId` is a relay user this server made and has not seen gone: Firebase signs a
    /// returning Apple `sub` into its existing user, which is ours only if we hold its record.
    static func isKnown(localId: String, db: Database) throws(FrontdoorError) -> Bool {
        try db.query("SELECT 1 FROM relay_cleanups WHERE relay_uid = ? LIMIT 1", [.text(localId)]).first != nil
    }

    /// After the answer: the process that made the relay user deletes it, trying again a couple
    /// of times while its window and `hasTime` allow, and settles its record.
    public static func finish(_ pending: Pending, deleter: RelayDeleter, db: Database, hasTime: () -> Bool) {
        var pending = pending
        var outcome = deleter.deleteByToken(
            localId: pending.localId, idToken: pending.idToken, refreshToken: pending.refreshToken
        ) { fresh in pending.refreshToken = fresh }
        var tries: Int64 = 1
        for delay in ownerRetryDelays {
            guard case .failed = outcome else { break }
            guard hasTime(), Clock.now() + Int64(delay.rounded(.up)) + 1 < pending.deleteByTokenUntil else { break }
            usleep(UInt32(delay * 1_000_000))
            tries += 1
            outcome = deleter.deleteByToken(
                localId: pending.localId, idToken: pending.idToken, refreshToken: pending.refreshToken
            ) { fresh in pending.refreshToken = fresh }
        }
        if pending.recordId == nil, !outcome.isGone, let refresh = pending.refreshToken {
            // The record could not be written before the answer; one more try, so a retry can happen.
            pending.recordId = try? record(
                localId: pending.localId, refreshToken: refresh,
                sentAt: pending.deleteByTokenUntil - deleteByTokenWindowSeconds, lease: 0, db: db, now: Clock.now())
        }
        guard let id = pending.recordId else {
            if outcome.isGone { return }
            SysLog.error("frontdoor relay-cleanup uid=\(pending.localId) result=unrecorded detail=\(outcome.detail)")
            return
        }
        settle(Due(id: id, localId: pending.localId, refreshToken: pending.refreshToken, attempts: 0,
                   state: .token, deleteByTokenUntil: pending.deleteByTokenUntil, adminAttempts: 0),
               outcome: outcome, tries: tries, deleter: deleter, db: db, hasTime: hasTime)
    }

    struct Due {
        let id: Int64
        let localId: String
        var refreshToken: String?
        let attempts: Int64
        let state: State
        let deleteByTokenUntil: UnixTime
        let adminAttempts: Int64
    }

    /// After the answer: a bounded number of due records, each claimed first (pushed out by a
    /// lease), so two processes never work on the same one. Records past their window are
    /// looked at only with a service account. Stops when `hasTime` says so.
    public static func retryDue(deleter: RelayDeleter, db: Database, now: UnixTime, hasTime: () -> Bool) {
        let due: [Row]
        do {
            due = try db.query(
                """
                SELECT id, relay_uid, refresh_token, attempts, state, delete_by_token_until, admin_attempts
                FROM relay_cleanups
                WHERE next_attempt_at <= ? AND (state = 'token' OR (state = 'admin' AND ? = 1))
                ORDER BY next_attempt_at LIMIT ?
                """,
                [.integer(now), .integer(deleter.admin == nil ? 0 : 1), .integer(Int64(retriesPerRequest))])
        } catch {
            SysLog.error("frontdoor relay-cleanup result=query-failed detail=\(error.detail ?? error.message)")
            return
        }
        for row in due {
            guard hasTime() else { return }
            guard let id = row.int(0), let localId = row.text(1),
                let state = row.text(4).flatMap(State.init(rawValue:))
            else { continue }
            let lease = now + 2 * Int64(deleter.perCallSeconds) + 1
            do {
                let claimed = try db.run(
                    "UPDATE relay_cleanups SET next_attempt_at = ? WHERE id = ? AND next_attempt_at <= ?",
                    [.integer(lease), .integer(id), .integer(now)])
                guard claimed == 1 else { continue }
            } catch {
                SysLog.error("frontdoor relay-cleanup result=claim-failed detail=\(error.detail ?? error.message)")
                return
            }
            var record = Due(
                id: id, localId: localId,
                refreshToken: SealedColumn.open(row.text(2), db: db, binding: SealedColumn.relayRefreshToken(localId)),
                attempts: row.int(3) ?? 0, state: state,
                deleteByTokenUntil: row.int(5) ?? 0, adminAttempts: row.int(6) ?? 0)
            let outcome: Attempt
            if state == .token && Clock.now() < record.deleteByTokenUntil {
                outcome = deleter.deleteByToken(localId: localId, idToken: nil, refreshToken: record.refreshToken) {
                    fresh in record.refreshToken = fresh
                }
            } else if state == .token {
                outcome = .pastWindow("past the recent-sign-in window")
            } else {
                outcome = deleter.deleteByAdmin(localId: localId)
            }
            settle(record, outcome: outcome, tries: 1, deleter: deleter, db: db, hasTime: hasTime)
        }
    }

    /// Records what an attempt came to: gone, a later try, or the move past the window.
    static func settle(
        _ record: Due, outcome: Attempt, tries: Int64, deleter: RelayDeleter, db: Database, hasTime: () -> Bool
    ) {
        let now = Clock.now()
        let attempts = record.attempts + tries
        let uid = record.localId
        do {
            switch outcome {
            case .gone(let detail):
                // Every record of the user goes: a returning Apple `sub` may have reached it twice.
                try db.run("DELETE FROM relay_cleanups WHERE relay_uid = ?", [.text(uid)])
                SysLog.info("frontdoor relay-cleanup uid=\(uid) result=deleted attempts=\(attempts) detail=\(detail)")
            case .failed(let detail) where record.state == .token:
                try db.run(
                    "UPDATE relay_cleanups SET attempts = ?, next_attempt_at = ?, refresh_token = ?, detail = ? WHERE id = ?",
                    [
                        .integer(attempts), .integer(now + backoff(attempts: attempts)),
                        try SealedColumn.seal(record.refreshToken, db: db, binding: SealedColumn.relayRefreshToken(uid)),
                        .text(detail), .integer(record.id),
                    ])
                SysLog.warning("frontdoor relay-cleanup uid=\(uid) result=retry attempts=\(attempts) detail=\(detail)")
            case .failed(let detail):
                let tried = record.adminAttempts + tries
                let stuck = tried >= adminMaxAttempts
                try db.run(
                    """
                    UPDATE relay_cleanups SET attempts = ?, admin_attempts = ?, next_attempt_at = ?, state = ?,
                      detail = ? WHERE id = ?
                    """,
                    [
                        .integer(attempts), .integer(tried), .integer(now + adminBackoff(attempts: tried)),
                        .text(stuck ? State.stuck.rawValue : State.admin.rawValue), .text(detail), .integer(record.id),
                    ])
                if stuck {
                    SysLog.error(
                        "frontdoor relay-cleanup uid=\(uid) result=stuck attempts=\(attempts) detail=\(detail) "
                            + "(remove it in the Firebase console: Authentication, Users, search by uid)")
                } else {
                    SysLog.warning(
                        "frontdoor relay-cleanup uid=\(uid) result=retry-admin attempts=\(attempts) detail=\(detail)")
                }
            case .pastWindow(let detail):
                // Past the window the refresh token can delete nothing: it goes.
                try db.run(
                    """
                    UPDATE relay_cleanups SET attempts = ?, state = 'admin', refresh_token = NULL, next_attempt_at = ?,
                      detail = ? WHERE id = ?
                    """,
                    [.integer(attempts), .integer(now), .text(detail), .integer(record.id)])
                guard deleter.admin != nil else {
                    SysLog.error(
                        "frontdoor relay-cleanup uid=\(uid) result=past-window attempts=\(attempts) detail=\(detail) "
                            + "(no firebase.serviceAccountFile: remove it in the Firebase console, Authentication, "
                            + "Users, search by uid)")
                    return
                }
                guard hasTime() else { return }
                let next = Due(id: record.id, localId: uid, refreshToken: nil, attempts: attempts, state: .admin,
                               deleteByTokenUntil: record.deleteByTokenUntil, adminAttempts: record.adminAttempts)
                settle(next, outcome: deleter.deleteByAdmin(localId: uid), tries: 1, deleter: deleter, db: db,
                       hasTime: hasTime)
            }
        } catch {
            let detail = error.detail ?? error.message
            SysLog.error("frontdoor relay-cleanup uid=\(uid) result=store-failed detail=\(detail)")
        }
    }
}

extension RelayCleanup.Attempt {
    var isGone: Bool {
        if case .gone = self { return true }
        return false
    }

    var detail: String {
        switch self {
        case .gone(let why), .pastWindow(let why), .failed(let why): why
        }
    }
}
