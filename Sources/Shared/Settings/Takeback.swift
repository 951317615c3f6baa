/// When the person, Google or the operator takes an account back (a reset, signing out everywhere,
/// a join by code that ends the sessions, Google's `account-disabled` for hijacking, the
/// operator's disable or sign-out), the sessions from before it end, and so must everything they
/// did that could outlive them (rule 18): the passkeys they added, the identities they linked,
/// and the address change they began. A stolen session could have done any of these, and each
/// would outlive the recovery.
///
/// The rule: a takeback that ends the sessions made up to `cutoff` removes every passkey added and
/// every identity linked by a session made up to `cutoff`, whether that session is ended now or
/// had already ended (a stolen session that linked its Google and then signed itself out is
/// covered too), and every address change still waiting for its code. The takeback trusts only
/// sign-ins after its cutoff, and nothing tells an intruder's passkey or Google from the
/// person's, so the person adds theirs again. What sessions made after the cutoff added (after
/// Google's event, say) stays. A takeback never removes the last way in: an account whose only
/// ways in are those passkeys and identities keeps them all (syslog says so), since removing them
/// would lock the person out for good; the person removes the ones they do not know.
enum Takeback {
    /// In the transaction that ends the sessions; how many ways in went. Writes `account.unlinked`
    /// for each provider removed (`passkey` once). Call after the takeback's own way in is written
    /// (a reset's password, a join's identity), which counts. Each removal stages its ledger line.
    @discardableResult
    static func run(
        _ accountId: String, sessionsMadeBy cutoff: UnixTime, db: Database, config: Config, now: UnixTime
    ) throws(FrontdoorError) -> Int {
        try EmailChange.cancelPending(accountId, db: db)
        let passkeys = try db.query(
            "SELECT count(*), count(CASE WHEN session_made_at <= ? THEN 1 END) FROM passkeys WHERE account_id = ?",
            [.integer(cutoff), .text(accountId)]
        ).first
        let heldPasskeys = passkeys?.int(0) ?? 0
        let doomedPasskeys = passkeys?.int(1) ?? 0
        let doomedIdentities = try db.query(
            "SELECT provider FROM identities WHERE account_id = ? AND session_made_at <= ? ORDER BY provider",
            [.text(accountId), .integer(cutoff)]
        ).compactMap { $0.text(0) }
        guard doomedPasskeys > 0 || !doomedIdentities.isEmpty else { return 0 }
        if let ways = try WaysIn.of(accountId, db: db) {
            var left = ways.filter { !doomedIdentities.contains($0) }
            if doomedPasskeys == heldPasskeys { left.removeAll { $0 == "passkey" } }
            guard !left.isEmpty else {
                SysLog.warning(
                    "frontdoor takeback kept \(doomedPasskeys) passkeys and \(doomedIdentities.count) identities of "
                        + "account=\(accountId): they are its only ways in")
                return 0
            }
        }
        var removed = 0
        if doomedPasskeys > 0 {
            let credentials = try db.query(
                "DELETE FROM passkeys WHERE account_id = ? AND session_made_at <= ? RETURNING credential_id",
                [.text(accountId), .integer(cutoff)]
            ).compactMap { $0.blob(0) }
            // Each its own ledger line, so a restore takes them back again (rule 13).
            for credentialId in credentials {
                try SecurityLedger.passkeyRemoved(credentialId, accountId: accountId, db: db, now: now)
            }
            try Events.record(.unlinked(provider: "passkey"), accountId: accountId, in: db, config: config, now: now)
            removed += credentials.count
        }
        for provider in doomedIdentities {
            try db.run("DELETE FROM identities WHERE account_id = ? AND provider = ?", [.text(accountId), .text(provider)])
            try SecurityLedger.identityRemoved(provider, accountId: accountId, db: db, now: now)
            try Events.record(.unlinked(provider: provider), accountId: accountId, in: db, config: config, now: now)
            removed += 1
        }
        return removed
    }
}
