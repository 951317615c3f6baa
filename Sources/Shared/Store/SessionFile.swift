/// On SQLite, the sessions (rule 11) live in a file of their own beside the store,
/// `<store>-sessions`, so that the session check, which every protected request of the app makes,
/// opens a file whose schema is one table and its three indexes, and never parses the store's
/// (docs/sqlite.md, "The session file").
///
/// Every other connection opens the session file as `main` and attaches the store as `store`:
/// unqualified names find `sessions` in the one and every other table in the other, so the SQL is
/// the same as on PostgreSQL, where the sessions stay in the one database. `BEGIN IMMEDIATE` takes
/// both files' write locks, so writers stay serialised as with one file. What a split loses is the
/// atomic commit across files: SQLite commits a connection's files in order, `main` first. So a
/// transaction that writes both makes its change to the sessions durable before the store's:
/// - taking access away (a deletion, a disable, a sign-out everywhere, a reset ending other
///   sessions): the sessions are gone before the store changes; killed between, the store keeps
///   what it had and no session of it is left;
/// - a sign-in: its session is made before the store records the sign-in; killed between, the
///   answer carrying the token was never written, so nobody holds that session's token: it can
///   never be presented, and it expires (housekeeping removes it).
/// The check then needs nothing from the store: no session of a deleted or disabled account can
/// exist, since those take its sessions away in the same transaction, first.
enum SessionFile {
    /// The file beside the store.
    static func path(_ databasePath: String) -> String { databasePath + "-sessions" }

    /// `PRAGMA user_version` of a session file that holds the sessions: 0 means made but not filled
    /// (`takeOver` not finished), and then the store's own `sessions` table, if any, is the truth.
    /// 2 adds `account_views` (`AccountView`); a file at 1 gets it at the next open of the store.
    static let version = 2

    /// The store's `sessions` as it stands since `Migrations.settings`, without the foreign key (the
    /// accounts are in the other file; the statements that end an account end its sessions).
    static let schema = """
        CREATE TABLE IF NOT EXISTS sessions (token_hash BLOB PRIMARY KEY,session_id TEXT NOT NULL,\
        account_id TEXT NOT NULL,device_name TEXT,created_at INTEGER NOT NULL,last_used_at INTEGER NOT NULL,\
        expires_at INTEGER NOT NULL,signed_in_at INTEGER NOT NULL DEFAULT 0) STRICT,WITHOUT ROWID;
        CREATE UNIQUE INDEX IF NOT EXISTS sessions_public_id ON sessions(session_id);
        CREATE INDEX IF NOT EXISTS sessions_account ON sessions(account_id);
        CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions(expires_at);
        CREATE TABLE IF NOT EXISTS account_views (account_id TEXT PRIMARY KEY,email TEXT,\
        email_verified INTEGER NOT NULL,providers TEXT NOT NULL) STRICT,WITHOUT ROWID;
        """

    static let columns = "token_hash, session_id, account_id, device_name, created_at, last_used_at, expires_at, signed_in_at"

    /// Fills the session file from the store's own `sessions` table, when the store has one (a
    /// store from before `Migrations.sessionFile`, or a snapshot put back, which keeps its sessions
    /// inside, by `restore` or by hand), replacing what the file held, then drops the store's table;
    /// `store` is a connection with the store as `main`, inside its write transaction. The session
    /// file commits first; killed before the
    /// store's commit, the store still has the table and the next open fills the file again from
    /// it. The file is marked filled (`finish`) only after the store's commit.
    static func takeOver(from store: SQLiteDatabase) throws(FrontdoorError) {
        let sessions = try SQLiteDatabase(sessionFileOf: store.path, busyTimeoutMillis: store.busyTimeoutMillis)
        defer { sessions.close() }
        try sessions.transaction { () throws(FrontdoorError) in
            try sessions.executeScript(schema)
            // The views are the store's, and this store may be another (a snapshot put back) or
            // changed by a migration that no view saw: each is built again when first asked for.
            try sessions.run("DELETE FROM account_views")
            let inStore = try store.query("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'sessions'")
            guard inStore.first?.int(0) == 1 else { return }
            // The store's own table is the truth until it is dropped: the file is not filled before.
            try sessions.executeScript("PRAGMA user_version = 0")
            try sessions.run("DELETE FROM sessions")
            for row in try store.query("SELECT \(columns) FROM sessions") {
                try sessions.run(
                    "INSERT INTO sessions (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row.values)
            }
        }
        try store.run("DROP TABLE IF EXISTS sessions")
    }

    /// Marks the session file filled, once the store no longer has its own `sessions`.
    static func finish(storePath: String, busyTimeoutMillis: Int) throws(FrontdoorError) {
        let sessions = try SQLiteDatabase(sessionFileOf: storePath, busyTimeoutMillis: busyTimeoutMillis)
        defer { sessions.close() }
        try sessions.transaction { () throws(FrontdoorError) in
            guard try sessions.userVersion() < version else { return }
            try sessions.executeScript(schema)
            try sessions.executeScript("PRAGMA user_version = \(version)")
        }
    }
}
