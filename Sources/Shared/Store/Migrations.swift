/// The schema, one script per version: script `i` takes a database from version `i` to `i + 1`
/// (`PRAGMA user_version`). Append new versions; never edit one that has shipped.
enum Migrations {
    static let scripts: [String] = [v1, v2, emailCodesAndLimits]

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
}
