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
    /// How many times a transaction (or a statement on its own) runs before a conflict is given
    /// up on as 503. Many: sixteen sign-ins at once from one address all count on that address's
    /// rate-limit row, and under SERIALIZABLE all but one of them lose each round (LoadTests on
    /// PostgreSQL: 37 of 200 answered 503 with 4 attempts).
    static let attempts = 12
    private(set) var changedRows = 0
    /// Set when the server aborted the current attempt for a conflict (40001, 40P01): whatever
    /// the body made of that error, the attempt is over and may run again.
    private var conflicted = false

    init(url: PostgresURL, timeoutSeconds: Double) throws(FrontdoorError) {
        do {
            connection = try PostgresConnection(url, timeoutSeconds: timeoutSeconds)
        } catch {
            throw error.frontdoorError
        }
        do throws(FrontdoorError) {
            try PostgresMigrations.migrate(self)
        } catch {
            connection.close()
            throw error
        }
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
        let alone = connection.transactionStatus == .idle
        var attempt = 1
        while true {
            do {
                return try connection.query(text, params)
            } catch {
                if error.isRetryable {
                    conflicted = true
                    if alone && attempt < Self.attempts {
                        pause(attempt)
                        attempt += 1
                        continue
                    }
                }
                throw error.frontdoorError
            }
        }
    }

    /// `BEGIN ISOLATION LEVEL SERIALIZABLE`, the body, `COMMIT`; the whole of it again (up to
    /// `attempts` times) after the server aborted it for a conflict, whether in a statement or at
    /// the commit. Any other failure rolls back and is rethrown.
    func transaction<T>(_ body: () throws(FrontdoorError) -> T) throws(FrontdoorError) -> T {
        guard connection.transactionStatus == .idle else {
            throw .internal("postgres: transaction: already inside a transaction")
        }
        var attempt = 1
        while true {
            conflicted = false
            do {
                try connection.begin()
            } catch {
                throw error.frontdoorError
            }
            do throws(FrontdoorError) {
                let value = try body()
                do {
                    try connection.commit()
                } catch {
                    if error.isRetryable { conflicted = true }
                    throw error.frontdoorError
                }
                return value
            } catch {
                if connection.transactionStatus != .idle { try? connection.rollback() }
                guard conflicted, attempt < Self.attempts else { throw error }
                pause(attempt)
                attempt += 1
            }
        }
    }

    /// A few milliseconds that double with each attempt up to 160 ms, jittered over as much again
    /// so rivals spread out rather than meet again: all twelve attempts stay within about 2.5 s.
    private func pause(_ attempt: Int) {
        let base = UInt32(5_000) << UInt32(min(attempt - 1, 5))
        let jitter = (try? SecureRandom.uniform(below: base)) ?? base / 2
        usleep(base + jitter)
    }

    func close() {
        connection.close()
    }
}
