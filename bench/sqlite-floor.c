/* The session check's store work and nothing else, in C: what any CGI program pays to look a
   session up in frontdoor's SQLite store, whatever its language. It reads the bearer token,
   hashes it (SHA-256 by SHA256_Init/Update/Final, as the check does: OpenSSL 3's one-shot SHA256()
   goes through EVP and its providers, doubling this program's page faults), opens the store's
   session file (compiled in as SESSION_FILE: what nginx's check opens, docs/sqlite.md) with the
   settings frontdoor's connections use, makes the check's one lookup and answers 200 or 401.
   No config, no renewal, no log line: a floor under the real check, not a copy of it. Compiled by
   scripts/bench, statically, against the same SQLite archive (make deps: docs/sqlite.md) and
   libcrypto.a as the programs. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SESSION_FILE
#error "compile with -DSESSION_FILE='\"/path/to/frontdoor.sqlite3-sessions\"'"
#endif

static int answer(const char *status) {
    printf("Status: %s\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n{}\n", status);
    return 0;
}

int main(void) {
    const char *authorization = getenv("HTTP_AUTHORIZATION");
    if (authorization == NULL || strncmp(authorization, "Bearer ", 7) != 0) return answer("401 Unauthorized");
    const char *token = authorization + 7;
    unsigned char hash[SHA256_DIGEST_LENGTH];
    SHA256_CTX context;
    if (SHA256_Init(&context) != 1 || SHA256_Update(&context, token, strlen(token)) != 1 ||
        SHA256_Final(hash, &context) != 1)
        return answer("500 Internal Server Error");

    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(SESSION_FILE, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return answer("500 Internal Server Error");
    }
    sqlite3_busy_timeout(db, 5000);
    /* As frontdoor's connections: no checkpoint at close, and the WAL and its index kept (a
       connection that closed last would otherwise delete both, and the next process make them). */
    int on = 1, set = 0;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &set) != SQLITE_OK || set != 1 ||
        sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &on) != SQLITE_OK) {
        sqlite3_close(db);
        return answer("500 Internal Server Error");
    }
    int live = 0;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_exec(db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL", NULL, NULL, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT account_id, session_id, created_at, last_used_at, expires_at FROM sessions "
                           "WHERE token_hash = ? AND expires_at > strftime('%s', 'now')",
                           -1, &statement, NULL) == SQLITE_OK &&
        sqlite3_bind_blob(statement, 1, hash, sizeof hash, SQLITE_STATIC) == SQLITE_OK) {
        live = sqlite3_step(statement) == SQLITE_ROW;
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return answer(live ? "200 OK" : "401 Unauthorized");
}
