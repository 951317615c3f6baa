/// When the person, Google or the operator takes an account back (a reset, signing out everywhere,
/// a join by code that ends the sessions, Google's `account-disabled` for hijacking, the
/// operator's disable or sign-out), the sessions from before it end, and so must every passkey
/// they added: a stolen session could have added one, and it would outlive the recovery.
///
/// The rule: a takeback that ends the sessions made up to `cutoff` removes every passkey added by
/// a session made up to `cutoff`, whether that session is ended now or had already ended (a
/// stolen session that added a passkey and then signed itself out is covered too). The takeback
/// trusts only sign-ins after its cutoff, and nothing tells an intruder's passkey from the
/// person's, so the person adds theirs again. Passkeys added by sessions made after the cutoff
/// (after Google's event, say) stay. A takeback never removes the last way in: an account whose
/// only ways in are those passkeys keeps them (syslog says so), since removing them would lock
/// the person out for good; the person deletes the one they do not know from the list.
enum PasskeyTakeback {
    /// In the transaction that ends the sessions; how many passkeys went. Writes `account.unlinked`
    /// (`provider` `passkey`) once when any did. Call after the takeback's own way in is written
    /// (a reset's password, a join's identity), which counts. Each passkey removed stages its
    /// ledger line (`SecurityLedger.passkeyRemoved`).
    static func run(
        _ accountId: String, sessionsMadeBy cutoff: UnixTime, db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) -> Int {
        let counts = try db.query(
            "SELECT count(*), count(CASE WHEN session_made_at <= ? THEN 1 END) FROM passkeys WHERE account_id = ?",
            [.integer(cutoff), .text(accountId)]
        ).first
        let held = counts?.int(0) ?? 0
        let doomed = counts?.int(1) ?? 0
        guard doomed > 0 else { return 0 }
        if doomed == held, let ways = try WaysIn.of(accountId, db: db), !WaysIn.remain(ways, without: "passkey") {
            SysLog.warning(
                "frontdoor passkey takeback kept \(doomed) passkeys of account=\(accountId): they are its only way in")
            return 0
        }
        let removed = try db.query(
            "DELETE FROM passkeys WHERE account_id = ? AND session_made_at <= ? RETURNING credential_id",
            [.text(accountId), .integer(cutoff)]
        ).compactMap { $0.blob(0) }
        // Each its own ledger line, so a restore takes them back again (rule 13).
        for credentialId in removed {
            try SecurityLedger.passkeyRemoved(credentialId, accountId: accountId, db: db, now: now)
        }
        try Events.record(.unlinked(provider: "passkey"), accountId: accountId, in: db, config: config, now: now)
        return removed.count
    }
}
