#ifndef FRONTDOOR_CSQLITE_SHIM_H
#define FRONTDOOR_CSQLITE_SHIM_H
#include <stddef.h>
#include <string.h>
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

/// The account views (`AccountView`): the session file keeps, per account, what the phone's check
/// answers about it, so that check never opens the store. A change to what a view shows must take
/// the view away in the same transaction (a disable too: a view is only of an account that may
/// sign in). The preupdate hook below notes the accounts whose
/// views a change touches, whatever statement makes it (cascades included); the connection
/// deletes their views before it commits. The columns are the store's (`PRAGMA table_info`;
/// `AccountViewTests` holds them to it).
enum {
    FRONTDOOR_ACCOUNTS_ID = 0, FRONTDOOR_ACCOUNTS_EMAIL = 1, FRONTDOOR_ACCOUNTS_EMAIL_VERIFIED = 3,
    FRONTDOOR_ACCOUNTS_PASSWORD_HASH = 5, FRONTDOOR_ACCOUNTS_DISABLED_AT = 7, FRONTDOOR_IDENTITIES_PROVIDER = 0, FRONTDOOR_IDENTITIES_ACCOUNT_ID = 2,
    FRONTDOOR_PASSKEYS_ACCOUNT_ID = 1,
};
enum { FRONTDOOR_VIEW_IDS = 16, FRONTDOOR_VIEW_ID_BYTES = 80 };

typedef struct {
    int count;
    /// More accounts than fit, or one the hook could not read: every view goes.
    int all;
    char ids[FRONTDOOR_VIEW_IDS][FRONTDOOR_VIEW_ID_BYTES];
} frontdoor_view_changes;

static inline void frontdoor_view_note(frontdoor_view_changes *changes, sqlite3_value *value) {
    const unsigned char *text = value ? sqlite3_value_text(value) : NULL;
    int length = value ? sqlite3_value_bytes(value) : 0;
    if (!text || length >= FRONTDOOR_VIEW_ID_BYTES) {
        changes->all = 1;
        return;
    }
    for (int i = 0; i < changes->count; i++) {
        if (strcmp(changes->ids[i], (const char *)text) == 0) return;
    }
    if (changes->count == FRONTDOOR_VIEW_IDS) {
        changes->all = 1;
        return;
    }
    memcpy(changes->ids[changes->count], text, (size_t)length);
    changes->ids[changes->count][length] = 0;
    changes->count++;
}

/// Whether an UPDATE changes column `column` (type and bytes compared); a value it cannot read counts as changed.
static inline int frontdoor_view_column_changed(sqlite3 *db, int column) {
    sqlite3_value *before = NULL, *after = NULL;
    if (sqlite3_preupdate_old(db, column, &before) != SQLITE_OK || sqlite3_preupdate_new(db, column, &after) != SQLITE_OK
        || !before || !after) {
        return 1;
    }
    int type = sqlite3_value_type(before);
    if (type != sqlite3_value_type(after)) return 1;
    if (type == SQLITE_NULL) return 0;
    if (type == SQLITE_INTEGER) return sqlite3_value_int64(before) != sqlite3_value_int64(after);
    if (type == SQLITE_FLOAT) return sqlite3_value_double(before) != sqlite3_value_double(after);
    const void *a = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(before) : sqlite3_value_blob(before);
    int length = sqlite3_value_bytes(before);
    const void *b = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(after) : sqlite3_value_blob(after);
    if (length != sqlite3_value_bytes(after)) return 1;
    return length > 0 && (!a || !b || memcmp(a, b, (size_t)length) != 0);
}

static void frontdoor_sqlite3_view_hook(
    void *context, sqlite3 *db, int op, const char *schema, const char *table, sqlite3_int64 key, sqlite3_int64 newKey) {
    (void)key;
    (void)newKey;
    if (strcmp(schema, "store") != 0) return;
    int column;
    if (strcmp(table, "accounts") == 0) {
        column = FRONTDOOR_ACCOUNTS_ID;
        if (op == SQLITE_UPDATE && !frontdoor_view_column_changed(db, FRONTDOOR_ACCOUNTS_ID)
            && !frontdoor_view_column_changed(db, FRONTDOOR_ACCOUNTS_EMAIL)
            && !frontdoor_view_column_changed(db, FRONTDOOR_ACCOUNTS_EMAIL_VERIFIED)
            && !frontdoor_view_column_changed(db, FRONTDOOR_ACCOUNTS_PASSWORD_HASH)
            && !frontdoor_view_column_changed(db, FRONTDOOR_ACCOUNTS_DISABLED_AT)) {
            return;
        }
    } else if (strcmp(table, "identities") == 0) {
        column = FRONTDOOR_IDENTITIES_ACCOUNT_ID;
        if (op == SQLITE_UPDATE && !frontdoor_view_column_changed(db, FRONTDOOR_IDENTITIES_ACCOUNT_ID)
            && !frontdoor_view_column_changed(db, FRONTDOOR_IDENTITIES_PROVIDER)) {
            return;
        }
    } else if (strcmp(table, "passkeys") == 0) {
        column = FRONTDOOR_PASSKEYS_ACCOUNT_ID;
        if (op == SQLITE_UPDATE && !frontdoor_view_column_changed(db, FRONTDOOR_PASSKEYS_ACCOUNT_ID)) return;
    } else {
        return;
    }
    frontdoor_view_changes *changes = context;
    sqlite3_value *value = NULL;
    if (op != SQLITE_INSERT) {
        if (sqlite3_preupdate_old(db, column, &value) != SQLITE_OK) value = NULL;
        frontdoor_view_note(changes, value);
    }
    if (op != SQLITE_DELETE) {
        value = NULL;
        if (sqlite3_preupdate_new(db, column, &value) != SQLITE_OK) value = NULL;
        frontdoor_view_note(changes, value);
    }
}

static inline void frontdoor_sqlite3_watch_views(sqlite3 *db, frontdoor_view_changes *changes) {
    sqlite3_preupdate_hook(db, frontdoor_sqlite3_view_hook, changes);
}

/// Removes the busy handler, so a checkpoint that would have to wait gives up at once instead.
static inline int frontdoor_sqlite3_no_busy_handler(sqlite3 *db) {
    return sqlite3_busy_handler(db, NULL, NULL);
}
#endif
