/// The schema, one script per version: script `i` takes a database from version `i` to `i + 1`
/// (`PRAGMA user_version`). Append new versions; never edit one that has shipped.
enum Migrations {
    static let scripts: [String] = [v1, v2, emailCodesAndLimits, accountDeletion, keyedRateLimits, eventOutbox]

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
}
