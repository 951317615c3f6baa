#ifndef FRONTDOOR_CSQLITE_SHIM_H
#define FRONTDOOR_CSQLITE_SHIM_H
#include <stddef.h>
// The SQLite that `make deps` (scripts/sqlite-deps) builds, not Debian's 3.40.1: see docs/sqlite.md.
#include "../../.build/sqlite/current/include/sqlite3.h"

// The WAL-reset bug is fixed from 3.51.3 on, and in the 3.44.6 and 3.50.7 backports.
#if !(SQLITE_VERSION_NUMBER >= 3051003 || (SQLITE_VERSION_NUMBER >= 3050007 && SQLITE_VERSION_NUMBER < 3051000) \
      || (SQLITE_VERSION_NUMBER >= 3044006 && SQLITE_VERSION_NUMBER < 3045000))
#error "this SQLite has the WAL-reset bug: run make deps"
#endif

// Swift cannot call C variadic functions or use SQLITE_TRANSIENT (a cast of -1 to a function
// pointer), so the few calls that need them get typed wrappers here.

/// Turns off SQLite's memory statistics, which nothing reads: with them on, every allocation takes
/// a global mutex and updates counters (about 100 K instructions of a sign-in's schema parse).
/// Only possible before SQLite initialises, so it returns SQLITE_MISUSE when called later.
static inline int frontdoor_sqlite3_no_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Turns off the page cache's up-front allocation of 20 pages per connection (~86 KiB, every
/// slot written as it is linked): a process that reads five pages then faults in twenty. Pages
/// are allocated one by one as they are read instead. Before SQLite initialises, like the above.
static inline int frontdoor_sqlite3_no_bulk_page_cache(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}

/// sqlite3_db_config for the "int, int*" options (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE and friends).
static inline int frontdoor_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// Sets SQLITE_FCNTL_PERSIST_WAL on the database `schema` ("main", or an attached one's name):
/// 1 on, 0 off, -1 to only read it back.
static inline int frontdoor_sqlite3_persist_wal(sqlite3 *db, const char *schema, int *value) {
    return sqlite3_file_control(db, schema, SQLITE_FCNTL_PERSIST_WAL, value);
}

/// Binds text SQLite copies at once, so the Swift buffer need not outlive the call.
static inline int frontdoor_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

/// Binds a blob SQLite copies at once; a zero-length blob must go through sqlite3_bind_zeroblob.
static inline int frontdoor_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}
/// The WAL hook frontdoor installs instead of SQLite's automatic checkpoint: it only records the
/// WAL's frame count after each commit. The automatic checkpoint cannot work for us: no process
/// outlives its request, each one rebuilds the WAL index when it opens and so forgets what was
/// checkpointed, and the WAL is never restarted; it grew to 12 MB, re-read by every process.
/// A commit to both of a connection's files (the sessions' and the store's) calls it once for each:
/// the longer WAL is the one to tidy by.
static int frontdoor_sqlite3_record_wal_frames(void *context, sqlite3 *db, const char *name, int frames) {
    (void)db;
    (void)name;
    if (frames > *(int *)context) *(int *)context = frames;
    return SQLITE_OK;
}

static inline void frontdoor_sqlite3_watch_wal(sqlite3 *db, int *frames) {
    sqlite3_wal_hook(db, frontdoor_sqlite3_record_wal_frames, frames);
}

/// Removes the busy handler, so a checkpoint that would have to wait gives up at once instead.
static inline int frontdoor_sqlite3_no_busy_handler(sqlite3 *db) {
    return sqlite3_busy_handler(db, NULL, NULL);
}
#endif
