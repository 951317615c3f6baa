import Shared

/// What must hold in the store whatever was killed or raced: SQLite's own integrity check, no
/// row that names a missing account, and no half-made account.
enum StoreInvariants {
    /// Each broken invariant as a sentence; empty when all hold.
    static func violations(_ db: Database) throws -> [String] {
        var found: [String] = []
        let integrity = try db.query("PRAGMA integrity_check").map { $0.text(0) ?? "?" }
        if integrity != ["ok"] { found.append("integrity_check: \(integrity.joined(separator: "; "))") }
        let foreign = try db.query("PRAGMA foreign_key_check")
        if !foreign.isEmpty { found.append("foreign_key_check: \(foreign.count) rows") }
        // Tables that belong to an account; delete-account's and verify-email's tables join here.
        for table in ["identities", "sessions", "tickets"] {
            let orphans = try db.query(
                "SELECT count(*) FROM \(table) WHERE account_id NOT IN (SELECT id FROM accounts)").first?.int(0)
            if orphans != 0 { found.append("\(table): \(orphans ?? -1) rows without their account") }
        }
        // Made by a provider sign-in: its identity went in with it. Made by signin-email: its password.
        let halfMade = try db.query("""
            SELECT count(*) FROM accounts a
            WHERE NOT EXISTS (SELECT 1 FROM identities i WHERE i.account_id = a.id) AND a.password_hash IS NULL
            """).first?.int(0)
        if halfMade != 0 { found.append("accounts: \(halfMade ?? -1) with neither an identity nor a password") }
        return found
    }
}
