#include "commit_pause.h"
#include "../../.build/sqlite/current/include/sqlite3.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A VFS that holds a process between the two
// commits of a transaction that wrote the session file and the store (`SessionFile`): once the
// sessions' WAL has been written, the next write to another WAL (the store's commit) first
// creates `$FRONTDOOR_TEST_PAUSE_FILE.waiting` and waits up to 20 s for `.go`. It only swaps the
// write method of the WAL files the default VFS opens.

static sqlite3_vfs frontdoor_commit_pause_vfs;
static sqlite3_io_methods frontdoor_sessions_wal_methods, frontdoor_other_wal_methods;
static int (*frontdoor_real_wal_write)(sqlite3_file *, const void *, int, sqlite3_int64);
static int frontdoor_sessions_written;

static void frontdoor_commit_pause_wait(void) {
    const char *prefix = getenv("FRONTDOOR_TEST_PAUSE_FILE");
    if (prefix == NULL || *prefix == 0 || strlen(prefix) > 900) return;
    char path[1024];
    strcpy(path, prefix);
    strcat(path, ".waiting");
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
    strcpy(path, prefix);
    strcat(path, ".go");
    for (int waited = 0; access(path, F_OK) != 0 && waited < 20000; waited += 2) usleep(2000);
}

static int frontdoor_sessions_wal_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
    frontdoor_sessions_written = 1;
    return frontdoor_real_wal_write(f, b, n, o);
}

static int frontdoor_other_wal_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
    if (frontdoor_sessions_written) {
        frontdoor_sessions_written = 0;
        frontdoor_commit_pause_wait();
    }
    return frontdoor_real_wal_write(f, b, n, o);
}

static int frontdoor_commit_pause_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
    sqlite3_vfs *real = (sqlite3_vfs *)vfs->pAppData;
    int rc = real->xOpen(real, name, f, flags, out);
    if (rc != SQLITE_OK || f->pMethods == NULL || name == NULL || !(flags & SQLITE_OPEN_WAL)) return rc;
    if (frontdoor_real_wal_write == NULL) {
        frontdoor_real_wal_write = f->pMethods->xWrite;
        frontdoor_sessions_wal_methods = *f->pMethods;
        frontdoor_sessions_wal_methods.xWrite = frontdoor_sessions_wal_write;
        frontdoor_other_wal_methods = *f->pMethods;
        frontdoor_other_wal_methods.xWrite = frontdoor_other_wal_write;
    }
    size_t length = strlen(name);
    int sessions = length >= 13 && strcmp(name + length - 13, "-sessions-wal") == 0;
    f->pMethods = sessions ? &frontdoor_sessions_wal_methods : &frontdoor_other_wal_methods;
    return rc;
}

/// Makes the VFS above the default one. Before the first connection opens.
int frontdoor_arm_commit_pause(void) {
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (real == NULL) return SQLITE_ERROR;
    frontdoor_commit_pause_vfs = *real;
    frontdoor_commit_pause_vfs.zName = "frontdoor-commit-pause";
    frontdoor_commit_pause_vfs.pAppData = real;
    frontdoor_commit_pause_vfs.xOpen = frontdoor_commit_pause_open;
    return sqlite3_vfs_register(&frontdoor_commit_pause_vfs, 1);
}
