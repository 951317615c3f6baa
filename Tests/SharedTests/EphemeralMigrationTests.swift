import Testing
@testable import Shared

/// Issue 21: the short-lived tables become kinds of `ephemeral`, and the stored schema loses its
/// comments, in place: a store built at the version before keeps what it held.
@Suite struct EphemeralMigrationTests {
    static let before = Migrations.scripts.firstIndex(of: Migrations.ephemeralKinds) ?? 0

    /// What SQLite itself says of every table and index (columns, types, defaults, keys, foreign
    /// keys, indexed columns), by name: the stored texts' rewriting must change none of it.
    func structure(_ db: Database, skipping: Set<String> = []) throws -> [String] {
        var lines: [String] = []
        let objects = try db.query("SELECT type, name, tbl_name FROM \(storeSchema(db)) ORDER BY name")
        for object in objects {
            guard let type = object.text(0), let name = object.text(1), !skipping.contains(name),
                !skipping.contains(object.text(2) ?? "")
            else { continue }
            let pragmas =
                type == "table"
                ? ["table_xinfo", "foreign_key_list", "index_list"] : ["index_xinfo"]
            for pragma in pragmas {
                for row in try db.query("SELECT * FROM pragma_\(pragma)(?)", [.text(name)]) {
                    // An index's place in index_list is its position in the list, not a property.
                    let first = pragma == "index_list" ? 1 : 0
                    let values = (first..<row.count).map { row.text($0) ?? row.int($0).map(String.init) ?? "NULL" }
                    if values.contains(where: skipping.contains) { continue }
                    lines.append("\(name) \(pragma) \(values.joined(separator: "|"))")
                }
            }
            if type == "table" {
                let list = try db.query("SELECT strict, wr FROM pragma_table_list WHERE name = ?", [.text(name)])
                lines.append("\(name) strict=\(list.first?.int(0) ?? -1) withoutRowid=\(list.first?.int(1) ?? -1)")
            }
        }
        return lines
    }

    func schemaTexts(_ db: Database) throws -> [String] {
        try db.query("SELECT name, sql FROM \(storeSchema(db)) WHERE sql IS NOT NULL ORDER BY name")
            .map { "\($0.text(0) ?? ""): \($0.text(1) ?? "")" }
    }

    static let folded = [
        "nonces", "rate_limits", "oauth_tokens", "email_codes", "relay_attempts", "relay_sends", "provider_events",
    ]

    @Test func aStoreFromTheVersionBeforeKeepsItsNoncesLimitsTokensCodesAndRelayRecords() throws {
        try withStoreDirectory { dir in
            let nonce = SHA256.hash(Array("raw nonce".utf8))
            let limit = RateLimits.Limit("login-email", "a@example.org", maximum: 3, windowSeconds: 900, secret: [1])
            let now: UnixTime = 1_800_000_000
            let window = limit.windowStart(now)
            let ticket = SHA256.hash(Array("ticket".utf8))
            let tokenHash = SHA256.hash(Array("apple token".utf8))
            // A subject key whose bytes include a zero and 0xFF: joined to the nonce byte for byte.
            let subject: [UInt8] = [0, 0xFF] + SHA256.hash(Array("sub".utf8)).dropFirst(2)
            let otherNonce = SHA256.hash(Array("other nonce".utf8))
            let kept: [String]
            do {
                let db = try Database(path: dir.databasePath, upTo: Self.before)
                try db.run("INSERT INTO nonces (nonce_hash, expires_at) VALUES (?, ?)", [.blob(nonce), .integer(now + 600)])
                try db.run(
                    "INSERT INTO rate_limits (key_hash, window_start, hits, expires_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
                    [
                        .blob(limit.keyHash), .integer(window - 900), .integer(7), .integer(window),
                        .blob(limit.keyHash), .integer(window), .integer(2), .integer(window + 900),
                    ])
                try db.run(
                    "INSERT INTO oauth_tokens (cache_key, sealed_token, expires_at) VALUES ('url account scope', x'0102', ?)",
                    [.integer(now + 3000)])
                try db.run(
                    "INSERT INTO email_codes (ticket_hash, code_hash, attempts, created_at, expires_at) VALUES (?, ?, 2, ?, ?)",
                    [.blob(ticket), .blob(Codes.hash("123456", ticketHash: ticket, key: Array(repeating: 7, count: 32))), .integer(now - 60), .integer(now + 540)])
                try db.run(
                    """
                    INSERT INTO relay_attempts (nonce_hash, token_hash, relay_uid, sealed_id_token, lease_until, expires_at)
                    VALUES (?, ?, 'relay-uid', x'0506', 0, ?)
                    """, [.blob(nonce), .blob(tokenHash), .integer(now + 300)])
                try db.run(
                    "INSERT INTO relay_sends (nonce_hash, subject_key, sent_at, expires_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
                    [
                        .blob(nonce), .blob(subject), .integer(now - 100), .integer(now + 86_400),
                        .blob(otherNonce), .blob(subject), .integer(now - 50), .integer(now + 86_400),
                    ])
                try db.run(
                    """
                    INSERT INTO provider_events (provider, jti, type, outcome, repeats, received_at)
                    VALUES ('google', 'jti-1', 'account-disabled', 'no_account', 3, ?)
                    """, [.integer(now - 10)])
                try db.run("INSERT INTO accounts (id, email_key, created_at) VALUES ('a1', 'a@example.org', 1)")
                try db.run("INSERT INTO sessions VALUES (x'aa', 's1', 'a1', NULL, 1, 1, ?)", [.integer(now + 100)])
                #expect(try schemaTexts(db).contains { $0.contains("--") })
                // The sessions move to their own file later (`SessionFile`, SessionFileMigrationTests).
                kept = try structure(db, skipping: Set(Self.folded + ["apple_revocations_until", "email_tickets", "sessions"]))
            }
            let db = try Database(path: dir.databasePath)
            #expect(try storeVersion(db) == Int64(Database.schemaVersion))
            #expect(try db.query("PRAGMA integrity_check").first?.text(0) == "ok")
            #expect(try db.query("PRAGMA foreign_key_check").isEmpty)
            // The carried rows answer as they did: the nonce stays spent, the limit's live window
            // keeps its count (the older window, which no limit reads, is gone), the token is kept.
            #expect(try !Nonces.claim(hash: nonce, until: now + 600, db: db))
            #expect(try RateLimits.hits(limit, db: db, now: now) == 2)
            #expect(try db.query("SELECT count(*) FROM ephemeral WHERE kind = 2").first?.int(0) == 1)
            #expect(try Ephemeral.value(.oauthToken, key: Array("url account scope".utf8), now: now, db: db) == [1, 2])
            // The code answers as it did (two tries used, still live), the kept relay answer is
            // leased by its nonce and token, and the marks are found by their subject.
            let code = try #require(try Ephemeral.entry(.emailCode, key: ticket, db: db))
            #expect(code.number == 2 && code.since == now - 60 && code.expiresAt == now + 540)
            #expect(code.value == Codes.hash("123456", ticketHash: ticket, key: Array(repeating: 7, count: 32)))
            let relay = try RelayAttempts.claim(nonceHash: nonce, tokenHash: tokenHash, lease: 30, db: db, now: now)
            #expect(relay?.localId == "relay-uid" && relay?.sealed == [5, 6])
            #expect(try RelaySends.earliest(subjectKey: subject, besides: otherNonce, db: db) == now - 100)
            #expect(try RelaySends.earliest(subjectKey: subject, besides: nonce, db: db) == now - 50)
            // The event's row answers a repeat as it did, and goes 90 days after it came.
            let event = try #require(try Ephemeral.entry(.providerEvent, key: ProviderEventStore.key(.google, jti: "jti-1"), db: db))
            #expect(event.number == 3 && event.since == now - 10 && event.note == "no_account")
            #expect(event.value == Array("account-disabled".utf8) && event.expiresAt == now - 10 + ProviderEventStore.keptSeconds)
            #expect(try !ProviderEventStore.claim(.google, jti: "jti-1", types: "account-disabled", db: db, now: now))
            #expect(try ProviderEventStore.counts(since: now - 100, db: db)
                == [ProviderEventStore.Count(provider: "google", outcome: "no_account", events: 1, repeats: 4)])
            #expect(try db.query("SELECT count(*) FROM sessions").first?.int(0) == 1)
            // The rest of the schema is what it was, object for object, only its text shorter
            // (besides what the later passkeys, settings and security versions migrations add: rule 18's
            // sessions.signed_in_at and email_tickets.email, the ledger's password and address versions,
            // the session file's account views, and the takebacks' identity sessions and sessions epoch, the account's language).
            let after = try structure(
                db,
                skipping: [
                    "ephemeral", "apple_revocations_until", "passkeys", "passkey_handle", "signed_in_at", "email_tickets",
                    "password_version", "email_version", "sessions", "account_views", "session_id", "session_made_at",
                    "sessions_epoch", "language",
                ])
            #expect(after.filter { !kept.contains($0) } == [] && kept.filter { !after.contains($0) } == [])
            let gone = try db.query(
                """
                SELECT count(*) FROM \(storeSchema(db))
                WHERE name IN ('nonces', 'rate_limits', 'oauth_tokens', 'email_codes', 'relay_attempts', 'relay_sends',
                               'provider_events', 'apple_revocations_until')
                   OR tbl_name IN ('nonces', 'rate_limits', 'oauth_tokens', 'email_codes', 'relay_attempts', 'relay_sends',
                                   'provider_events')
                """)
            #expect(gone.first?.int(0) == 0)
            for text in try schemaTexts(db) {
                #expect(!text.contains("--") && !text.contains("\n") && !text.contains("  "), "\(text)")
                #expect(!text.contains("CHECK"), "\(text)")
            }
            // A new store and a migrated one hold the same schema, byte for byte.
            let fresh = try Database(path: dir.path + "/fresh.sqlite3")
            #expect(try schemaTexts(fresh) == schemaTexts(db))
        }
    }

    @Test func compactingKeepsEveryTokenAndEveryQuotedString() {
        let sql = """
            CREATE TABLE t (           -- why
              a TEXT NOT NULL DEFAULT 'x  -- not a comment, ''quoted''',
              "b  c" INTEGER /* gone */ , [d  e] BLOB
            , f INTEGER) STRICT
            """
        #expect(
            SchemaText.compacted(sql)
                == #"CREATE TABLE t (a TEXT NOT NULL DEFAULT 'x  -- not a comment, ''quoted''',"b  c" INTEGER,[d  e] BLOB,f INTEGER) STRICT"#)
        #expect(SchemaText.compacted("CREATE INDEX i ON t(a)") == "CREATE INDEX i ON t(a)")
    }

    @Test func aCounterStartsAgainInANewWindow() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            let key: [UInt8] = [9]
            try Ephemeral.increment(.rateLimit, key: key, window: 100, until: 200, db: db)
            try Ephemeral.increment(.rateLimit, key: key, window: 100, until: 200, db: db)
            #expect(try Ephemeral.count(.rateLimit, key: key, window: 100, db: db) == 2)
            try Ephemeral.increment(.rateLimit, key: key, window: 200, until: 300, db: db)
            #expect(try Ephemeral.count(.rateLimit, key: key, window: 200, db: db) == 1)
            #expect(try Ephemeral.count(.rateLimit, key: key, window: 100, db: db) == 0)
            try Ephemeral.decrement(.rateLimit, key: key, window: 200, db: db)
            try Ephemeral.decrement(.rateLimit, key: key, window: 200, db: db)
            #expect(try Ephemeral.count(.rateLimit, key: key, window: 200, db: db) == 0)
            // The same key under another kind is another row.
            #expect(try Ephemeral.claim(.nonce, key: key, until: 300, db: db))
            #expect(try Ephemeral.count(.rateLimit, key: key, window: 200, db: db) == 0)
        }
    }

    /// A subject's marks are the keys that begin with its HMAC: a neighbouring subject's, one
    /// byte above or below, are neither counted nor cleared with them.
    @Test func aSubjectsMarksAreOneRangeOfTheKey() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            let subject = [UInt8](repeating: 0x40, count: 32)
            let below = [UInt8](repeating: 0x40, count: 31) + [0x3F]
            let above = [UInt8](repeating: 0x40, count: 31) + [0x41]
            let n1 = [UInt8](repeating: 0xFF, count: 32), n2 = [UInt8](repeating: 0x00, count: 32)
            try RelaySends.mark(nonceHash: n1, subjectKey: subject, db: db, now: 300)
            try RelaySends.mark(nonceHash: n2, subjectKey: subject, db: db, now: 200)
            try RelaySends.mark(nonceHash: n1, subjectKey: below, db: db, now: 100)
            try RelaySends.mark(nonceHash: n2, subjectKey: above, db: db, now: 50)
            #expect(try RelaySends.earliest(subjectKey: subject, besides: n2, db: db) == 300)
            #expect(try RelaySends.earliest(subjectKey: subject, besides: [1], db: db) == 200)
            try RelaySends.clear(RelayUser.Send(nonceHash: n2, subjectKey: subject), db: db)
            #expect(try RelaySends.earliest(subjectKey: subject, besides: [1], db: db) == 300)
            try RelaySends.clearSubject(subject, db: db)
            #expect(try RelaySends.earliest(subjectKey: subject, besides: [1], db: db) == nil)
            #expect(try RelaySends.earliest(subjectKey: below, besides: [1], db: db) == 100)
            #expect(try RelaySends.earliest(subjectKey: above, besides: [1], db: db) == 50)
        }
    }

    /// A kept relay answer is taken only with its own Apple token, by one request at a time.
    @Test func aKeptRelayAnswerIsLeasedByNonceAndToken() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            let nonce = SHA256.hash([1]), token = SHA256.hash([2]), other = SHA256.hash([3])
            #expect(try Ephemeral.claim(.relayAttempt, key: nonce + token, value: [9], note: "uid", until: 1_000, db: db))
            #expect(try RelayAttempts.claim(nonceHash: nonce, tokenHash: other, lease: 30, db: db, now: 100) == nil)
            #expect(try RelayAttempts.claim(nonceHash: nonce, tokenHash: token, lease: 30, db: db, now: 100)?.localId == "uid")
            #expect(try RelayAttempts.claim(nonceHash: nonce, tokenHash: token, lease: 30, db: db, now: 110) == nil)
            RelayAttempts.release(nonceHash: nonce, tokenHash: token, db: db)
            #expect(try RelayAttempts.claim(nonceHash: nonce, tokenHash: token, lease: 30, db: db, now: 110) != nil)
            #expect(try RelayAttempts.claim(nonceHash: nonce, tokenHash: token, lease: 30, db: db, now: 1_000) == nil)
        }
    }
}
