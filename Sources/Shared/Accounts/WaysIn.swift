/// An account's ways in, counted by the one rule every "is this the last way in?" uses (rule 18's
/// `unlink`, `frontdoor-admin unlink`, a provider's deletion of its identity, a takeback's removal
/// of passkeys): each provider identity; a passkey, however many the account holds; and the
/// password only with a proven email, since the first proof of that inbox by code clears a typed
/// address's password (rule 3) and so it cannot be relied on to get back in.
enum WaysIn {
    /// The account's ways in, sorted (`apple`, `google`, `passkey`, `password`); nil when there is
    /// no such account. In the caller's transaction.
    static func of(_ accountId: String, db: Database) throws(FrontdoorError) -> [String]? {
        guard let row = try db.query(
            "SELECT password_hash IS NOT NULL AND email_verified = 1 FROM accounts WHERE id = ?", [.text(accountId)]
        ).first else { return nil }
        var ways = try PasskeyStore.providers(accountId, db)
        if row.int(0) == 1 { ways.append("password") }
        return ways.sorted()
    }

    /// Whether a way in other than `removed` would remain.
    static func remain(_ ways: [String], without removed: String) -> Bool {
        ways.contains { $0 != removed }
    }
}
