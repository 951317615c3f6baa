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
        guard !Door.isClosed(config.databasePath), let db = try? Database(config: config) else { return out }
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
        let lost = (try? Ephemeral.count(.relaySend, sinceAtOrBefore: Clock.now() - unansweredAfter, db: db)) ?? 0
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

    /// What `--forget-relay-users` did.
    public struct Forgotten: Sendable {
        /// Records dropped: users Firebase no longer has (or, without a service account, the
        /// operator's word that they were removed).
        public var forgotten: [String] = []
        /// Users Firebase still has: kept.
        public var stillThere: [String] = []
        /// Users that could not be looked up, with why: kept.
        public var unchecked: [(uid: String, reason: String)] = []
        /// Past the window and waiting for the Admin API, which deletes them itself: kept.
        public var waitingForAdmin = 0
        /// Whether Firebase was asked (a service account is configured).
        public var lookedUp = false
        public var ok: Bool { stillThere.isEmpty && unchecked.isEmpty }
    }

    /// `frontdoor-check --forget-relay-users`: the operator says the relay users past the window
    /// are gone from Firebase. With a service account each uid is first looked up by `localId`,
    /// and only those Firebase no longer has are dropped; records waiting for the Admin API are
    /// kept, since the server deletes those users itself. Without one nothing can ask Firebase, and
    /// the operator's word is taken. The marks of calls never answered go either way (they name no
    /// user).
    public static func forgetPastWindow(_ config: Config) throws(FrontdoorError) -> Forgotten {
        let db = try Database(config: config)
        var result = Forgotten()
        let admin = config.firebase.flatMap {
            FirebaseAdmin(firebase: $0, config: config, client: RequestContext.curlClient(config), db: db)
        }
        let records = try db.query(
            "SELECT DISTINCT relay_uid, state FROM relay_cleanups WHERE state IN ('admin', 'stuck') ORDER BY relay_uid")
        var gone: [String] = []
        for row in records {
            guard let uid = row.text(0) else { continue }
            guard let admin else {
                gone.append(uid)
                continue
            }
            result.lookedUp = true
            if row.text(1) == RelayCleanup.State.admin.rawValue {
                result.waitingForAdmin += 1
                continue
            }
            switch admin.lookupUser(localId: uid, now: Clock.now()) {
            case .gone: gone.append(uid)
            case .exists: result.stillThere.append(uid)
            case .failed(let reason): result.unchecked.append((uid, reason))
            }
        }
        // Collected inside and kept after: on PostgreSQL the body may run more than once.
        result.forgotten = try db.transaction { () throws(FrontdoorError) -> [String] in
            var forgotten: [String] = []
            for uid in gone {
                let dropped = try db.run(
                    "DELETE FROM relay_cleanups WHERE relay_uid = ? AND state IN ('admin', 'stuck')", [.text(uid)])
                if dropped > 0 { forgotten.append(uid) }
            }
            try Ephemeral.remove(.relaySend, sinceAtOrBefore: Clock.now() - unansweredAfter, db: db)
            return forgotten
        }
        return result
    }

    /// What `--forget-relay-users` prints: ✓ for what was done or rightly kept, ✗ for what the
    /// operator still has to do.
    public static func lines(_ done: Forgotten) -> [String] {
        var out: [String] = []
        let uids = done.forgotten.isEmpty ? "" : ": " + done.forgotten.joined(separator: ", ")
        if done.lookedUp {
            out.append("✓ forgot \(done.forgotten.count) relay users past the deletion window that Firebase no longer has\(uids)")
        } else {
            out.append(
                "✓ forgot \(done.forgotten.count) relay users past the deletion window\(uids)"
                    + (done.forgotten.isEmpty ? "" : " (not looked up without firebase.serviceAccountFile: "
                        + "taken as removed in the Firebase console)"))
        }
        if done.waitingForAdmin > 0 {
            out.append(
                "✓ kept \(done.waitingForAdmin) relay users past the deletion window that the Admin API is deleting "
                    + "(firebase.serviceAccountFile)")
        }
        if !done.stillThere.isEmpty {
            out.append(
                "✗ kept \(done.stillThere.count) relay users Firebase still has: remove them in the Firebase console "
                    + "(Authentication → Users; search by uid), then run this again; uids: "
                    + done.stillThere.joined(separator: ", "))
        }
        for (uid, reason) in done.unchecked {
            out.append("✗ kept relay user \(uid): it could not be looked up (\(reason))")
        }
        return out
    }
}
