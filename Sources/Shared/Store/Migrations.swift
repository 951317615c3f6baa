/// The schema, one script per version: script `i` takes a database from version `i` to `i + 1`
/// (`PRAGMA user_version`). Append new versions; never edit one that has shipped.
enum Migrations {
    static let scripts: [String] = [
        v1, v2, emailCodesAndLimits, accountDeletion, keyedRateLimits, reviewFixes, slidingSessions, relayWindow,
        eventOutbox, sealedUnderServerKey, outboxHeads, domainKeys, disabledAccounts,
        providerEvents, ephemeralKinds, passkeys, passkeySessions, settings, securityVersions, sealedSecrets,
        sessionFile, sessionCheckFunction, takebacks, accountLanguage,
    ]

    /// The version from which the sessions live in their own file (`SessionFile`).
    static let sessionFileVersion = 21

    /// The server key, for a step that seals; nil when the store was opened without its config.
    typealias ServerKey = () throws(FrontdoorError) -> [UInt8]

    /// What a script leaves to Swift, run right after it in the same transaction.
    static func afterScript(_ script: String, in db: SQLiteDatabase, serverKey: ServerKey?) throws(FrontdoorError) {
        if script == domainKeys { try AddressRekey.run(db) }
        if script == ephemeralKinds { try SchemaText.compact(db) }
        if script == sessionFile {
            try SessionFile.takeOver(from: db)
        }
        if script == sealedSecrets {
            try sealSecrets(serverKey, rows: { sql throws(FrontdoorError) in try db.query(sql) }, run: { sql, params throws(FrontdoorError) in _ = try db.run(sql, params) })
        }
    }

    /// `sealedSecrets`' step on either engine. A store with nothing to seal needs no key; one with
    /// secrets in the clear and no key at hand is refused rather than left half done.
    static func sealSecrets(
        _ serverKey: ServerKey?, rows: (String) throws(FrontdoorError) -> [Row],
        run: (String, [SQLValue]) throws(FrontdoorError) -> Void
    ) throws(FrontdoorError) {
        let waiting = try rows(
            """
            SELECT (SELECT count(*) FROM relay_cleanups WHERE refresh_token IS NOT NULL)
              + (SELECT count(*) FROM apple_revocations
                 WHERE code IS NOT NULL OR id_token IS NOT NULL OR refresh_token IS NOT NULL)
            """).first?.int(0) ?? 0
        guard waiting > 0 else { return }
        guard let serverKey else {
            throw .internal("migrate: the store keeps secrets to seal under the server key; open it with its config")
        }
        try SealedColumn.sealInPlace(key: SealedColumn.key(serverKey: try serverKey()), rows: rows, run: run)
    }

    static let v1 = """
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,                 -- random, opaque
          email TEXT,                          -- as the person or provider gave it (trimmed)
          email_key TEXT UNIQUE,               -- the normalised address used for matching (lower-cased whole address)
          email_verified INTEGER NOT NULL DEFAULT 0,
          name TEXT,
          password_hash TEXT,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE identities (
          provider TEXT NOT NULL,              -- 'google' | 'apple'
          subject TEXT NOT NULL,
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (provider, subject)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX identities_account ON identities(account_id);
        CREATE TABLE sessions (
          token_hash BLOB PRIMARY KEY,         -- SHA-256 of the session token; the token itself is never stored
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX sessions_account ON sessions(account_id);
        CREATE INDEX sessions_expiry ON sessions(expires_at);
        CREATE TABLE tickets (                 -- pending joins answered with 409 proof_required
          ticket_hash BLOB PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          provider TEXT NOT NULL,
          subject TEXT NOT NULL,
          methods TEXT NOT NULL,               -- comma-separated: password,email_code
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX tickets_account ON tickets(account_id);
        CREATE INDEX tickets_expiry ON tickets(expires_at);
        CREATE TABLE key_sets (                -- issuers' published keys, shared by every process
          url TEXT PRIMARY KEY,
          body BLOB NOT NULL,
          fetched_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          refetch_after INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        """

    /// Sign in with Apple: nonces seen (rule 5) and relay users still to delete (rule 4). Neither
    /// table says anything about a person, and neither references an account.
    static let v2 = """
        CREATE TABLE nonces (
          nonce_hash BLOB PRIMARY KEY,         -- SHA-256 of the raw nonce (the token's nonce claim, decoded)
          expires_at INTEGER NOT NULL          -- the Apple token's exp plus clock skew: a replay is refused until then
        ) STRICT;
        CREATE INDEX nonces_expiry ON nonces(expires_at);
        CREATE TABLE relay_cleanups (          -- Firebase relay users not yet deleted
          id INTEGER PRIMARY KEY,
          relay_uid TEXT NOT NULL,             -- Firebase's localId, new for every relay sign-in
          refresh_token TEXT,                  -- for a fresh ID token once the first has expired
          attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX relay_cleanups_due ON relay_cleanups(next_attempt_at);
        """

    /// Email and password accounts: own-email and reset tickets, mailed codes, rate limits.
    static let emailCodesAndLimits = """
        CREATE TABLE email_tickets (           -- own-email verification and password reset
          ticket_hash BLOB PRIMARY KEY,        -- SHA-256 of the ticket
          purpose TEXT NOT NULL,               -- 'verify' | 'reset'
          account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,  -- NULL: a reset for an address nobody has
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX email_tickets_account ON email_tickets(account_id);
        CREATE INDEX email_tickets_expiry ON email_tickets(expires_at);
        CREATE TABLE email_codes (             -- the one live code of a ticket (join, verify or reset)
          ticket_hash BLOB PRIMARY KEY,
          code_hash BLOB NOT NULL,             -- SHA-256(ticket_hash || code); the code itself is never stored
          attempts INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX email_codes_expiry ON email_codes(expires_at);
        CREATE TABLE rate_limits (             -- fixed-window counters
          key_hash BLOB NOT NULL,              -- SHA-256 of '<limit>:<value>', so no address is listed
          window_start INTEGER NOT NULL,
          hits INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          PRIMARY KEY (key_hash, window_start)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX rate_limits_expiry ON rate_limits(expires_at);
        """

    /// Account deletion (issue 5): an audit trail without personal data, and what revoking Sign in
    /// with Apple needs after the answer. Neither references an account: both outlive it.
    static let accountDeletion = """
        CREATE TABLE deletion_audit (
          id INTEGER PRIMARY KEY,
          account_hash BLOB NOT NULL,          -- HMAC-SHA256 of the account id (deletion.auditKeyFile)
          deleted_at INTEGER NOT NULL,
          providers TEXT NOT NULL,             -- comma-separated: apple,google,password
          apple_revocation TEXT NOT NULL,      -- the answer's appleRevocation value
          revocation_id TEXT                   -- scheduled: its row in apple_revocations
        ) STRICT;
        CREATE TABLE apple_revocations (       -- one per deletion answered `scheduled`
          id TEXT PRIMARY KEY,                 -- random, in syslog lines; says nothing about the person
          mode TEXT NOT NULL,                  -- relay | direct
          state TEXT NOT NULL,                 -- scheduled | retry | revoked | mismatch | failed | expired
          detail TEXT,                         -- a short reason, never a token or code
          client_id TEXT,                      -- the bundle id the code was issued to (direct mode)
          code TEXT,                           -- Apple's authorization code, only while a retry may use it
          id_token TEXT,                       -- relay: the relay user's Firebase ID token, for revokeToken
          refresh_token TEXT,                  -- direct: Apple's refresh token when the code is spent
          relay_cleanup_id INTEGER,            -- relay: its relay user, deleted once this settles
          attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER,             -- retry only
          retry_until INTEGER,                 -- after this the secrets go and the state is expired
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX apple_revocations_due ON apple_revocations(state, next_attempt_at);
        CREATE INDEX apple_revocations_until ON apple_revocations(retry_until);
        """

    /// Rate-limit keys become HMACs with a server secret (a plain SHA-256 of `login-email:<address>`
    /// can be checked against a list of addresses). The old rows are dropped, not rehashed: their
    /// values are unknown, and their windows end within the hour anyway.
    static let keyedRateLimits = """
        DROP TABLE rate_limits;
        CREATE TABLE rate_limits (             -- fixed-window counters
          key_hash BLOB NOT NULL,              -- HMAC-SHA256 of '<limit>/<window>:<value>' with the server's rate-limit secret
          window_start INTEGER NOT NULL,
          hits INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          PRIMARY KEY (key_hash, window_start)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX rate_limits_expiry ON rate_limits(expires_at);
        """

    /// The security review (issue 12). `email_proven` says whether the identity's provider spoke
    /// for the account's address when the identity made or joined the account; one that did not
    /// (a Google address outside gmail.com without `hd`) goes when the inbox is later proven by
    /// code. Rows from before were made under the old rule and are kept as proven. A reset ticket
    /// remembers the rate-limit key of the address it was asked for (an HMAC, never the address),
    /// so failed codes are capped per address whether or not an account has it. Relay
    /// revocations waiting for a retry no longer keep the relay user's ID token, which names the
    /// person (a retry gets a fresh one from the clean-up record's refresh token).
    static let reviewFixes = """
        ALTER TABLE identities ADD COLUMN email_proven INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE email_tickets ADD COLUMN address_key BLOB;
        UPDATE apple_revocations SET id_token = NULL;
        """

    /// Sliding sessions (rule 11) and the device list: a public id, the phone's name for itself,
    /// and the last renewal. The table is rebuilt so every column can be NOT NULL; sessions from
    /// before keep their token and expiry, get a random id, and count as last used when made.
    static let slidingSessions = """
        CREATE TABLE sessions_sliding (
          token_hash BLOB PRIMARY KEY,         -- SHA-256 of the session token; the token itself is never stored
          session_id TEXT NOT NULL,            -- public handle (32 hex digits, random): the device list, sign-out by id
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          device_name TEXT,                    -- what the phone called itself at sign-in ("Ada's iPhone")
          created_at INTEGER NOT NULL,         -- the sign-in: sessions.maxLifetimeSeconds counts from here
          last_used_at INTEGER NOT NULL,       -- the last renewal (or the sign-in): as fine as sessions.renewAfterSeconds
          expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO sessions_sliding (token_hash, session_id, account_id, device_name, created_at, last_used_at, expires_at)
          SELECT token_hash, lower(hex(randomblob(16))), account_id, NULL, created_at, created_at, expires_at FROM sessions;
        DROP TABLE sessions;
        ALTER TABLE sessions_sliding RENAME TO sessions;
        CREATE UNIQUE INDEX sessions_public_id ON sessions(session_id);
        CREATE INDEX sessions_account ON sessions(account_id);
        CREATE INDEX sessions_expiry ON sessions(expires_at);
        """

    /// Issue 15, the relay against the real Firebase. A relay user can be deleted with its own ID
    /// token only within a few minutes of its sign-in (`delete_by_token_until`); past that it
    /// waits for the Admin API (`state` 'admin', with a service account) or the operator, and a
    /// failing Admin API gives up ('stuck'). Records from before are all past their window: they
    /// are looked at once, at once. `relay_attempts` keeps what Firebase answered a sign-in whose
    /// later step failed, sealed with a key only the phone's raw nonce gives, so the phone's retry
    /// completes without sending Firebase the credential it already took. `oauth_tokens` caches
    /// the service account's access token for its life. A revocation remembers its Apple `sub`
    /// only as an HMAC, so a direct-mode retry can bind the code to the account. `relay_sends`
    /// marks each `signInWithIdp` until its answer is handled: one never answered (a time-out after
    /// sending, a process killed) may have made a user nobody knows, which the same person's next
    /// sign-in then reaches and can recognise by its creation time.
    static let relayWindow = """
        ALTER TABLE relay_cleanups ADD COLUMN state TEXT NOT NULL DEFAULT 'token';  -- token | admin | stuck
        ALTER TABLE relay_cleanups ADD COLUMN delete_by_token_until INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE relay_cleanups ADD COLUMN admin_attempts INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE relay_cleanups ADD COLUMN detail TEXT;  -- the last failure, a short reason, never a token
        UPDATE relay_cleanups SET next_attempt_at = 0;
        CREATE INDEX relay_cleanups_uid ON relay_cleanups(relay_uid);
        ALTER TABLE apple_revocations ADD COLUMN subject_hash BLOB;  -- HMAC of the deleted account's Apple sub
        CREATE TABLE relay_attempts (          -- a relay sign-in Firebase answered and a later step did not finish
          nonce_hash BLOB PRIMARY KEY,         -- the sign-in's nonce, as in nonces
          token_hash BLOB NOT NULL,            -- SHA-256 of the Apple identity token: the retry must send the same
          relay_uid TEXT NOT NULL,
          sealed_id_token BLOB NOT NULL,       -- the Firebase ID token, AES-256-GCM under a key from the raw nonce
          lease_until INTEGER NOT NULL DEFAULT 0,
          expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX relay_attempts_expiry ON relay_attempts(expires_at);
        CREATE TABLE relay_sends (             -- a signInWithIdp sent and not yet answered, or never answered
          nonce_hash BLOB PRIMARY KEY,         -- the sign-in's (or the revocation's) nonce
          subject_key BLOB NOT NULL,           -- HMAC of the Apple sub with the rate-limit secret, never the sub
          sent_at INTEGER NOT NULL,            -- just before sending: a user Firebase made for it is no older
          expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX relay_sends_subject ON relay_sends(subject_key);
        CREATE INDEX relay_sends_expiry ON relay_sends(expires_at);
        CREATE TABLE oauth_tokens (            -- the service account's access token (firebase.serviceAccountFile)
          cache_key TEXT PRIMARY KEY,          -- token URL, account and scope
          access_token TEXT NOT NULL,
          expires_at INTEGER NOT NULL          -- its expiry less a margin
        ) STRICT;
        """

    /// Account events (issue 14, rule 12): the outbox, written in the transaction of each change,
    /// and the one row that says who is delivering. No reference to accounts: a deletion's event
    /// outlives the account, and a body holds nothing the account's rows would be needed for.
    static let eventOutbox = """
        CREATE TABLE events (
          seq INTEGER PRIMARY KEY,             -- the order the events were written in
          id TEXT NOT NULL,                    -- random; the receiver de-duplicates by it
          type TEXT NOT NULL,                  -- account.created | account.linked | account.email_verified | account.deleted
          account_id TEXT NOT NULL,
          body TEXT NOT NULL,                  -- the JSON sent, exactly: no email, name, token or provider subject
          created_at INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0, -- failed attempts so far
          next_attempt_at INTEGER NOT NULL,
          last_error TEXT                      -- why the last attempt failed: an HTTP status or a transport error
        ) STRICT;
        CREATE INDEX events_account ON events(account_id, seq);
        CREATE TABLE event_delivery (          -- exactly one row
          id INTEGER PRIMARY KEY CHECK (id = 1),
          owner TEXT,                          -- the delivering process's random token, while it delivers
          lease_until INTEGER NOT NULL DEFAULT 0,
          paused_until INTEGER NOT NULL DEFAULT 0  -- after a failed attempt the receiver is left alone until then
        ) STRICT;
        INSERT INTO event_delivery (id) VALUES (1);
        """

    /// Issue 19, items 8 and 9: what the store keeps that opens a door is sealed under the server
    /// key, which no backup of the store holds. The service account's access token was kept in
    /// the clear: the rows go (a new token is asked for on the next Admin API call) and the table
    /// keeps only sealed ones. Relay answers kept for a retry were sealed under the raw nonce
    /// alone: they go too (each lives five minutes; its phone's retry starts over).
    static let sealedUnderServerKey = """
        DROP TABLE oauth_tokens;
        CREATE TABLE oauth_tokens (            -- the service account's access token (firebase.serviceAccountFile)
          cache_key TEXT PRIMARY KEY,          -- token URL, account and scope
          sealed_token BLOB NOT NULL,          -- the token, AES-256-GCM under a key from the server key, bound to cache_key
          expires_at INTEGER NOT NULL          -- its expiry less a margin
        ) STRICT;
        DELETE FROM relay_attempts;
        """

    /// Issue 19, item 7: the outbox's queries scanned the whole table inside the write lock (with
    /// 200,000 events waiting, 0.27 s a delivery run). `head` marks each account's oldest waiting
    /// event, the only one of its account that may go (`EventOutbox.insert` and `remove` keep it);
    /// the due heads, the earliest of them, and the rows past `events.retainSeconds` are then
    /// index searches.
    static let outboxHeads = """
        ALTER TABLE events ADD COLUMN head INTEGER NOT NULL DEFAULT 0;  -- 1: its account's oldest waiting event
        UPDATE events SET head = 1 WHERE seq IN (SELECT min(seq) FROM events GROUP BY account_id);
        CREATE INDEX events_due ON events(next_attempt_at, seq) WHERE head = 1;
        CREATE INDEX events_created ON events(created_at);
        """

    /// Issue 19: an address's domain is keyed by its A-label, no longer case-folded with the rest.
    /// SQL cannot make the key: `AddressRekey.run` rekeys the accounts, after this script.
    static let domainKeys = """
        -- issue 19: the email keys of non-ASCII domains become A-labels (AddressRekey, in Swift)
        """

    /// Issue 20, the operator's hands (rule 14): an account the operator disabled, and since when.
    /// NULL for every account that is not; sign-ins and the session check refuse the others.
    static let disabledAccounts = """
        ALTER TABLE accounts ADD COLUMN disabled_at INTEGER;
        """

    /// Issue 23, the providers' events (rule 16). One row per Apple notification or Google security
    /// event received, by its `jti`, written in the transaction of what it caused, so a repeat
    /// finds its row and does nothing; nothing in it names a person. Google's `account-disabled`
    /// blocks that identity (`blocked_at`: no sign-in, no code to the account's address); Apple's
    /// `email-disabled` stops mail to the account's relay address (`mail_off_at`). Both hold the
    /// event's time. A revocation keeps its Apple `sub`'s HMAC until Apple echoes it
    /// (`confirmed_at`) or the row goes.
    static let providerEvents = """
        CREATE TABLE provider_events (
          provider TEXT NOT NULL,              -- apple | google
          jti TEXT NOT NULL,                   -- the token's id, unique to its sender
          type TEXT NOT NULL,                  -- its event types, short and comma-separated: consent-revoked, account-disabled
          outcome TEXT NOT NULL,               -- applied | ignored | no_account | echo
          repeats INTEGER NOT NULL DEFAULT 0,  -- deliveries after the first (each changed nothing)
          received_at INTEGER NOT NULL,
          PRIMARY KEY (provider, jti)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX provider_events_received ON provider_events(received_at);
        ALTER TABLE identities ADD COLUMN blocked_at INTEGER;
        ALTER TABLE identities ADD COLUMN mail_off_at INTEGER;
        ALTER TABLE apple_revocations ADD COLUMN confirmed_at INTEGER;
        """

    /// Issue 21: every process parses the whole schema before its first statement, so each object
    /// taxes every request (docs/performance.md, "Adding a table without taxing every request").
    /// Nonces, rate-limit windows, the cached service-account token, mailed codes, kept relay
    /// answers, relay marks and the providers' events seen become kinds of one `ephemeral` table
    /// (`Ephemeral`, which says what each column holds for each kind): sixteen objects (seven
    /// tables, two automatic indexes, six expiry indexes and `relay_sends_subject`) become two. A
    /// provider event's row goes 90 days after it came (`ProviderEventStore.keptSeconds`). A key keeps its latest rate-limit
    /// window only, the one a limit reads. A relay mark is keyed by its subject's HMAC and then its
    /// nonce, and a kept relay answer by its nonce and then its Apple token's hash, so each query
    /// is a search of the primary key (`CAST(… || … AS BLOB)` joins two blobs byte for byte). `apple_revocations_until` goes: the
    /// one query that used it finds its rows through `apple_revocations_due` by state
    /// (`StoreQueryPlanTests`). `event_delivery` loses its CHECK (the row is made here and only
    /// ever updated by id). And after the script, `SchemaText.compact` rewrites every stored
    /// `CREATE` without its comments and layout, which every process tokenized at 9 instructions a
    /// byte. `ephemeral_expiry` serves housekeeping's prune, which runs inside the write lock.
    static let ephemeralKinds = """
        CREATE TABLE ephemeral (kind INTEGER NOT NULL, key BLOB NOT NULL, number INTEGER NOT NULL DEFAULT 0, since INTEGER NOT NULL DEFAULT 0, value BLOB, note TEXT, expires_at INTEGER NOT NULL, PRIMARY KEY (kind, key)) STRICT, WITHOUT ROWID;
        CREATE INDEX ephemeral_expiry ON ephemeral(expires_at);
        INSERT INTO ephemeral (kind, key, expires_at) SELECT 1, nonce_hash, expires_at FROM nonces;
        INSERT INTO ephemeral (kind, key, number, since, expires_at)
          SELECT 2, key_hash, hits, window_start, expires_at FROM rate_limits r
          WHERE window_start = (SELECT max(window_start) FROM rate_limits WHERE key_hash = r.key_hash);
        INSERT INTO ephemeral (kind, key, value, expires_at) SELECT 3, CAST(cache_key AS BLOB), sealed_token, expires_at FROM oauth_tokens;
        INSERT INTO ephemeral (kind, key, number, since, value, expires_at)
          SELECT 4, ticket_hash, attempts, created_at, code_hash, expires_at FROM email_codes;
        INSERT INTO ephemeral (kind, key, since, value, note, expires_at)
          SELECT 5, CAST(nonce_hash || token_hash AS BLOB), lease_until, sealed_id_token, relay_uid, expires_at FROM relay_attempts;
        INSERT INTO ephemeral (kind, key, since, expires_at)
          SELECT 6, CAST(subject_key || nonce_hash AS BLOB), sent_at, expires_at FROM relay_sends;
        INSERT INTO ephemeral (kind, key, number, since, value, note, expires_at)
          SELECT 7, CAST(provider || ':' || jti AS BLOB), repeats, received_at, CAST(type AS BLOB), outcome, received_at + 7776000
          FROM provider_events;
        DROP TABLE nonces;
        DROP TABLE rate_limits;
        DROP TABLE oauth_tokens;
        DROP TABLE email_codes;
        DROP TABLE relay_attempts;
        DROP TABLE relay_sends;
        DROP TABLE provider_events;
        DROP INDEX apple_revocations_until;
        """

    /// Issue 24, passkeys (rule 17). One row per registered credential, keyed by its credential id
    /// (unique across every account: a second registration of it is `credential_taken`), which
    /// is also its public `passkeyId` (base64url). The COSE key is kept as received. The counter
    /// and the backup flags are the record's (L3 section 7.2's update step); `counter_regressions`
    /// and `backup_changes` count the signals that never refuse anyone. The account's WebAuthn
    /// user handle is a random column of its row, made at its first registration. Ceremonies are
    /// a kind of `ephemeral`, no schema object. The statements are ones PostgreSQL takes too.
    static let passkeys = """
        CREATE TABLE passkeys (credential_id BLOB PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, public_key BLOB NOT NULL, sign_count INTEGER NOT NULL, backup_eligible INTEGER NOT NULL, backup_state INTEGER NOT NULL, transports TEXT NOT NULL, name TEXT, created_at INTEGER NOT NULL, last_used_at INTEGER, counter_regressions INTEGER NOT NULL DEFAULT 0, backup_changes INTEGER NOT NULL DEFAULT 0) STRICT, WITHOUT ROWID;
        CREATE INDEX passkeys_account ON passkeys(account_id);
        ALTER TABLE accounts ADD COLUMN passkey_handle BLOB;
        """

    /// Issue 29: which session added each passkey (its public id) and when that session was made,
    /// so that a takeback (a reset, signing out everywhere, a join by code that ends the sessions,
    /// Google's hijacking event, the operator's disable or sign-out) removes every passkey that a
    /// session from before it added, even one already signed out (`Takeback`). A passkey
    /// from before this version gets 0: the session that added it is unknown, so any takeback
    /// removes it.
    static let passkeySessions = """
        ALTER TABLE passkeys ADD COLUMN session_id TEXT;
        ALTER TABLE passkeys ADD COLUMN session_made_at INTEGER NOT NULL DEFAULT 0;
        """

    /// Issue 31, settings (rule 18): when each session was made or last proven by a real sign-in
    /// (a renewal is not one), which the sensitive actions judge "recent" by; a session from
    /// before this version gets 0, never recent, so its holder signs in again before changing how
    /// the account is entered. And the new address an address change waits to prove
    /// (`email_tickets` of purpose `change`, kept as long as the ticket).
    static let settings = """
        ALTER TABLE sessions ADD COLUMN signed_in_at INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE email_tickets ADD COLUMN email TEXT;
        """

    /// Issue 29: a restore must not bring back a password or an address that was replaced since
    /// the snapshot. Every change of the password (a reset, a join by code clearing a typed one,
    /// the settings) or of the address (`change_email`) gives the row a new random version and
    /// writes it to the ledger; a re-application clears a password, and disables an account with
    /// an address, whose version is not the last one the ledger names (`Reapply`). NULL: never
    /// changed since this version.
    static let securityVersions = """
        ALTER TABLE accounts ADD COLUMN password_version TEXT;
        ALTER TABLE accounts ADD COLUMN email_version TEXT;
        """

    /// Issue 29: the secrets the store still kept in the clear are sealed under the server key, as
    /// the service account's token is (`sealedUnderServerKey`): a relay user's refresh token, and a
    /// revocation's Apple authorization code, relay ID token and Apple refresh token. The columns
    /// stay text and hold `sealed1:` and the box in base64url (`SealedColumn`); the rows there are
    /// sealed in place by the step after this script (`sealSecrets`), in the same transaction.
    static let sealedSecrets = """
        -- issue 29: relay_cleanups.refresh_token and apple_revocations.code, id_token, refresh_token sealed (SealedColumn, in Swift)
        """

    /// Issue 35: the sessions move to a file of their own, which the session check opens alone
    /// (`SessionFile`). The step after this script copies them there, committing that file first,
    /// and drops the store's table, in the migration's transaction.
    static let sessionFile = """
        -- issue 35: sessions moved to <store>-sessions (SessionFile, in Swift)
        """

    /// Issue 35: PostgreSQL's whole session check becomes a function there (`PostgresMigrations`),
    /// whose plan each server connection keeps; SQLite has nothing to do.
    static let sessionCheckFunction = """
        -- issue 35: the session check's function on PostgreSQL (PostgresMigrations); nothing on SQLite
        """

    /// Issue 44, the fourth review's takebacks. T5-4: which session linked each identity (`account`
    /// `link`) and when that session was made, so that a takeback removes an identity a session
    /// from before it linked, as it removes passkeys (`Takeback`); NULL: the identity came by a
    /// sign-in or a join, not by a session's link, or before this version, and a takeback leaves
    /// it. T5-2: each account's sessions epoch, which every ending of its sessions but one's own
    /// moves on (`SecurityLedger.endSessions`): a sign-in's session, made on SQLite's session file
    /// after the sign-in commits, is made only if the epoch it read is still the account's.
    static let takebacks = """
        ALTER TABLE identities ADD COLUMN session_id TEXT;
        ALTER TABLE identities ADD COLUMN session_made_at INTEGER;
        ALTER TABLE accounts ADD COLUMN sessions_epoch INTEGER NOT NULL DEFAULT 0;
        """

    /// Issue 45: the language the person used when the account was made (`MailLanguage`, a code
    /// such as "fr"), changeable by `account` `update`; the mails go in it. NULL: English.
    static let accountLanguage = """
        ALTER TABLE accounts ADD COLUMN language TEXT;
        """
}
