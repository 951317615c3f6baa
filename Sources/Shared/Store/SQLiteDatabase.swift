import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite engine behind `Database`: one connection to the store's file, used by one thread.
/// Each CGI process opens its own; SQLite's file locks coordinate them.
///
/// Every connection is set up the same way:
/// - `synchronous`: FULL by default (`Database.Durability.powerCutSafe`): every commit is synced before it
///   returns, so a committed account deletion or sign-out survives a power cut. A sign-in that
///   only hands out a session may ask for NORMAL (`.crashSafe`) and skip the two fsyncs.
/// - `secure_delete=ON` (deleted content is overwritten) and `foreign_keys=ON` (cascades work).
/// - A short back-off busy handler (see `BusyHandler`) instead of SQLite's 100 ms sleeps.
/// - `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE` and `SQLITE_FCNTL_PERSIST_WAL`: a process's close neither
///   checkpoints nor deletes the WAL, which would otherwise cost every request about 0.3 ms. The
///   WAL then keeps old page images, including deleted rows, until the next checkpoint:
///   `tidyWAL()`, which requests call after their answer once the WAL passes 64 pages (SQLite's
///   automatic checkpoint is replaced: see the WAL hook in shim.h), or `checkpoint()`, which a
///   deletion calls.
///
/// Errors: a lock still held after `busyTimeoutMillis` throws `upstream_unavailable` (503, retry
/// after one second); every other failure throws `internal` with a detail
/// `sqlite: <op>: <message> (<extended code>)` that never contains a bound value. A constraint
/// violation is such an internal error: where a conflict is expected (a unique email, a claimed
/// nonce), write `INSERT … ON CONFLICT DO NOTHING` and look at the change count instead.
final class SQLiteDatabase {
    /// The database file's path; its WAL is this plus `-wal`.
    let path: String
    /// The session file, when this connection has it (`SessionFile`): as `main`, with the store
    /// attached, or alone (`sessionFileOnly`). nil for a store opened at a version before it.
    let sessionPath: String?
    /// A connection to the session file alone (the session check's).
    let sessionFileOnly: Bool
    private var handle: OpaquePointer?
    private let busy: BusyHandler
    let busyTimeoutMillis: Int
    /// The WAL's frame count after this connection's last commit (the WAL hook writes it).
    private let walFrames: UnsafeMutablePointer<Int32>
    /// The accounts whose views (`AccountView`) the open transaction's changes touch (the
    /// preupdate hook writes it); split connections only.
    private var viewChanges: UnsafeMutablePointer<frontdoor_view_changes>?
    /// Prepared statements by SQL text, searched one by one (a request uses a dozen), the newest
    /// first. A list of its own class: an array of `(String, Statement)` pairs cost each process
    /// ~24 K instructions of run-time set-up for its element type, a `[String: Statement]` ~100 K.
    private var cache: CachedStatement?

    private final class CachedStatement {
        let sql: String
        let statement: Statement
        let next: CachedStatement?

        init(sql: String, statement: Statement, next: CachedStatement?) {
            self.sql = sql
            self.statement = statement
            self.next = next
        }
    }

    /// The connection's fields; every opening below starts here.
    private init(path: String, busyTimeoutMillis: Int, sessionPath: String?, sessionFileOnly: Bool) {
        self.path = path
        self.busyTimeoutMillis = busyTimeoutMillis
        busy = BusyHandler(timeoutMillis: busyTimeoutMillis)
        walFrames = .allocate(capacity: 1)
        walFrames.initialize(to: 0)
        self.sessionPath = sessionPath
        self.sessionFileOnly = sessionFileOnly
    }

    /// Opens the database at `path`, creating the file with mode 0600 if missing (its directory
    /// must exist), configures the connection and brings the schema to `target`. Safe when
    /// several processes do it at once. A database from a newer version of the code is refused.
    /// From `Migrations.sessionFile` on, the connection has the session file as `main` and the
    /// store attached as `store` (`SessionFile`); a `target` before it opens the store alone.
    /// (A failure closes the connection: `deinit`.)
    convenience init(
        path: String, busyTimeoutMillis: Int, durability: Database.Durability, upTo target: Int,
        serverKey: Migrations.ServerKey? = nil
    ) throws(FrontdoorError) {
        let split = target >= Migrations.sessionFileVersion
        self.init(
            path: path, busyTimeoutMillis: busyTimeoutMillis, sessionPath: split ? SessionFile.path(path) : nil,
            sessionFileOnly: false)
        try Self.createFile(path)
        guard split else {
            try openStore(durability, target: target, serverKey: serverKey)
            return
        }
        guard try !openSplit(durability, target: target) else { return }
        close()
        // Behind, or new: one process at a time (`SetupLock`); whoever waited finds it done.
        try SetupLock.hold(folderOf: path) { () throws(FrontdoorError) in
            if try openSplit(durability, target: target) { return }
            // The store is brought up to date on a connection of its own (the migrations'
            // statements name no file), and the session file filled.
            close()
            let store = SQLiteDatabase(path: path, busyTimeoutMillis: busyTimeoutMillis, sessionPath: nil, sessionFileOnly: false)
            try store.openStore(.powerCutSafe, target: target, serverKey: serverKey)
            try store.transaction { () throws(FrontdoorError) in try SessionFile.takeOver(from: store) }
            store.close()
            try SessionFile.finish(storePath: path, busyTimeoutMillis: busyTimeoutMillis)
            guard try openSplit(durability, target: target) else {
                throw .internal("sqlite: open: the session file \(SessionFile.path(path)) is still not filled")
            }
        }
    }

    /// The session file alone (`SessionFile`), created when missing: for its set-up.
    convenience init(sessionFileOf storePath: String, busyTimeoutMillis: Int) throws(FrontdoorError) {
        let path = SessionFile.path(storePath)
        self.init(path: storePath, busyTimeoutMillis: busyTimeoutMillis, sessionPath: path, sessionFileOnly: true)
        try Self.createFile(path)
        handle = try Self.openHandle(path)
        try configure(.powerCutSafe)
        if try query("PRAGMA journal_mode").first?.text(0) != "wal" { try switchToWAL() }
    }

    /// The filled session file alone, for the session check: nil when it is missing or not filled
    /// (or from a newer version), and the check then opens the whole store, which sets it up.
    static func filledSessionFile(
        storePath: String, busyTimeoutMillis: Int, durability: Database.Durability
    ) throws(FrontdoorError) -> SQLiteDatabase? {
        let path = SessionFile.path(storePath)
        _ = processSetUp
        var db: OpaquePointer?
        // No SQLITE_OPEN_CREATE: a missing file is the whole store's to set up.
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            sqlite3_close(db)
            return nil
        }
        let sessions = SQLiteDatabase(
            path: storePath, busyTimeoutMillis: busyTimeoutMillis, sessionPath: path, sessionFileOnly: true)
        sessions.handle = db
        try sessions.configure(durability)
        return try sessions.userVersion() == SessionFile.version ? sessions : nil
    }

    /// The store alone, configured and brought to `target`.
    private func openStore(
        _ durability: Database.Durability, target: Int, serverKey: Migrations.ServerKey?
    ) throws(FrontdoorError) {
        handle = try Self.openHandle(path)
        try configure(durability)
        try migrate(to: target, serverKey: serverKey)
    }

    /// Opens the session file as `main` with the store attached; false when either is behind
    /// (the store's schema, or a session file not yet filled).
    private func openSplit(_ durability: Database.Durability, target: Int) throws(FrontdoorError) -> Bool {
        let sessions = SessionFile.path(path)
        try Self.createFile(sessions)
        handle = try Self.openHandle(sessions)
        try configure(durability)
        try run("ATTACH ? AS store", [.text(path)])
        try configureAttached(durability)
        guard let own = try query("PRAGMA main.user_version").first?.int(0),
            let store = try query("PRAGMA store.user_version").first?.int(0)
        else { throw .internal("sqlite: user_version: no value") }
        try checkNotNewer(Int(store))
        guard own <= SessionFile.version else {
            throw .internal("sqlite: open: the session file is at version \(own), newer than this program's; deploy the newer binaries")
        }
        // WAL is a property of each file; a new store, or a restored copy of one, may be without
        // it: behind, switched under the set-up lock (`migrate`). (The session file is never copied
        // back: it is made in WAL mode, `SessionFile`.)
        guard try query("PRAGMA store.journal_mode").first?.text(0) == "wal" else { return false }
        guard store >= target && own == SessionFile.version else { return false }
        let changes = viewChanges ?? UnsafeMutablePointer<frontdoor_view_changes>.allocate(capacity: 1)
        changes.initialize(to: frontdoor_view_changes())
        viewChanges = changes
        frontdoor_sqlite3_watch_views(try openHandle(), changes)
        // A snapshot put back by hand beside a live session file brings its own sessions: those
        // are the store's, and the file's (of the store before) must not outlive them. ATTACH has
        // read the schema, so the C call answers without a statement.
        let db = try openHandle()
        return sqlite3_table_column_metadata(db, "store", "sessions", nil, nil, nil, nil, nil, nil) != SQLITE_OK
    }

    deinit {
        close()
        // After the close: SQLite no longer holds the hooks' pointers.
        walFrames.deallocate()
        viewChanges?.deallocate()
    }

    /// Deletes the views of the accounts the changes since the last call touched (all of them
    /// when more than the hook holds).
    private func forgetChangedViews() throws(FrontdoorError) {
        guard let changes = viewChanges, changes.pointee.count > 0 || changes.pointee.all != 0 else { return }
        let all = changes.pointee.all != 0
        var ids: [String] = []
        if !all {
            withUnsafeBytes(of: &changes.pointee.ids) { raw in
                for slot in 0..<Int(changes.pointee.count) {
                    let bytes = raw[(slot * Int(FRONTDOOR_VIEW_ID_BYTES))...].prefix { $0 != 0 }
                    ids.append(String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        changes.pointee.count = 0
        changes.pointee.all = 0
        if all {
            try run("DELETE FROM main.account_views")
        } else {
            for id in ids { try run("DELETE FROM main.account_views WHERE account_id = ?", [.text(id)]) }
        }
    }

    /// Runs one statement with `params` bound to its `?` placeholders and returns every row.
    func query(_ sql: String, _ params: [SQLValue] = []) throws(FrontdoorError) -> [Row] {
        try withStatement(sql, params) { db, statement throws(FrontdoorError) in try statement.rows(db) }
    }

    /// Runs one statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, _ params: [SQLValue] = []) throws(FrontdoorError) -> Int {
        try withStatement(sql, params) { db, statement throws(FrontdoorError) in
            _ = try statement.rows(db)
            return Int(sqlite3_changes64(db))
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so the body
    /// never meets a lock conflict halfway. When the body or the commit throws, everything is rolled
    /// back and the error rethrown. Transactions do not nest: calling this inside one throws.
    @discardableResult
    func transaction<T>(_ body: () throws(FrontdoorError) -> T) throws(FrontdoorError) -> T {
        let db = try openHandle()
        guard sqlite3_get_autocommit(db) != 0 else {
            throw SQLiteError.make("transaction", SQLITE_MISUSE, "already inside a transaction")
        }
        try run("BEGIN IMMEDIATE")
        viewChanges?.pointee.count = 0
        viewChanges?.pointee.all = 0
        do throws(FrontdoorError) {
            let result = try body()
            // In `main`, which commits first: a process killed before the store's commit leaves
            // the views gone and the store as it was, and a check builds them again from it.
            try forgetChangedViews()
            try run("COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Copies the WAL into the database and truncates it to zero bytes, so deleted rows no longer
    /// sit in it. Unlike `tidyWAL`, waits (up to the busy timeout) for other connections. Throws `upstream_unavailable` when other connections kept it from finishing within
    /// the busy timeout; after a deletion that has committed, log that and carry on.
    func checkpoint() throws(FrontdoorError) {
        guard sqlite3_get_autocommit(try openHandle()) != 0 else {
            throw SQLiteError.make("checkpoint", SQLITE_MISUSE, "inside a transaction")
        }
        let rows = try query("PRAGMA wal_checkpoint(TRUNCATE)")
        if rows.first?.int(0) == 1 {
            throw SQLiteError.make("checkpoint", SQLITE_BUSY, "other connections kept the WAL from being truncated")
        }
    }

    /// `checkpoint()`, and when other connections kept it from finishing, the marker that has a
    /// later process (after its answer) or `frontdoor-check --prune` finish it. True when done.
    @discardableResult
    func checkpointOrOwe() -> Bool {
        do {
            try checkpoint()
            return true
        } catch {
            let fd = StoreFiles.open(Database.checkpointOwedPath(path), flags: O_WRONLY, databasePath: path)
            if fd >= 0 { Glibc.close(fd) }
            return false
        }
    }

    /// Pays an owed checkpoint. The marker goes first, so one left by a deletion that commits
    /// meanwhile survives until a checkpoint that comes after its commit.
    @discardableResult
    func payOwedCheckpoint() -> Bool {
        guard unlink(Database.checkpointOwedPath(path)) == 0 else { return false }
        return checkpointOrOwe()
    }

    /// The session file as `main` with the store attached (`SessionFile`).
    var isSplit: Bool { sessionPath != nil && !sessionFileOnly }

    /// Inside `BEGIN … COMMIT`.
    var inTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// The WAL's length in frames (pages) after this connection's last commit; 0 before any.
    var walFrameCount: Int { Int(walFrames.pointee) }

    /// Checkpoints and empties the WAL once it holds `threshold` frames, without waiting for other
    /// connections (when one is busy it checkpoints what it can and leaves the rest). Every process
    /// re-reads the whole WAL when it opens, so keeping it short keeps every request cheap; callers
    /// do this after their answer is out.
    func tidyWAL(threshold: Int) {
        guard walFrameCount >= threshold else { return }
        emptyWAL()
    }

    /// The WAL file's size in bytes (0 once emptied; -1 when it cannot be read). Unlike
    /// `walFrameCount`, it counts other connections' commits too.
    var walFileBytes: Int {
        var info = stat()
        var total = -1
        for file in walPaths where stat(file, &info) == 0 {
            total = max(total, 0) + Int(info.st_size)
        }
        return total
    }

    /// The WALs of the files this connection has.
    private var walPaths: [String] {
        guard let sessionPath else { return [path + "-wal"] }
        return sessionFileOnly ? [sessionPath + "-wal"] : [sessionPath + "-wal", path + "-wal"]
    }

    /// What `tidyWAL` does, whatever the WAL's length: for a connection that only read, and found
    /// a WAL that other processes' commits left (see `walFileBytes`).
    func emptyWAL() {
        guard let db = handle, sqlite3_get_autocommit(db) != 0 else { return }
        guard frontdoor_sqlite3_no_busy_handler(db) == SQLITE_OK else { return }
        defer { try? busy.install(on: db) }
        // PASSIVE first: it copies the frames and does the syncs without the writer lock, so the
        // TRUNCATE after it holds up the next commit only for the truncation, not for two fsyncs.
        _ = try? query("PRAGMA wal_checkpoint(PASSIVE)")
        if let row = try? query("PRAGMA wal_checkpoint(TRUNCATE)").first, row.int(0) == 0 {
            walFrames.pointee = 0
        }
    }

    /// Rows this connection has inserted, updated or deleted since it opened (rolled-back ones
    /// included): non-zero means it may have committed a write.
    var changedRows: Int { handle.map { Int(sqlite3_total_changes64($0)) } ?? 0 }

    /// Finalizes every statement and closes the connection. Further calls throw `internal`.
    func close() {
        guard let db = handle else { return }
        handle = nil
        var cached = cache
        while let entry = cached {
            entry.statement.finalize()
            cached = entry.next
        }
        cache = nil
        // Every statement is finalized, so this succeeds; close_v2 would still free the handle
        // once a stray statement goes, rather than leak it.
        if sqlite3_close(db) != SQLITE_OK {
            sqlite3_close_v2(db)
        }
    }

    // MARK: - Statements

    private func openHandle() throws(FrontdoorError) -> OpaquePointer {
        guard let handle else { throw SQLiteError.make("use", SQLITE_MISUSE, "the database is closed") }
        return handle
    }

    private func withStatement<T>(
        _ sql: String, _ params: [SQLValue], _ body: (OpaquePointer, Statement) throws(FrontdoorError) -> T
    ) throws(FrontdoorError) -> T {
        let db = try openHandle()
        var found: Statement?
        var cached = cache
        while let entry = cached, found == nil {
            if entry.sql == sql { found = entry.statement }
            cached = entry.next
        }
        let statement: Statement
        if let found {
            statement = found
        } else {
            statement = try Statement.prepare(db, sql)
            cache = CachedStatement(sql: sql, statement: statement, next: cache)
        }
        do throws(FrontdoorError) {
            try statement.bind(db, params)
            let result = try body(db, statement)
            let rc = statement.reset()
            guard rc == SQLITE_OK else { throw SQLiteError.make(db, "reset", rc) }
            if let changes = viewChanges, changes.pointee.count > 0 || changes.pointee.all != 0, sqlite3_get_autocommit(db) != 0 {
                // A change outside `transaction` has committed already: its views go at once
                // (a crash just before would leave them standing, so no endpoint does this).
                TestHooks.viewChangeOutsideTransaction()
                try forgetChangedViews()
            }
            return result
        } catch {
            _ = statement.reset()
            throw error
        }
    }

    private func rollback() {
        viewChanges?.pointee.count = 0
        viewChanges?.pointee.all = 0
        // SQLite ends the transaction itself after some errors; ROLLBACK then has nothing to do.
        guard let db = handle, sqlite3_get_autocommit(db) == 0 else { return }
        do throws(FrontdoorError) {
            try run("ROLLBACK")
        } catch {
            // A connection that cannot roll back must not be used again; closing it rolls back.
            close()
        }
    }

    // MARK: - Opening

    private static func createFile(_ path: String) throws(FrontdoorError) {
        // SQLite would create the file 0644; its -wal and -shm files copy the database's mode, and
        // (when root) its owner, which is the folder's (`StoreFiles`).
        let fd = StoreFiles.open(path, flags: O_RDWR, databasePath: path)
        guard fd >= 0 else {
            let code = errno
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            if code == ENOENT {
                throw .internal("sqlite: open: the directory \(directory.isEmpty ? "/" : directory) does not exist")
            }
            throw .internal("sqlite: open: cannot create \(path): \(String(cString: strerror(code)))")
        }
        Glibc.close(fd)
    }

    /// Once a process, before SQLite initialises (a later call is refused and changes nothing).
    static let processSetUp: Void = {
        _ = frontdoor_sqlite3_no_memstatus()
        _ = frontdoor_sqlite3_no_bulk_page_cache()
        TestHooks.armCommitPause()
    }()

    static func openHandle(_ path: String) throws(FrontdoorError) -> OpaquePointer {
        _ = processSetUp
        var db: OpaquePointer?
        // NOMUTEX: a connection belongs to one thread. EXRESCODE: errors carry extended codes.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError.make(db, "open", rc)
            // A failed open can still return a handle, and it must be closed.
            sqlite3_close(db)
            throw error
        }
        return db
    }

    private func configure(_ durability: Database.Durability) throws(FrontdoorError) {
        let db = try openHandle()
        try busy.install(on: db)
        var noCheckpoint: Int32 = 0
        var rc = frontdoor_sqlite3_db_config_int(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &noCheckpoint)
        guard rc == SQLITE_OK, noCheckpoint == 1 else { throw SQLiteError.make(db, "db_config NO_CKPT_ON_CLOSE", rc) }
        var persistWAL: Int32 = 1
        rc = frontdoor_sqlite3_persist_wal(db, "main", &persistWAL)
        guard rc == SQLITE_OK else { throw SQLiteError.make(db, "file_control PERSIST_WAL", rc) }
        let synchronous = durability == .powerCutSafe ? "FULL" : "NORMAL"
        // secure_delete is the build's default where it was compiled in (make deps' is): said
        // again, it cost each open ~10 K instructions.
        let secureDelete = sqlite3_compileoption_used("SECURE_DELETE") == 1 ? "" : "; PRAGMA secure_delete = ON"
        try Statement.executeScript(db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = \(synchronous)" + secureDelete)
        frontdoor_sqlite3_watch_wal(db, walFrames)
    }

    /// The store attached as `store` gets what `configure` gave `main` (`secure_delete` it takes
    /// from `main` when attached).
    private func configureAttached(_ durability: Database.Durability) throws(FrontdoorError) {
        let db = try openHandle()
        var persistWAL: Int32 = 1
        let rc = frontdoor_sqlite3_persist_wal(db, "store", &persistWAL)
        guard rc == SQLITE_OK else { throw SQLiteError.make(db, "file_control PERSIST_WAL", rc) }
        try Statement.executeScript(db, "PRAGMA store.synchronous = \(durability == .powerCutSafe ? "FULL" : "NORMAL")")
    }

    /// Runs `script`, statements separated by semicolons, without parameters.
    func executeScript(_ script: String) throws(FrontdoorError) {
        try Statement.executeScript(try openHandle(), script)
    }

    // MARK: - Migrations

    /// Cheap when current: two reads of the header. When behind, the version is read again under
    /// the write lock, so of several processes starting together exactly one applies each script.
    private func migrate(to target: Int, serverKey: Migrations.ServerKey?) throws(FrontdoorError) {
        let version = try userVersion()
        try checkNotNewer(version)
        // WAL is a property of the file and cannot change inside a transaction. Checked even when
        // the schema is current, since a restored copy of the file may have come back without it.
        if try query("PRAGMA journal_mode").first?.text(0) != "wal" {
            try switchToWAL()
        }
        guard version < target else { return }
        try transaction { () throws(FrontdoorError) in
            let current = try userVersion()
            try checkNotNewer(current)
            guard current < target else { return }
            let db = try openHandle()
            for script in Migrations.scripts[current..<target] {
                try Statement.executeScript(db, script)
                try Migrations.afterScript(script, in: self, serverKey: serverKey)
            }
            // PRAGMA takes no bound parameters; the value is our own constant.
            try Statement.executeScript(db, "PRAGMA user_version = \(target)")
            // A migration under live traffic: the test holds one here, everything done but the commit.
            TestHooks.pause("migrating")
        }
    }

    /// Several processes opening a new file at once all try this, and each needs the file to
    /// itself: SQLite answers SQLITE_BUSY at once, without the busy handler, when waiting could
    /// deadlock. So the switch is retried here, with a short back-off, within the busy timeout.
    private func switchToWAL(_ schema: String = "main") throws(FrontdoorError) {
        let deadline = Clock.monotonicMillis() + Double(busyTimeoutMillis)
        var pause: UInt32 = 200
        while true {
            do throws(FrontdoorError) {
                let mode = try query("PRAGMA \(schema).journal_mode = WAL").first?.text(0)
                guard mode == "wal" else {
                    throw FrontdoorError.internal(
                        "sqlite: journal_mode: could not switch to WAL (still \(mode ?? "unknown"))")
                }
                return
            } catch where error.code == .upstreamUnavailable && Clock.monotonicMillis() < deadline {
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
        }
    }

    func userVersion() throws(FrontdoorError) -> Int {
        guard let version = try query("PRAGMA user_version").first?.int(0) else {
            throw .internal("sqlite: user_version: no value")
        }
        return Int(version)
    }

    private func checkNotNewer(_ version: Int) throws(FrontdoorError) {
        guard version <= Database.schemaVersion else {
            throw .internal(
                "sqlite: migrate: the database is at schema version \(version), newer than this program's "
                    + "\(Database.schemaVersion); deploy the newer binaries")
        }
    }
}

@available(*, unavailable)
extension SQLiteDatabase: Sendable {}
