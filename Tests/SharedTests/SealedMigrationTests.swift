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
}
