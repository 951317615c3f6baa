#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL engine behind `Database`: one `PostgresConnection` (to the box's pgbouncer, in
/// transaction pooling), statements rewritten by `SQLDialect`, errors as `FrontdoorError`.
///
/// No session state: every statement is the unnamed one, nothing is `SET` outside a transaction,
/// no temporary table, so any transaction may meet any server connection pgbouncer lends.
final class PostgresDatabase {
    let connection: PostgresConnection
    /// A transaction (or a statement on its own) that the server aborts for a conflict runs again
    /// until this much time has gone since its first attempt, then answers 503. A bound on time,
    /// not on attempts: on a hot row (one address's rate-limit window) the losers of each round
    /// wait on the winner's row lock and then retry, so sixteen at once need up to sixteen rounds
    /// of a few milliseconds each (docs/scaling.md, "Contention").
    static let retryBudgetMillis = 3_000.0
    /// And never more attempts than this, whatever the clock says.
    static let maxAttempts = 64
    /// Every COMMIT waits for the WAL flush, crashSafe or not: SQLite's crashSafe survives the
    /// death of any process, and a PostgreSQL server that dies loses the commits it had not
    /// flushed (`synchronous_commit = off`), a new person's account with its answered session
    /// among them (PostgresRestartTests' immediate stop saw it). There is no cheaper level that
    /// keeps SQLite's promise, so both levels are the server's own setting. One statement waits for
    /// no flush, in its own transaction: the session check's renewal, whose loss only brings back
    /// the session's earlier expiry (`SessionCheck.renew`).
    let flushAtCommit = true
    private(set) var changedRows = 0
    /// Set when the server aborted the current attempt for a conflict (40001, 40P01): whatever
    /// the body made of that error, the attempt is over and may run again.
    private var conflicted = false
    /// Whether the schema version was read (and the store migrated, or refused) yet.
    private var schemaChecked = false

    /// `checkSchemaWithFirstStatement`: the schema is checked with the first statement, not here; a first
    /// plain SELECT outside a transaction then goes in the same write as the version read (one
    /// round trip fewer for a process that lives one request).
    /// For a migration that seals (`Migrations.sealSecrets`); nil for a store opened without its config.
    let serverKey: Migrations.ServerKey?
    /// The version a migration stops at: this code's, or an older one for tests of the migrations.
    let target: Int

    init(
        url: PostgresURL, timeoutSeconds: Double, durability: Database.Durability, checkSchemaWithFirstStatement: Bool = false,
        serverKey: Migrations.ServerKey? = nil, upTo target: Int = PostgresMigrations.currentVersion
    ) throws(FrontdoorError) {
        self.serverKey = serverKey
        self.target = target
        do {
            connection = try PostgresConnection(url, timeoutSeconds: timeoutSeconds)
        } catch {
            throw error.frontdoorError
        }
        guard !checkSchemaWithFirstStatement else { return }
        do throws(FrontdoorError) {
            try checkSchema()
        } catch {
            connection.close()
            throw error
        }
    }

    /// The version read, then a migration or a refusal when the store is not at this code's version.
    private func checkSchema() throws(FrontdoorError) {
        try PostgresMigrations.migrate(self)
        schemaChecked = true
    }

    /// The first statement, a plain SELECT outside a transaction: the version read and it in
    /// one write. Its rows count only when the version is this code's; otherwise the store is
    /// migrated (or refused) as `migrate` does, and nil says to run the SELECT again.
    private func firstSelect(_ text: String, _ params: [SQLValue]) throws(FrontdoorError) -> PostgresResult? {
        let answers: (Result<PostgresResult, PostgresError>, Result<PostgresResult, PostgresError>)
        do {
            answers = try connection.queryPipelined((PostgresMigrations.versionSQL, []), (text, params))
        } catch {
            throw error.frontdoorError
        }
        guard try PostgresMigrations.version(answers.0) == target else {
            try checkSchema()
            return nil
        }
        schemaChecked = true
        switch answers.1 {
        case .success(let result): return result
        case .failure(let error):
            // A conflict goes round `execute`'s loop like any other.
            guard error.isRetryable else { throw error.frontdoorError }
            return nil
        }
    }

    /// A SELECT that is not a WITH (which may write) nor anything else: what may run before the
    /// version is known, since its rows are dropped unless the version is right.
    static func isPlainSelect(_ text: String) -> Bool {
        let head = text.utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }.prefix(7)
        guard head.count == 7 else { return false }
        let word = head.prefix(6).map { $0 | 0x20 }
        return word == Array("select".utf8) && [0x20, 0x0A, 0x09, 0x0D].contains(head.last ?? 0)
    }

    func query(_ sql: String, _ params: [SQLValue]) throws(FrontdoorError) -> [Row] {
        try execute(sql, params).rows
    }

    func run(_ sql: String, _ params: [SQLValue]) throws(FrontdoorError) -> Int {
        let result = try execute(sql, params)
        // A SELECT's tag counts the rows it read, not rows changed.
        guard !result.command.hasPrefix("SELECT") else { return 0 }
        let affected = result.affected
        changedRows += affected
        return affected
    }

    /// One statement. Outside a transaction it is a transaction of its own (autocommit, READ
    /// COMMITTED: one statement is atomic there), run again when the server aborts it for a
    /// deadlock; inside one, a conflict ends the attempt (see `transaction`).
    private func execute(_ sql: String, _ params: [SQLValue]) throws(FrontdoorError) -> PostgresResult {
        let (text, expected) = SQLDialect.postgres(sql)
        // As SQLite's bind refuses it, before anything is sent.
        guard expected == params.count else {
            throw .internal("postgres: bind: expected \(expected) parameters, got \(params.count)")
        }
        // PostgreSQL's text cannot hold U+0000 (22021, a 500). The request fields refuse it
        // (`requiredString`); this catches what else could carry one, as the same 400.
        for case .text(let text) in params where text.utf8.contains(0) {
            throw FrontdoorError(
                .invalidRequest, "The request holds a character (U+0000) that cannot be stored.",
                detail: "postgres: bind: a text parameter holds U+0000")
        }
        let alone = connection.transactionStatus == .idle
        if !schemaChecked {
            if alone && Self.isPlainSelect(text), let result = try firstSelect(text, params) { return result }
            if !schemaChecked { try checkSchema() }
        }
        let started = Clock.monotonicMillis()
        var attempt = 1
        while true {
            do {
                return try connection.query(text, params)
            } catch {
                if error.isRetryable {
                    conflicted = true
                    if alone && Self.mayRetry(attempt, since: started) {
                        pause(attempt)
                        attempt += 1
                        continue
                    }
                }
                throw error.frontdoorError
            }
        }
    }

    /// What `Database.transaction` does around each attempt: `begin` before it, `beforeCommit`
    /// after the body and before the COMMIT, `notCommitted` after an attempt that got as far as
    /// `beforeCommit` and certainly did not commit (the server refused or rolled back its COMMIT).
    struct AttemptHooks {
        let begin: () -> Void
        let beforeCommit: () throws(FrontdoorError) -> Void
        let notCommitted: () -> Void

        static var none: AttemptHooks { AttemptHooks(begin: {}, beforeCommit: {}, notCommitted: {}) }
    }

    /// `BEGIN ISOLATION LEVEL SERIALIZABLE`, the body, `COMMIT`; the whole of it again (within
    /// `retryBudgetMillis`) after the server aborted it for a conflict, whether in a statement or
    /// at the commit. Any other failure rolls back and is rethrown.
    func transaction<T>(_ body: () throws(FrontdoorError) -> T, hooks: AttemptHooks = .none) throws(FrontdoorError) -> T {
        guard connection.transactionStatus == .idle else {
            throw .internal("postgres: transaction: already inside a transaction")
        }
        if !schemaChecked { try checkSchema() }
        let started = Clock.monotonicMillis()
        var attempt = 1
        while true {
            conflicted = false
            hooks.begin()
            do {
                try connection.begin(flushAtCommit: flushAtCommit)
            } catch {
                throw error.frontdoorError
            }
            do throws(FrontdoorError) {
                let value = try body()
                try hooks.beforeCommit()
                do {
                    try connection.commit()
                } catch {
                    if error.isRetryable { conflicted = true }
                    // A refusal the server sent (or its ROLLBACK for an aborted one) means no
                    // commit; a connection lost at the COMMIT may have committed.
                    if error.kind == .server || error.kind == .misuse { hooks.notCommitted() }
                    throw error.frontdoorError
                }
                return value
            } catch {
                if connection.transactionStatus != .idle { try? connection.rollback() }
                guard conflicted, Self.mayRetry(attempt, since: started) else { throw error }
                pause(attempt)
                attempt += 1
            }
        }
    }

    /// Whether another attempt fits: within the attempts and the time budget, the pause included.
    static func mayRetry(_ attempt: Int, since started: Double) -> Bool {
        attempt < maxAttempts && Clock.monotonicMillis() - started + Double(pauseCeilingMicros(attempt)) / 1000
            < retryBudgetMillis
    }

    /// The longest pause before attempt `attempt + 1`: 2 ms more each time up to 10 ms, plus the
    /// jitter's 5 ms. Short: a loser has already waited for the winner's commit on the row lock.
    static func pauseCeilingMicros(_ attempt: Int) -> Int { min(attempt, 5) * 2_000 + 5_000 }

    /// A few milliseconds that grow with each attempt, jittered so two rivals do not meet again.
    private func pause(_ attempt: Int) {
        let jitter = (try? SecureRandom.uniform(below: 5_000)) ?? 2_500
        usleep(UInt32(min(attempt, 5) * 2_000) + jitter)
    }

    func close() {
        connection.close()
    }
}
