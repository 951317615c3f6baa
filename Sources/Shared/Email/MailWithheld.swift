/// Why nothing may be mailed to an account's address, every answer staying what it would have
/// been: a provider stopped mail to it (`ProviderEventStore.mailStopped`: a hijacked Google
/// account's address, a relay address Apple no longer forwards), or the operator disabled the
/// account (rule 14), where a code or a reset could only end in 403 `account_disabled` and its
/// mail would tell the address's holder, and nobody else, that the account exists.
enum MailWithheld: String {
    case provider = "the address is stopped by a provider's event"
    case disabled = "the account is disabled"

    /// nil when mail may go. In the caller's transaction.
    static func reason(_ accountId: String, db: Database) throws(FrontdoorError) -> MailWithheld? {
        if try ProviderEventStore.mailStopped(accountId, db: db) { return .provider }
        let disabled = try db.query(
            "SELECT 1 FROM accounts WHERE id = ? AND disabled_at IS NOT NULL", [.text(accountId)])
        return disabled.isEmpty ? nil : .disabled
    }
}
