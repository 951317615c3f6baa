/// What the phone's session check answers about an account (its address, whether that is proven,
/// its ways in), kept on SQLite in the session file beside the sessions, so that the check reads
/// one file and never parses the store's schema (docs/sqlite.md, "The account views").
///
/// A view is a copy, and the store stays the truth. No code writes a view but `built`; a change
/// to what one shows deletes it in the same transaction, before the store's commit: the
/// connection's preupdate hook notes every row of `accounts`, `identities` and `passkeys` a
/// statement touches (`frontdoor_sqlite3_view_hook`), and `SQLiteDatabase.transaction` deletes
/// those accounts' views in `main`, which commits first. So a view, when present, is what the
/// store says now: a process killed between the two commits leaves the view gone and the store
/// as it was. A check that finds none builds it from the store inside `BEGIN IMMEDIATE`, which
/// waits for any writer, so it cannot copy what a writer is about to change.
struct AccountView: Equatable {
    var email: String?
    var emailVerified: Bool
    /// Ways in, as the answer lists them (`SessionBody`'s order: identities and passkey, then password).
    var providers: [String]

    /// The view in the session file alone; nil when there is none.
    static func read(_ db: Database, accountId: String) throws(FrontdoorError) -> AccountView? {
        guard let row = try db.query(
            "SELECT email, email_verified, providers FROM account_views WHERE account_id = ?", [.text(accountId)]
        ).first else { return nil }
        return AccountView(email: row.text(0), emailVerified: row.int(1) == 1, providers: words(row.text(2)))
    }

    /// The view as the store has it, written to the session file for the next check; nil when the
    /// account is gone or disabled. `db` is the whole store (the session file with it attached).
    static func built(_ db: Database, accountId: String) throws(FrontdoorError) -> AccountView? {
        try db.transaction { () throws(FrontdoorError) -> AccountView? in
            TestHooks.pause("account-view")
            guard let view = try fromStore(db, accountId: accountId) else { return nil }
            try db.run(
                "INSERT OR REPLACE INTO account_views (account_id, email, email_verified, providers) VALUES (?, ?, ?, ?)",
                [.text(accountId), view.email.map(SQLValue.text) ?? .null, .integer(view.emailVerified ? 1 : 0),
                 .text(view.providers.joined(separator: " "))])
            return view
        }
    }

    /// The view the store's rows give; nil for an account that is gone or disabled.
    static func fromStore(_ db: Database, accountId: String) throws(FrontdoorError) -> AccountView? {
        guard let account = try db.query(
            "SELECT email, email_verified, password_hash IS NOT NULL FROM accounts WHERE id = ? AND disabled_at IS NULL",
            [.text(accountId)]
        ).first else { return nil }
        var providers = try PasskeyStore.providers(accountId, db)
        if account.int(2) == 1 { providers.append("password") }
        return AccountView(email: account.text(0), emailVerified: account.int(1) == 1, providers: providers)
    }

    /// Deletes the views of accounts left with no session, signed out or expired: copies of the
    /// store's rows that no check reads again (a new session's first check builds one). Returns
    /// how many went; PostgreSQL keeps no views.
    static func pruneOrphans(_ db: Database) throws(FrontdoorError) -> Int {
        guard !db.isPostgres else { return 0 }
        return try db.run("DELETE FROM account_views WHERE account_id NOT IN (SELECT account_id FROM sessions)")
    }

    /// Provider names are words, so a space joins them.
    static func words(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map(String.init)
    }
}
