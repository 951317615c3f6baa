/// `frontdoor-check`'s relay findings (issue 15): relay users Firebase still keeps past the
/// window in which they can delete themselves, the service account that deletes them, and every
/// revocation the `c_hash` gate refused. None of it may be silent.
public enum SelfCheckRelay {
    /// A mark older than this is a call that will never be answered (a process lives minutes at most).
    static let unansweredAfter: Int64 = 600

    static func findings(_ config: Config) -> [SelfCheck.Finding] {
        var out: [SelfCheck.Finding] = []
        if let firebase = config.firebase, let file = firebase.serviceAccountFile {
            out.append(serviceAccountFinding(file: file, tokenUrl: firebase.oauthTokenUrl))
        }
        // A closed door (a restore) is reported by the database's finding; its store is left alone.
        guard !Door.isClosed(config.databasePath), let db = try? Database(path: config.databasePath) else { return out }
        if config.apple?.mode == .relay || config.firebase != nil {
            out += relayUserFindings(db, serviceAccount: config.firebase?.serviceAccountFile != nil)
        }
        if config.apple != nil { out += codeHashFindings(db) }
        return out
    }

    /// The key is read and an assertion signed here, so a broken file shows now, not when a relay
    /// user first needs it.
    static func serviceAccountFinding(file: String, tokenUrl: String) -> SelfCheck.Finding {
        do {
            let account = try ServiceAccount.load(path: file)
            _ = try GoogleOAuth.assertion(account: account, tokenUrl: tokenUrl, now: Clock.now())
            return SelfCheck.Finding(
                ok: true,
                text: "Firebase service account \(account.clientEmail): signs the Admin API's token requests "
                    + "(relay users past the deletion window are deleted by uid; it needs firebaseauth.users.delete)")
        } catch {
            return SelfCheck.Finding(ok: false, text: "Firebase service account: \(error.detail ?? error.message)")
        }
    }

    static func relayUserFindings(_ db: Database, serviceAccount: Bool) -> [SelfCheck.Finding] {
        func uids(_ state: String) -> (count: Int64, shown: [String]) {
            let count = (try? db.query("SELECT count(*) FROM relay_cleanups WHERE state = ?", [.text(state)]))?
                .first?.int(0) ?? 0
            let shown = (try? db.query(
                "SELECT relay_uid FROM relay_cleanups WHERE state = ? ORDER BY created_at LIMIT ?",
                [.text(state), .integer(Int64(SelfCheck.idsShown))]))?.compactMap { $0.text(0) } ?? []
            return (count, shown)
        }
        func list(_ found: (count: Int64, shown: [String])) -> String { SelfCheck.listed(found.shown, of: Int(found.count)) }
        let removeByHand = "remove them in the Firebase console (Authentication → Users; search by uid), then "
            + "run frontdoor-check --forget-relay-users"
        var out: [SelfCheck.Finding] = []
        let past = uids(RelayCleanup.State.admin.rawValue)
        let stuck = uids(RelayCleanup.State.stuck.rawValue)
        if past.count > 0 && !serviceAccount {
            out.append(SelfCheck.Finding(
                ok: false,
                text: "relay: \(past.count) relay users past the deletion window are kept by Firebase (with the "
                    + "person's Apple sub and email): \(removeByHand), or set firebase.serviceAccountFile; uids: "
                    + list(past)))
        } else if past.count > 0 {
            out.append(SelfCheck.Finding(
                ok: true, text: "relay: \(past.count) relay users past the deletion window wait for the Admin API"))
        }
        if stuck.count > 0 {
            out.append(SelfCheck.Finding(
                ok: false,
                text: "relay: \(stuck.count) relay users the Admin API could not delete in "
                    + "\(RelayCleanup.adminMaxAttempts) tries (syslog: relay-cleanup result=stuck): "
                    + "\(removeByHand); uids: " + list(stuck)))
        }
        // A call sent and never answered may have made a user nobody knows (see `RelaySends`).
        let lost = (try? db.query(
            "SELECT count(*) FROM relay_sends WHERE sent_at <= ?", [.integer(Clock.now() - unansweredAfter)]))?
            .first?.int(0) ?? 0
        if lost > 0 {
            out.append(SelfCheck.Finding(
                ok: false,
                text: "relay: \(lost) relay sign-ins got no answer after sending: Firebase may keep a user for each "
                    + "(the person's next sign-in removes it); in the relay's own project every user older than ten "
                    + "minutes is a leftover: remove them in the Firebase console (Authentication → Users), then run "
                    + "frontdoor-check --forget-relay-users"))
        }
        if past.count == 0 && stuck.count == 0 {
            let pending = (try? db.query("SELECT count(*) FROM relay_cleanups"))?.first?.int(0) ?? 0
            out.append(SelfCheck.Finding(
                ok: true, text: "relay: no relay user past the deletion window (\(pending) being deleted)"))
        }
        return out
    }

    /// Relay mode refuses a revocation whose fresh token's `c_hash` does not bind its code; direct
    /// mode revokes by the token endpoint's `sub` and notes what `c_hash` said. Either, counted.
    static func codeHashFindings(_ db: Database) -> [SelfCheck.Finding] {
        func count(_ sql: String) -> Int64 { (try? db.query(sql))?.first?.int(0) ?? 0 }
        let refused = count(
            "SELECT count(*) FROM apple_revocations WHERE mode = 'relay' AND state = 'mismatch' AND detail LIKE 'c_hash%'")
        let differed = count(
            "SELECT count(*) FROM apple_revocations WHERE mode = 'direct' AND detail LIKE 'c_hash%' AND detail NOT LIKE 'c_hash matched%'")
        let matched = count("SELECT count(*) FROM apple_revocations WHERE mode = 'direct' AND detail LIKE 'c_hash matched%'")
        var out: [SelfCheck.Finding] = []
        if refused > 0 {
            out.append(SelfCheck.Finding(
                ok: false,
                text: "Apple revocation: \(refused) relay revocations in the last 30 days revoked nothing because the "
                    + "fresh token's c_hash did not bind the code (syslog: apple-revocation result=mismatch detail=c_hash); "
                    + "if every one does, Apple's c_hash is not what OIDC says: see docs/apple.md"))
        }
        if differed > 0 {
            out.append(SelfCheck.Finding(
                ok: false,
                text: "Apple revocation: \(differed) direct revocations (of \(differed + matched)) whose c_hash did not "
                    + "match their code (revoked anyway, bound by Apple's token endpoint): the relay's c_hash gate would "
                    + "refuse such codes; see docs/apple.md"))
        }
        if refused == 0 && differed == 0 {
            out.append(SelfCheck.Finding(
                ok: true, text: "Apple revocation: no c_hash refusal or difference in the last 30 days (\(matched) matched)"))
        }
        return out
    }

    /// `frontdoor-check --forget-relay-users`: the operator removed them in the console; the
    /// records past the window go, and the marks of calls never answered. Returns the uids.
    public static func forgetPastWindow(_ config: Config) throws(FrontdoorError) -> [String] {
        let db = try Database(path: config.databasePath)
        return try db.transaction { () throws(FrontdoorError) -> [String] in
            let rows = try db.query(
                "DELETE FROM relay_cleanups WHERE state IN ('admin', 'stuck') RETURNING relay_uid")
            try db.run("DELETE FROM relay_sends WHERE sent_at <= ?", [.integer(Clock.now() - unansweredAfter)])
            return rows.compactMap { $0.text(0) }
        }
    }
}
