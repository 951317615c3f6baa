/* What scripts/sqlite-deps checks in the SQLite it built: the header's version and source id
   against the library's, and the library's compile options. One line each, then the options. */
#include <stdio.h>
#include "sqlite3.h"

int main(void) {
    sqlite3 *db = NULL;
    sqlite3_stmt *statement = NULL;
    printf("header %d %s\n", SQLITE_VERSION_NUMBER, SQLITE_SOURCE_ID);
    printf("library %d %s\n", sqlite3_libversion_number(), sqlite3_sourceid());
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite-probe: open: %s\n", db ? sqlite3_errmsg(db) : "no memory");
        sqlite3_close(db);
        return 1;
    }
    int rc = sqlite3_prepare_v2(db, "PRAGMA compile_options", -1, &statement, NULL);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
            printf("option %s\n", (const char *)sqlite3_column_text(statement, 0));
        }
    }
    int ok = rc == SQLITE_DONE;
    if (!ok) fprintf(stderr, "sqlite-probe: compile_options: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return ok ? 0 : 1;
}
