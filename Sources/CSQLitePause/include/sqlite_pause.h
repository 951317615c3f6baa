#ifndef FRONTDOOR_SQLITE_PAUSE_H
#define FRONTDOOR_SQLITE_PAUSE_H

/* The connection is the one SQLite handle of CSQLite: only its name is needed here. */
typedef struct sqlite3 sqlite3;

// Tests only: a VFS that holds one checkpoint at the moment the WAL-reset bug needs, so the race
// runs the same way every time (Tests/SharedTests/WALResetRaceTests.swift, docs/sqlite.md).
//
// "frontdoor-pause" forwards every call to "unix". A connection opened on it can run one
// checkpoint on a thread of its own: SQLite reads the WAL index header, and when it has changed
// since the connection last read it, unmaps the database file (xUnfetch) before it looks at what
// is left to copy. The thread stops there, with the checkpoint lock held and the header it read,
// until the test has made its commit and releases it.

/// Registers the VFS (not as the default). SQLITE_OK, or SQLite's error.
int frontdoor_pause_register(void);

/// Runs sqlite3_wal_checkpoint_v2(db, "main", mode) on a new thread that stops at its first
/// xUnfetch. 0 when the thread started. `db` must not be used until frontdoor_pause_join.
int frontdoor_pause_checkpoint_in_thread(sqlite3 *db, int mode);

/// Waits up to `timeout_ms` for the thread to reach its stop: 0 when it did.
int frontdoor_pause_wait_reached(int timeout_ms);

/// 1 when the thread stopped at xUnfetch (0 when its checkpoint returned without one).
int frontdoor_pause_stopped(void);

/// Lets the thread go on, waits for its checkpoint to return and gives its result code.
int frontdoor_pause_join(void);
#endif
