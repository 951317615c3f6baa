import Testing
@testable import Shared

/// Issue 19, items 8 and 9: the migration that seals under the server key leaves no access token
/// in the clear, and no relay answer sealed under the raw nonce alone.
@Suite struct SealedMigrationTests {
    @Test func clearAccessTokensAndNonceOnlySealedAnswersGo() throws {
        try withStoreDirectory { dir in
            let before = try #require(Migrations.scripts.firstIndex(of: Migrations.sealedUnderServerKey))
            let token = "ya29.a-clear-access-token-from-before-the-migration"
            do {
                let db = try Database(path: dir.databasePath, upTo: before)
                try db.run(
                    "INSERT INTO oauth_tokens (cache_key, access_token, expires_at) VALUES ('k', ?, 5000000000)",
                    [.text(token)])
                try db.run(
                    """
                    INSERT INTO relay_attempts (nonce_hash, token_hash, relay_uid, sealed_id_token, expires_at)
                    VALUES (x'01', x'02', 'uid', x'0304', 5000000000)
                    """)
            }
            // As this migration left them, before `ephemeralKinds` folded the table into a kind.
            let db = try Database(path: dir.databasePath, upTo: before + 1)
            #expect(try db.query("SELECT count(*) FROM oauth_tokens").first?.int(0) == 0)
            #expect(try db.query("SELECT count(*) FROM relay_attempts").first?.int(0) == 0)
            let columns = try db.query("SELECT name FROM pragma_table_info('oauth_tokens')").compactMap { $0.text(0) }
            #expect(columns == ["cache_key", "sealed_token", "expires_at"])
            // secure_delete: once checkpointed, the file no longer holds the old token's bytes.
            try db.checkpoint()
            let file = FileIO.readFile(dir.databasePath, limit: 1 << 26) ?? []
            #expect(!file.isEmpty)
            #expect(file.firstRange(of: Array(token.utf8)) == nil)
        }
    }

    /// Issue 29: a relay user's refresh token and a revocation's Apple code, relay ID token and
    /// Apple refresh token, kept in the clear before, are sealed in place under the server key
    /// (each filed under its row and column), and read back; a store holding such secrets is not
    /// migrated without the key, and one holding none needs no key. On both engines: PostgreSQL's
    /// step is Swift's too (`PostgresMigrations.afterVersion`).
    @Test(arguments: StoreEngine.allCases)
    func clearRelayAndRevocationSecretsAreSealedInPlace(_ engine: StoreEngine) throws {
        let store = try TestStore(engine)
        func open(upTo target: Int, serverKey: (() throws(FrontdoorError) -> [UInt8])? = nil) throws -> Database {
            if let url = store.url {
                return try Database(postgres: url, boxPath: store.path, upTo: target, serverKey: serverKey)
            }
            return try Database(path: store.path, upTo: target, serverKey: serverKey)
        }
        let before = try #require(Migrations.scripts.firstIndex(of: Migrations.sealedSecrets))
        let serverKey = Array(repeating: UInt8(7), count: 32)
        let secrets = ["a-clear-relay-refresh-token", "a-clear-apple-code", "a.clear.id.token", "a-clear-apple-refresh"]
        do {
            let db = try open(upTo: before)
            defer { db.close() }
            try db.run(
                """
                INSERT INTO relay_cleanups (relay_uid, refresh_token, attempts, next_attempt_at, created_at, state,
                  delete_by_token_until) VALUES ('uid-1', ?, 0, 0, 1, 'token', 5000000000)
                """, [.text(secrets[0])])
            try db.run(
                """
                INSERT INTO apple_revocations (id, mode, state, code, id_token, refresh_token, created_at, updated_at)
                VALUES ('r1', 'relay', 'retry', ?, ?, ?, 1, 1)
                """, [.text(secrets[1]), .text(secrets[2]), .text(secrets[3])])
        }
        #expect(throws: FrontdoorError.self, "secrets to seal and no key: refused, left as it was") {
            let db = try open(upTo: Database.schemaVersion)
            // PostgreSQL's connection migrates when it opens; this statement only proves it did not.
            defer { db.close() }
            _ = try db.query("SELECT 1")
        }
        do {
            let db = try open(upTo: before)
            defer { db.close() }
            #expect(try db.query("SELECT refresh_token FROM relay_cleanups").first?.text(0) == secrets[0], "left as it was")
        }
        let db = try open(upTo: before + 1, serverKey: { serverKey })
        defer { db.close() }
        let relay = try #require(try db.query("SELECT refresh_token FROM relay_cleanups").first?.text(0))
        let kept = try #require(try db.query("SELECT code, id_token, refresh_token FROM apple_revocations").first)
        let stored = [relay, kept.text(0) ?? "", kept.text(1) ?? "", kept.text(2) ?? ""]
        for (value, secret) in zip(stored, secrets) {
            #expect(value.hasPrefix(SealedColumn.prefix) && !value.contains(secret), "\(value)")
        }
        #expect(SealedColumn.open(relay, db: db, binding: SealedColumn.relayRefreshToken("uid-1")) == secrets[0])
        for (index, column) in ["code", "id_token", "refresh_token"].enumerated() {
            #expect(
                SealedColumn.open(stored[index + 1], db: db, binding: SealedColumn.revocation(column, "r1"))
                    == secrets[index + 1])
        }
        // Filed under another row or column, or opened under another key: nothing.
        #expect(SealedColumn.open(relay, db: db, binding: SealedColumn.relayRefreshToken("uid-2")) == nil)
        #expect(SealedColumn.open(stored[1], db: db, binding: SealedColumn.revocation("id_token", "r1")) == nil)
        let other = SealedColumn.key(serverKey: Array(repeating: 8, count: 32))
        #expect(SealedColumn.open(relay, key: other, binding: SealedColumn.relayRefreshToken("uid-1")) == nil)
        guard engine == .sqlite else { return }
        try db.checkpoint()
        let file = FileIO.readFile(store.path, limit: 1 << 26) ?? []
        for secret in secrets { #expect(file.firstRange(of: Array(secret.utf8)) == nil, "\(secret)") }
    }

    /// Nothing to seal: no key needed.
    @Test(arguments: StoreEngine.allCases)
    func aStoreWithNothingToSealNeedsNoKey(_ engine: StoreEngine) throws {
        let cleanups = try withStore(engine) { db, _ in try db.query("SELECT count(*) FROM relay_cleanups").first?.int(0) }
        #expect(cleanups == 0)
    }
}
