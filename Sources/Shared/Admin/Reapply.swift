/// Re-applies the deletion ledger (rule 13): every account it names that the store still holds
/// is deleted the normal way (sessions, the audit row, `account.deleted`, the work after it), as
/// after a restore, which brings back whoever the snapshot held. Accounts already gone are
/// skipped, so running it twice deletes nobody twice.
enum Reapply {
    struct Outcome {
        var reapplied = 0
        var lines = 0
        var unreadable = 0
    }

    /// `missingIsEmpty`: a ledger that is not there yet (no deletion ever) names nobody; otherwise
    /// a ledger the operator named and that is missing is an error.
    static func run(ledgers: [String], context: RequestContext, missingIsEmpty: Bool) throws -> Outcome {
        var outcome = Outcome()
        var ids: [String] = []
        var seen = Set<String>()
        for path in ledgers {
            guard Files.exists(path) else {
                if missingIsEmpty { continue }
                throw AdminError(.notFound, "There is no ledger at \(path).")
            }
            let contents = try DeletionLedger.read(path)
            outcome.lines += contents.entries.count
            outcome.unreadable += contents.unreadable
            for entry in contents.entries where seen.insert(entry.accountId).inserted { ids.append(entry.accountId) }
        }
        if outcome.unreadable > 0 {
            SysLog.warning("frontdoor reapply-deletions unreadable-lines=\(outcome.unreadable) skipped")
        }
        let auditKey = try DeletionAudit.key(config: context.config)
        // One transaction each: one killed half-way leaves the rest to the next run.
        for id in ids {
            if try AccountDeletion.deleteForOperator(id, ledger: .alreadyThere, auditKey: auditKey, context: context) {
                outcome.reapplied += 1
            }
        }
        if outcome.reapplied > 0 {
            AccountDeletion.afterCommit(try context.database(), AppleRevocation.AfterAnswer(context: context, plan: nil))
        }
        return outcome
    }
}
