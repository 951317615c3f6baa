#if canImport(Glibc)
import Glibc
#endif

extension PostgresConnection {
    /// `BEGIN ISOLATION LEVEL SERIALIZABLE`: the isolation is the transaction's own, so nothing
    /// outlives it on the server connection pgbouncer lends. `flushAtCommit: false` adds
    /// `SET LOCAL synchronous_commit = off` in the same message (one round trip): its COMMIT
    /// returns before the WAL reaches the disk, and the setting ends with the transaction.
    public func begin(flushAtCommit: Bool = true) throws(PostgresError) {
        guard transactionStatus == .idle else { throw PostgresError(.misuse, "BEGIN inside a transaction") }
        try simpleQuery(
            flushAtCommit
                ? "BEGIN ISOLATION LEVEL SERIALIZABLE"
                : "BEGIN ISOLATION LEVEL SERIALIZABLE; SET LOCAL synchronous_commit = off")
    }

    /// COMMIT. A transaction that a failed statement aborted is rolled back by it instead, with
    /// no error from the server (its tag reads ROLLBACK): that throws here, so a caller never takes
    /// a rollback for a commit.
    public func commit() throws(PostgresError) {
        let result = try simpleQuery("COMMIT")
        if result.command == "ROLLBACK" {
            throw PostgresError(.misuse, "COMMIT of a transaction the server had aborted: it was rolled back")
        }
    }

    public func rollback() throws(PostgresError) {
        try simpleQuery("ROLLBACK")
    }

    /// Runs `body` between `begin()` and `commit()`. When the server rolls the transaction back
    /// for a conflict (40001, 40P01), the whole of it runs again, up to `attempts` times in all,
    /// after a pause of a few milliseconds that grows and is jittered so two rivals do not meet
    /// again. Any other error rolls back (when the connection still stands) and is rethrown. The
    /// body must be store work only: it may run more than once.
    @discardableResult
    public func transaction<T>(attempts: Int = 3, _ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        var attempt = 1
        while true {
            // Outside the catch below: a BEGIN refused inside a transaction must not roll back the caller's.
            try begin()
            do {
                let value = try body()
                try commit()
                return value
            } catch {
                if transactionStatus != .idle { try? rollback() }
                guard error.isRetryable, attempt < attempts else { throw error }
                let jitter = (try? SecureRandom.uniform(below: 5_000)) ?? 2_500
                usleep(UInt32(attempt * 5_000) + jitter)
                attempt += 1
            }
        }
    }
}
