/// `frontdoor-admin copy-to-postgres <sqlite file>`: moves a one-box store into PostgreSQL. The
/// config is the PostgreSQL box's (`postgresUrl`); the file is the one-box store, at this
/// version's schema (a `frontdoor-admin backup` of it, or the file itself with its box stopped).
/// Every row of every table goes over in one transaction, into a store that holds none yet: a
/// failure leaves the target as empty as it was, and a second run of a finished copy is refused.
enum CopyToPostgres {
    struct Outcome {
        var tables: [(String, Int)] = []
        var rows: Int { tables.reduce(0) { $0 + $1.1 } }
    }

    static func run(source: String, session: AdminSession) throws -> JSONValue {
        guard session.config.usesPostgres else {
            throw AdminError(.usage, "copy-to-postgres needs a config with postgresUrl: the store to copy into.")
        }
        guard Files.exists(source) else { throw AdminError(.notFound, "There is no file at \(source).") }
        try checkAuditKey(source: source, config: session.config)
        let file = try SnapshotFile(path: source)
        defer { file.close() }
        // The store's own file keeps its sessions beside it (`SessionFile`); a backup, inside.
        if try !CopySource.tables(file).contains("sessions"), Files.exists(SessionFile.path(source)) {
            _ = try file.rows("ATTACH ? AS \(CopySource.sessionFile)", [.text(SessionFile.path(source))])
        }
        let version = try CopySource.schemaVersion(file)
        guard version == Database.schemaVersion else {
            throw AdminError(
                .unavailable,
                "\(source) is at schema version \(version), this frontdoor at \(Database.schemaVersion): open it once "
                    + "with this version (frontdoor-check, or a backup of the running box) and copy that.")
        }
        guard try file.isIntact() else { throw AdminError(.unavailable, "\(source) fails SQLite's integrity check.") }
        let db = try session.database()
        let outcome = try db.transaction { () throws(FrontdoorError) -> Outcome in
            try copy(from: file, into: db)
        }
        return .object([
            ("copied", .object(outcome.tables.map { ($0.0, .number(Double($0.1))) })),
            ("rows", .number(Double(outcome.rows))),
        ])
    }

    /// The boxes hash the audit rows and key the rate limits with `deletion.auditKeyFile`: it must
    /// hold the key the one-box store was made under, or the copied audit rows and sealed columns
    /// are unreadable. A backup proves its key by its MAC (`BackupSeal`); the store's own file by
    /// the key beside it; a file with neither is refused.
    static func checkAuditKey(source: String, config: Config) throws {
        if Files.exists(source + BackupSeal.suffix) {
            guard config.deletion.auditKeyFile != nil else {
                throw AdminError(
                    .unavailable,
                    "The config names no deletion.auditKeyFile: copy the one box's server key to every box and name it there.")
            }
            do {
                try BackupSeal.check(source, named: source, key: BackupSeal.key(serverKey: try DeletionAudit.key(config: config)))
            } catch let refusal as AdminError {
                throw AdminError(
                    .unavailable, "\(refusal.message) deletion.auditKeyFile must hold the one box's server key.")
            }
            return
        }
        let besideSource = Files.directory(of: source) + "/" + DeletionAudit.keyFileName
        guard Files.exists(besideSource) else {
            throw AdminError(
                .unavailable,
                "Neither \(Files.name(of: source))\(BackupSeal.suffix) nor \(DeletionAudit.keyFileName) is beside \(source): "
                    + "nothing shows which server key it was made under. Copy a frontdoor-admin backup (with its .mac).")
        }
        guard let file = config.deletion.auditKeyFile else {
            throw AdminError(
                .unavailable, "The config names no deletion.auditKeyFile: copy \(besideSource) to every box and name it there.")
        }
        let theirs = try? DeletionAudit.read(besideSource, key: "audit-key")
        let ours = try? DeletionAudit.read(file, key: "deletion.auditKeyFile")
        guard theirs != nil, theirs == ours else {
            throw AdminError(
                .unavailable, "deletion.auditKeyFile (\(file)) does not hold the key beside the store (\(besideSource)): "
                    + "copy that file to every box and name it there.")
        }
    }

    /// Inside the target's transaction: the target's tables, parents before the tables that name
    /// them, each refused unless empty, then filled with the source's rows column by column.
    static func copy(from file: SnapshotFile, into db: Database) throws(FrontdoorError) -> Outcome {
        let targetTables = try tablesInCopyOrder(db).filter { !notCopied.contains($0) }
        let sourceTables = try CopySource.tables(file)
        // A table the target lacks (none today) would lose its rows: refuse rather than drop them.
        for table in sourceTables.subtracting(targetTables).subtracting(notCopied).sorted()
        where try CopySource.holdsRows(file, table) {
            throw FrontdoorError(.internal, "The PostgreSQL store has no table \(table): nothing was copied.")
        }
        let copied = targetTables.filter { sourceTables.contains($0) }
        for table in copied where try !db.query("SELECT 1 FROM \(quoted(table)) LIMIT 1").isEmpty {
            // 69 with the refusals (AdminError's unavailable).
            throw FrontdoorError(
                .upstreamUnavailable, "The PostgreSQL store is not empty (\(table) has rows): copy only into a new one.")
        }
        var outcome = Outcome()
        for table in copied {
            let columns = try db.query(
                """
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position
                """, [.text(table)]
            ).compactMap { $0.text(0) }
            let sourceColumns = try CopySource.columns(file, table)
            if let missing = columns.first(where: { !sourceColumns.contains($0) }) {
                throw FrontdoorError(.internal, "\(table).\(missing) is not in the SQLite file: nothing was copied.")
            }
            let list = columns.map(quoted).joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            let insert = "INSERT INTO \(quoted(table)) (\(list)) VALUES (\(placeholders))"
            let rows = try CopySource.rows(file, table, list)
            for row in rows { _ = try db.run(insert, (0..<row.count).map { row[$0] }) }
            outcome.tables.append((table, rows.count))
        }
        try resetSequences(db)
        return outcome
    }

    /// Made by the PostgreSQL store's own migration, and the same in every new one: its version,
    /// and the outbox's one delivery row (which box holds the lease; SQLite's has no lease).
    static let notCopied: Set<String> = ["schema_version", "event_delivery", Backup.takenTable, "account_views"]

    /// Base tables in the target's schema, each after every table its foreign keys name.
    static func tablesInCopyOrder(_ db: Database) throws(FrontdoorError) -> [String] {
        let tables = try db.query(
            """
            SELECT table_name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name
            """
        ).compactMap { $0.text(0) }
        var parents: [String: Set<String>] = [:]
        for row in try db.query(
            """
            SELECT c.relname, p.relname FROM pg_constraint k
            JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
            WHERE k.contype = 'f' AND c.relname != p.relname
            """)
        {
            if let child = row.text(0), let parent = row.text(1) { parents[child, default: []].insert(parent) }
        }
        var ordered: [String] = []
        var placed = Set<String>()
        while ordered.count < tables.count {
            let ready = tables.filter { !placed.contains($0) && parents[$0, default: []].isSubset(of: placed) }
            // A cycle of foreign keys (none in the schema): the rest in name order, as a plain list.
            let next = ready.isEmpty ? tables.filter { !placed.contains($0) } : ready
            ordered += next
            placed.formUnion(next)
        }
        return ordered
    }

    /// Columns filled from sequences (identity or serial) go on after the copied rows' largest value.
    static func resetSequences(_ db: Database) throws(FrontdoorError) {
        let owned = try db.query(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')
            """)
        for row in owned {
            guard let table = row.text(0), let column = row.text(1) else { continue }
            _ = try db.query(
                """
                SELECT setval(pg_get_serial_sequence(?, ?), coalesce((SELECT max(\(quoted(column))) FROM \(quoted(table))), 0) + 1, false)
                """, [.text(quoted(table)), .text(column)])
        }
    }

    /// Names come from the two catalogs, never from input; quoted all the same.
    static func quoted(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
