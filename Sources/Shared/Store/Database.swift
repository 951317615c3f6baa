#if canImport(Glibc)
import Glibc
#endif

/// The store, one connection of one thread, on either engine: the SQLite file (`databasePath`,
/// one box) or PostgreSQL through the box's pgbouncer (`postgresUrl`, several boxes). Callers
/// write each statement once, in the SQL both engines take (`?` placeholders; see `SQLDialect`
/// for what the PostgreSQL side rewrites), and get the same rows, counts and errors from either.
///
/// The engine is a stored enum, not a protocol: a request's dozen statements then cost one
/// switch each, and the SQLite path keeps the instructions it had (docs/layout.md says why the
/// shape is shared SQL and not a domain interface).
///
/// - `transaction` is one transaction on either: SQLite's `BEGIN IMMEDIATE` (the write lock up
///   front), PostgreSQL's `BEGIN ISOLATION LEVEL SERIALIZABLE`, where a serialization failure or a
///   deadlock runs the whole body again (so a body is store work only: no outbound call, no mail,
///   no sleep; it may run more than once).
/// - What only a file has (the WAL, its checkpoints and their marker, `secure_delete`) does
///   nothing on PostgreSQL: the server keeps its own log and vacuums deleted rows.
/// - Errors: `upstream_unavailable` (503) when the store cannot be had for now (a lock held past
///   the busy timeout; PostgreSQL or pgbouncer down, a lost connection, a conflict still standing
///   after the retries); `internal` for anything else, with a detail that never holds a bound value.
public final class Database {
    /// What a commit survives once it has returned.
    public enum Durability: Sendable {
        /// A power cut (`synchronous=FULL`: the WAL, and the first time its directory, are synced
        /// before the commit returns). For anything that takes access or data away.
        case powerCutSafe
        /// The process being killed, and a power cut leaves the file intact, but the last commits
        /// before a power cut may be lost (`synchronous=NORMAL`: the WAL is synced by the next
        /// power-cut-safe commit or checkpoint). For commits whose loss costs a person one more
        /// sign-in and nothing else. On PostgreSQL the same as `powerCutSafe`: an unflushed commit
        /// there does not survive a crash of the server, so no cheaper level keeps this promise.
        case crashSafe
    }

    /// The version the migrations bring a store to (`PRAGMA user_version` on SQLite, the row of
    /// `schema_version` on PostgreSQL): the same numbers on both.
    public static let schemaVersion = Migrations.scripts.count

    enum Engine {
        case sqlite(SQLiteDatabase)
        case postgres(PostgresDatabase)
    }

    let engine: Engine

    /// The SQLite file's path; on PostgreSQL, the stem of this box's own files (the events hint),
    /// beside the deletion ledger (`Config.databasePath`).
    public let path: String

    /// The ledger the security actions of this connection's transactions go to (`SecurityLedger`):
    /// the config's, or `deletions.ledger` beside `path`.
    public internal(set) var ledgerPath: String

    /// What the open transaction's current attempt has staged for the ledger.
    var ledgerStage = SecurityLedger.Stage()

    /// Sessions the open transaction made, on SQLite's split store: inserted once it has committed.
    var pendingSessions: [[SQLValue]] = []

    /// Whether a session made now waits for the transaction's commit (`SessionFile`): a sign-in's
    /// session begins after the store records the sign-in, so a process killed between the two
    /// leaves a sign-in without a session, never a session without its account.
    var defersSessionInserts: Bool {
        if case .sqlite(let db) = engine { return db.isSplit && db.inTransaction }
        return false
    }

    /// The server key, read when first needed (`SealedColumn`); nil for a store opened without its config.
    var serverKey: Migrations.ServerKey?
    private var columnKey: [UInt8]?

    /// The key of the sealed columns (`SealedColumn`), from the server key.
    func sealedColumnKey() throws(FrontdoorError) -> [UInt8] {
        if let columnKey { return columnKey }
        guard let serverKey else { throw .internal("store: a sealed column with no server key (opened without its config)") }
        let key = SealedColumn.key(serverKey: try serverKey())
        columnKey = key
        return key
    }

    /// Opens the SQLite database at `path`, creating the file with mode 0600 if missing (its
    /// directory must exist), configures the connection and brings the schema to `schemaVersion`.
    /// Safe when several processes do it at once. A database from a newer version of the code is refused.
    public convenience init(path: String, busyTimeoutMillis: Int = 5000, durability: Durability = .powerCutSafe)
        throws(FrontdoorError)
    {
        try self.init(path: path, busyTimeoutMillis: busyTimeoutMillis, durability: durability, upTo: Self.schemaVersion)
    }

    /// Brings a new SQLite file only `upTo` an older schema version: for tests of the migrations.
    /// `serverKey`: for a migration that seals (a store opened by its config has it).
    init(
        path: String, busyTimeoutMillis: Int = 5000, durability: Durability = .powerCutSafe, upTo target: Int,
        serverKey: (() throws(FrontdoorError) -> [UInt8])? = nil
    ) throws(FrontdoorError) {
        self.path = path
        ledgerPath = LedgerFile.beside(path)
        self.serverKey = serverKey
        engine = .sqlite(
            try SQLiteDatabase(
                path: path, busyTimeoutMillis: busyTimeoutMillis, durability: durability, upTo: target,
                serverKey: serverKey))
    }

    /// Connects to PostgreSQL (through the box's pgbouncer) and brings its schema to
    /// `schemaVersion` (`PostgresMigrations`): safe when several boxes do it at once, and a store
    /// from a newer version of the code is refused. `boxPath` is the stem of this box's files.
    /// `checkSchemaWithFirstStatement`: all that happens with the first statement instead (its
    /// error then), a first plain SELECT in the same round trip as the version read.
    public convenience init(
        postgres url: PostgresURL, boxPath: String, timeoutSeconds: Double = 10, durability: Durability = .powerCutSafe,
        checkSchemaWithFirstStatement: Bool = false, serverKey: (() throws(FrontdoorError) -> [UInt8])? = nil
    ) throws(FrontdoorError) {
        try self.init(
            postgres: url, boxPath: boxPath, timeoutSeconds: timeoutSeconds, durability: durability,
            checkSchemaWithFirstStatement: checkSchemaWithFirstStatement, upTo: Self.schemaVersion, serverKey: serverKey)
    }

    /// As above, bringing the schema only `upTo` an older version: for tests of the migrations.
    init(
        postgres url: PostgresURL, boxPath: String, timeoutSeconds: Double = 10, durability: Durability = .powerCutSafe,
        checkSchemaWithFirstStatement: Bool = false, upTo target: Int,
        serverKey: (() throws(FrontdoorError) -> [UInt8])? = nil
    ) throws(FrontdoorError) {
        path = boxPath
        ledgerPath = LedgerFile.beside(boxPath)
        self.serverKey = serverKey
        engine = .postgres(
            try PostgresDatabase(
                url: url, timeoutSeconds: timeoutSeconds, durability: durability,
                checkSchemaWithFirstStatement: checkSchemaWithFirstStatement, serverKey: serverKey, upTo: target))
    }

    /// The store the config names: `postgresUrl` when it is set, else the SQLite file.
    /// `checkSchemaWithFirstStatement` as above (SQLite reads its version at open, at no cost).
    public convenience init(config: Config, durability: Durability = .powerCutSafe, checkSchemaWithFirstStatement: Bool = false)
        throws(FrontdoorError)
    {
        let serverKey = { () throws(FrontdoorError) -> [UInt8] in try DeletionAudit.key(config: config) }
        if let store = config.postgresStore {
            try self.init(
                postgres: store.url, boxPath: config.databasePath, durability: durability,
                checkSchemaWithFirstStatement: checkSchemaWithFirstStatement, serverKey: serverKey)
        } else {
            try self.init(path: config.databasePath, durability: durability, upTo: Self.schemaVersion, serverKey: serverKey)
        }
        ledgerPath = LedgerFile.path(config: config)
    }

    /// The session check's store (`SessionFile`): on SQLite the session file alone once it is
    /// filled, which parses no schema but its own; else (PostgreSQL, or a store still to set up)
    /// the whole store, as `init(config:)` opens it.
    public static func forSessionCheck(config: Config, durability: Durability) throws(FrontdoorError) -> Database {
        if config.postgresStore == nil,
            let sessions = try SQLiteDatabase.filledSessionFile(
                storePath: config.databasePath, busyTimeoutMillis: 5000, durability: durability)
        {
            return Database(sessionFile: sessions, config: config)
        }
        return try Database(config: config, durability: durability, checkSchemaWithFirstStatement: true)
    }

    private init(sessionFile: SQLiteDatabase, config: Config) {
        path = config.databasePath
        ledgerPath = LedgerFile.path(config: config)
        engine = .sqlite(sessionFile)
    }

    /// True for a connection to SQLite's session file alone (`forSessionCheck`): only `sessions`.
    public var isSessionFileOnly: Bool {
        if case .sqlite(let db) = engine { return db.sessionFileOnly }
        return false
    }

    /// True on PostgreSQL.
    public var isPostgres: Bool {
        if case .postgres = engine { return true }
        return false
    }

    /// Round trips to PostgreSQL since login; nil on SQLite. For the tests.
    var postgresRoundTrips: Int? {
        if case .postgres(let db) = engine { return db.connection.roundTrips }
        return nil
    }

    /// PostgreSQL's `server_version` (through pgbouncer, that of the server it logged in to); nil on SQLite.
    public var serverVersion: String? {
        if case .postgres(let db) = engine { return db.connection.serverVersion }
        return nil
    }

    /// Runs one statement with `params` bound to its `?` placeholders and returns every row.
    public func query(_ sql: String, _ params: [SQLValue] = []) throws(FrontdoorError) -> [Row] {
        switch engine {
        case .sqlite(let db): return try db.query(sql, params)
        case .postgres(let db): return try db.query(sql, params)
        }
    }

    /// Runs one statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    public func run(_ sql: String, _ params: [SQLValue] = []) throws(FrontdoorError) -> Int {
        switch engine {
        case .sqlite(let db): return try db.run(sql, params)
        case .postgres(let db): return try db.run(sql, params)
        }
    }

    /// Runs `body` inside one transaction. When the body or the commit throws, everything is
    /// rolled back and the error rethrown. Transactions do not nest: calling this inside one
    /// throws. SQLite takes the write lock up front (`BEGIN IMMEDIATE`), so the body never meets a
    /// lock conflict halfway; PostgreSQL runs it SERIALIZABLE and, when the server aborts it for a
    /// conflict, runs the whole body again (for up to a few seconds, with a short jittered pause between).
    ///
    /// The security ledger's lines the body stages (`SecurityLedger`) are appended and synced
    /// after the body and before the COMMIT; an attempt that certainly did not commit after they
    /// were written is followed by a line that withdraws them.
    @discardableResult
    public func transaction<T>(_ body: () throws(FrontdoorError) -> T) throws(FrontdoorError) -> T {
        defer { SecurityLedger.close(self) }
        switch engine {
        case .sqlite(let db):
            // BEGIN IMMEDIATE never meets a conflict: one attempt. A COMMIT that fails after the
            // lines are written leaves them: whether SQLite kept the commit is not known for sure.
            SecurityLedger.beginAttempt(self)
            pendingSessions = []
            defer { pendingSessions = [] }
            let value = try db.transaction { () throws(FrontdoorError) -> T in
                let value = try body()
                try SecurityLedger.flush(self)
                return value
            }
            if !pendingSessions.isEmpty { try beginSessions(db) }
            return value
        case .postgres(let db):
            return try db.transaction(
                body, hooks: PostgresDatabase.AttemptHooks(
                    begin: { SecurityLedger.beginAttempt(self) }, beforeCommit: { () throws(FrontdoorError) in
                        try SecurityLedger.flush(self)
                    }, notCommitted: { SecurityLedger.withdraw(self) }))
        }
    }

    /// The sessions the transaction just committed made, in a transaction of their own.
    private func beginSessions(_ db: SQLiteDatabase) throws(FrontdoorError) {
        TestHooks.pause("sessions-pending")
        let rows = pendingSessions
        try db.transaction { () throws(FrontdoorError) in
            for row in rows where try db.run(Sessions.deferredInsertSQL, row) != 1 {
                throw FrontdoorError(
                    .upstreamUnavailable, "Something went wrong signing you in. Please try again.",
                    detail: "session: the account was deleted, disabled or taken back as the sign-in committed",
                    retryAfterSeconds: 1)
            }
        }
    }

    /// Rows this connection has inserted, updated or deleted since it opened (rolled-back ones
    /// included): non-zero means it may have committed a write.
    public var changedRows: Int {
        switch engine {
        case .sqlite(let db): return db.changedRows
        case .postgres(let db): return db.changedRows
        }
    }

    /// A number that moves whenever another connection commits a change the reads of this one
    /// might have missed: SQLite's `PRAGMA data_version`; on PostgreSQL, the outbox's row count and
    /// last `seq` folded together (its one user, `EventDelivery.refreshHint`, asks about events).
    /// nil when it cannot be read.
    public func dataVersion() -> Int64? {
        switch engine {
        case .sqlite(let db):
            // The events are in the store, attached beside the session file (`SessionFile`).
            return (try? db.query(db.isSplit ? "PRAGMA store.data_version" : "PRAGMA data_version"))?.first?.int(0)
        case .postgres(let db):
            return (try? db.query("SELECT count(*) * 4294967296 + coalesce(max(seq), 0) FROM events", []))?.first?.int(0)
        }
    }

    /// Finalizes every statement and closes the connection. Further calls throw `internal`.
    public func close() {
        switch engine {
        case .sqlite(let db): db.close()
        case .postgres(let db): db.close()
        }
    }

    // MARK: - What only the SQLite file has

    /// Copies the WAL into the database and truncates it to zero bytes, so deleted rows no longer
    /// sit in it. Unlike `tidyWAL`, waits (up to the busy timeout) for other connections. Throws
    /// `upstream_unavailable` when other connections kept it from finishing within the busy
    /// timeout; after a deletion that has committed, log that and carry on. Nothing on PostgreSQL.
    public func checkpoint() throws(FrontdoorError) {
        if case .sqlite(let db) = engine { try db.checkpoint() }
    }

    /// The marker of a checkpoint owed since a deletion (whose old rows the WAL still holds) could
    /// not finish one because other connections were reading. A file beside the database, so a
    /// process looks for it with one `access()`, not a query.
    public static func checkpointOwedPath(_ databasePath: String) -> String { databasePath + "-checkpoint-owed" }

    public static func isCheckpointOwed(_ databasePath: String) -> Bool {
        access(checkpointOwedPath(databasePath), F_OK) == 0
    }

    /// `checkpoint()`, and when other connections kept it from finishing, the marker that has a
    /// later process (after its answer) or `frontdoor-check --prune` finish it. True when done
    /// (always on PostgreSQL).
    @discardableResult
    public func checkpointOrOwe() -> Bool {
        if case .sqlite(let db) = engine { return db.checkpointOrOwe() }
        return true
    }

    /// Pays an owed checkpoint. The marker goes first, so one left by a deletion that commits
    /// meanwhile survives until a checkpoint that comes after its commit.
    @discardableResult
    public func payOwedCheckpoint() -> Bool {
        if case .sqlite(let db) = engine { return db.payOwedCheckpoint() }
        return false
    }

    /// The WAL length (frames) at which a request empties it after its answer. Every process
    /// re-reads and checksums the whole WAL when it opens, so this bounds what each one re-reads.
    public static let walTidyFrames = 64

    /// The WAL's length in frames (pages) after this connection's last commit; 0 before any, and
    /// always on PostgreSQL.
    public var walFrameCount: Int {
        if case .sqlite(let db) = engine { return db.walFrameCount }
        return 0
    }

    /// Checkpoints and empties the WAL once it holds `threshold` frames, without waiting for other
    /// connections (when one is busy it checkpoints what it can and leaves the rest). Every process
    /// re-reads the whole WAL when it opens, so keeping it short keeps every request cheap; callers
    /// do this after their answer is out.
    public func tidyWAL(threshold: Int = Database.walTidyFrames) {
        if case .sqlite(let db) = engine { db.tidyWAL(threshold: threshold) }
    }

    /// The WAL file's size in bytes (0 once emptied; -1 when it cannot be read, and on
    /// PostgreSQL). Unlike `walFrameCount`, it counts other connections' commits too.
    public var walFileBytes: Int {
        if case .sqlite(let db) = engine { return db.walFileBytes }
        return -1
    }

    /// What `tidyWAL` does, whatever the WAL's length: for a connection that only read, and found
    /// a WAL that other processes' commits left (see `walFileBytes`).
    public func emptyWAL() {
        if case .sqlite(let db) = engine { db.emptyWAL() }
    }
}

@available(*, unavailable)
extension Database: Sendable {}
