/// What proving the inbox by code (a join by code, a password reset) does beyond marking the
/// email verified: identities whose provider never spoke for the address go (rule 3: they may be
/// a stale Google address in the wrong hands, as a typed password may be a squatter's).
enum InboxProof {
    static func dropUnprovenIdentities(of accountId: String, db: Database, now: UnixTime) throws(FrontdoorError) {
        let dropped = try db.query(
            "DELETE FROM identities WHERE account_id = ? AND email_proven = 0 RETURNING provider", [.text(accountId)])
        for provider in Set(dropped.compactMap { $0.text(0) }).sorted() {
            try SecurityLedger.identityRemoved(provider, accountId: accountId, db: db, now: now)
        }
    }
}
