#ifndef FRONTDOOR_CSQLITE_SHIM_H
#define FRONTDOOR_CSQLITE_SHIM_H
#include <sqlite3.h>

// Swift cannot call C variadic functions or use SQLITE_TRANSIENT (a cast of -1 to a function
// pointer), so the few calls that need them get typed wrappers here.

/// sqlite3_db_config for the "int, int*" options (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE and friends).
static inline int frontdoor_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// Sets SQLITE_FCNTL_PERSIST_WAL on the main database: 1 on, 0 off, -1 to only read it back.
static inline int frontdoor_sqlite3_persist_wal(sqlite3 *db, int *value) {
    return sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, value);
}

/// Binds text SQLite copies at once, so the Swift buffer need not outlive the call.
static inline int frontdoor_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

/// Binds a blob SQLite copies at once; a zero-length blob must go through sqlite3_bind_zeroblob.
static inline int frontdoor_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}
#endif
