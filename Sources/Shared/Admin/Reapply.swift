/// Re-applies the ledger (rule 13) to a store put back from a snapshot (by `restore`, or by other
/// means and then `reapply-deletions`): every account it names that the store still holds is
/// deleted the normal way (sessions, the audit row, `account.deleted`, the work after it), and
/// every other security action since is done again (`SecurityLedger`): the sessions it ended end,
/// the passkeys and identities it removed go, a password whose version is not the last one the
/// ledger names is cleared, an account whose address is older than the last change the ledger
/// names is disabled (the ledger holds no address to put back, and mail to the old one could take
/// the account), a block or a disable holds as the last line about it says. Each step
/// only takes away, and only what is still there, so running it twice changes nothing the second
/// time. The lines of an attempt that withdrew them are skipped.
enum Reapply {
    struct Outcome {
        var reapplied = 0
        var lines = 0
        var unreadable = 0
        var withdrawn = 0
        var sessionsEnded = 0
        var passkeysRemoved = 0
        var passwordsCleared = 0
        var addressesBehind = 0
        var identitiesRemoved = 0
        var disabled = 0
        var enabled = 0
        var blocks = 0

        /// The members `reapply-deletions` and `restore` print besides `deletionsReapplied`.
        var json: [(String, JSONValue)] {
            [
                ("ledgerLines", .number(Double(lines))), ("unreadableLines", .number(Double(unreadable))),
                ("withdrawnLines", .number(Double(withdrawn))),
                ("reapplied", .object([
                    ("deletions", .number(Double(reapplied))), ("sessionsEnded", .number(Double(sessionsEnded))),
                    ("passkeysRemoved", .number(Double(passkeysRemoved))),
                    ("passwordsCleared", .number(Double(passwordsCleared))),
                    ("addressesBehind", .number(Double(addressesBehind))),
                    ("identitiesRemoved", .number(Double(identitiesRemoved))),
                    ("identityBlocksChanged", .number(Double(blocks))),
                    ("disabled", .number(Double(disabled))), ("enabled", .number(Double(enabled))),
                ])),
            ]
        }
    }

    /// Actions per transaction after the deletions: a ledger of years re-applies in bounded steps.
    static let batch = 256

    /// `missingIsEmpty`: a ledger that is not there yet (no security action ever) names nobody;
    /// otherwise a ledger the operator named and that is missing is an error.
    static func run(ledgers: [String], context: RequestContext, missingIsEmpty: Bool) throws -> Outcome {
        var outcome = Outcome()
        var entries: [LedgerEntry] = []
        for (source, path) in ledgers.enumerated() {
            guard Files.exists(path) else {
                if missingIsEmpty { continue }
                throw AdminError(.notFound, "There is no ledger at \(path).")
            }
            let contents = try LedgerFile.read(path)
            outcome.lines += contents.entries.count
            outcome.unreadable += contents.unreadable
            entries += contents.entries.map { entry in
                var entry = entry
                entry.source = source
                return entry
            }
        }
        if outcome.unreadable > 0 {
            SysLog.warning("frontdoor reapply-deletions unreadable-lines=\(outcome.unreadable) skipped")
        }
        let ordered = effective(entries)
        outcome.withdrawn = entries.filter { $0.action != .withdrawn }.count - ordered.count

        let auditKey = try DeletionAudit.key(config: context.config)
        var seen = Set<String>()
        // One transaction each: one killed half-way leaves the rest to the next run.
        for entry in ordered where entry.action == .deleted && seen.insert(entry.accountId).inserted {
            if try AccountDeletion.deleteForOperator(
                entry.accountId, ledger: .alreadyThere, auditKey: auditKey, context: context)
            {
                outcome.reapplied += 1
            }
        }
        let db = try context.database()
        try reapplyActions(ordered.filter { !seen.contains($0.accountId) }, db: db, outcome: &outcome)
        if outcome.reapplied > 0 {
            AccountDeletion.afterCommit(db, AppleRevocation.AfterAnswer(context: context, plan: nil))
        }
        return outcome
    }

    /// The lines to re-apply: all but those of an attempt that withdrew them (and the withdrawals),
    /// in time order; several boxes' ledgers make one story (a sort that keeps each file's order).
    static func effective(_ entries: [LedgerEntry]) -> [LedgerEntry] {
        let withdrawn = Set(entries.filter { $0.action == .withdrawn }.compactMap(\.attempt))
        let kept = entries.filter { entry in
            entry.action != .withdrawn && !(entry.attempt.map(withdrawn.contains) ?? false)
        }
        return kept.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// The versions of a password or an address that may stand: the last line's. Within one
    /// ledger a later line replaces an earlier (the changes of one row were written in the order
    /// they committed); at the same second in another box's ledger either may be the last, and
    /// either stands.
    typealias Versions = (time: UnixTime, source: Int, versions: Set<String>)

    static func last(_ known: Versions?, _ entry: LedgerEntry, _ version: String) -> Versions {
        guard let known, known.time == entry.time, known.source != entry.source else {
            return (entry.time, entry.source, [version])
        }
        return (entry.time, entry.source, known.versions.union([version]))
    }

    /// Everything but the deletions, oldest first, in transactions of `batch` lines.
    static func reapplyActions(_ entries: [LedgerEntry], db: Database, outcome: inout Outcome) throws {
        // A password and a disable end as the account's last line about them says.
        var lastPassword: [String: Versions] = [:]
        var lastAddress: [String: Versions] = [:]
        var lastDisable: [String: LedgerEntry] = [:]
        var steps: [LedgerEntry] = []
        for entry in entries {
            switch entry.action {
            case .passwordChanged(let version):
                lastPassword[entry.accountId] = Self.last(lastPassword[entry.accountId], entry, version)
            case .addressChanged(let version):
                lastAddress[entry.accountId] = Self.last(lastAddress[entry.accountId], entry, version)
            case .disabled, .enabled:
                // The later line of one ledger wins (a disable and an enable of one account were
                // written in the order they committed, under one lock); at the same second in two
                // boxes' ledgers a disable wins: when in doubt, disabled.
                if let last = lastDisable[entry.accountId], last.time == entry.time, last.source != entry.source,
                    last.action == .disabled
                {
                    continue
                }
                lastDisable[entry.accountId] = entry
            default:
                steps.append(entry)
            }
        }
        var start = 0
        while start < steps.count {
            let chunk = steps[start..<min(start + batch, steps.count)]
            let counts = try db.transaction { () throws(FrontdoorError) -> Outcome in
                var counts = Outcome()
                for entry in chunk { try apply(entry, db: db, counts: &counts) }
                return counts
            }
            outcome.sessionsEnded += counts.sessionsEnded
            outcome.passkeysRemoved += counts.passkeysRemoved
            outcome.identitiesRemoved += counts.identitiesRemoved
            outcome.blocks += counts.blocks
            start += batch
        }
        let passwords = lastPassword.sorted { $0.key < $1.key }
        start = 0
        while start < passwords.count {
            let chunk = passwords[start..<min(start + batch, passwords.count)]
            outcome.passwordsCleared += try db.transaction { () throws(FrontdoorError) -> Int in
                var cleared = 0
                for (accountId, last) in chunk { cleared += try clearOlderPassword(accountId, last: last, db: db) }
                return cleared
            }
            start += batch
        }
        let disables = lastDisable.values.sorted { $0.accountId < $1.accountId }
        start = 0
        while start < disables.count {
            let chunk = disables[start..<min(start + batch, disables.count)]
            let (disabled, enabled) = try db.transaction { () throws(FrontdoorError) -> (Int, Int) in
                var (disabled, enabled) = (0, 0)
                for entry in chunk {
                    if entry.action == .disabled {
                        disabled += try db.run(
                            "UPDATE accounts SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL",
                            [.integer(entry.time), .text(entry.accountId)])
                    } else {
                        enabled += try db.run(
                            "UPDATE accounts SET disabled_at = NULL WHERE id = ? AND disabled_at IS NOT NULL",
                            [.text(entry.accountId)])
                    }
                }
                return (disabled, enabled)
            }
            outcome.disabled += disabled
            outcome.enabled += enabled
            start += batch
        }
        // After the disables, so an `enabled` line from before the change cannot undo it.
        let addresses = lastAddress.sorted { $0.key < $1.key }
        start = 0
        while start < addresses.count {
            let chunk = addresses[start..<min(start + batch, addresses.count)]
            outcome.addressesBehind += try db.transaction { () throws(FrontdoorError) -> Int in
                var behind = 0
                for (accountId, last) in chunk { behind += try disableOlderAddress(accountId, last: last, db: db) }
                return behind
            }
            start += batch
        }
    }

    /// An account whose address is not the one the ledger names last holds the address the
    /// person left: it is disabled (sign-ins 403, no mail to that address, `MailWithheld`) until
    /// the operator has heard from the person and runs `enable`; the person then signs in and
    /// changes the address again. Its version is set to the last one, so a second run leaves an
    /// enabled account alone. 1 when it disabled one.
    static func disableOlderAddress(
        _ accountId: String, last: Versions, db: Database
    ) throws(FrontdoorError) -> Int {
        guard let row = try db.query("SELECT email_version FROM accounts WHERE id = ?", [.text(accountId)]).first
        else { return 0 }
        if let version = row.text(0), last.versions.contains(version) { return 0 }
        try db.run(
            "UPDATE accounts SET disabled_at = coalesce(disabled_at, ?), email_version = ? WHERE id = ?",
            [.integer(last.time), .text(last.versions.sorted().last ?? ""), .text(accountId)])
        SysLog.warning("frontdoor reapply account=\(accountId) address-behind disabled")
        return 1
    }

    /// One line's action on the store as the snapshot left it. What came later than the line
    /// (a passkey or an identity added again after it went) stays.
    static func apply(_ entry: LedgerEntry, db: Database, counts: inout Outcome) throws(FrontdoorError) {
        let account = SQLValue.text(entry.accountId)
        switch entry.action {
        case .sessionsEnded(let ids):
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            counts.sessionsEnded += try db.run(
                "DELETE FROM sessions WHERE account_id = ? AND session_id IN (\(marks))", [account] + ids.map(SQLValue.text))
        case .passkeyRemoved(let id):
            guard let credential = Base64URL.decode(id), !credential.isEmpty else { return }
            counts.passkeysRemoved += try db.run(
                "DELETE FROM passkeys WHERE credential_id = ? AND account_id = ? AND created_at <= ?",
                [.blob(credential), account, .integer(entry.time)])
        case .identityRemoved(let provider):
            counts.identitiesRemoved += try db.run(
                "DELETE FROM identities WHERE account_id = ? AND provider = ? AND created_at <= ?",
                [account, .text(provider), .integer(entry.time)])
        case .identityBlocked(let provider):
            counts.blocks += try db.run(
                """
                UPDATE identities SET blocked_at = ? WHERE account_id = ? AND provider = ? AND created_at <= ?
                  AND (blocked_at IS NULL OR blocked_at < ?)
                """,
                [.integer(entry.time), account, .text(provider), .integer(entry.time), .integer(entry.time)])
        case .identityUnblocked(let provider):
            counts.blocks += try db.run(
                "UPDATE identities SET blocked_at = NULL WHERE account_id = ? AND provider = ? AND blocked_at <= ?",
                [account, .text(provider), .integer(entry.time)])
        case .deleted, .passwordChanged, .addressChanged, .disabled, .enabled, .withdrawn:
            return
        }
    }

    /// The snapshot's password stays only when it is the one the ledger names last; any other
    /// (older) hash goes, and the person chooses a new password by a reset, which proves the
    /// address. 1 when it cleared one.
    static func clearOlderPassword(
        _ accountId: String, last: Versions, db: Database
    ) throws(FrontdoorError) -> Int {
        guard let row = try db.query(
            "SELECT password_hash IS NOT NULL, password_version FROM accounts WHERE id = ?", [.text(accountId)]
        ).first else { return 0 }
        if let version = row.text(1), last.versions.contains(version) { return 0 }
        let newest = last.versions.sorted().last ?? ""
        try db.run(
            "UPDATE accounts SET password_hash = NULL, password_version = ? WHERE id = ?",
            [.text(newest), .text(accountId)])
        return row.int(0) == 1 ? 1 : 0
    }
}
