#include "sqlite_pause.h"
#include "../../.build/sqlite/current/include/sqlite3.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

typedef struct {
    sqlite3_file base;
    sqlite3_file *real; /* the "unix" file, allocated right after this struct */
} PauseFile;

static sqlite3_vfs pause_vfs;
static sqlite3_vfs *unix_vfs;
static _Thread_local int armed;
static sem_t reached, released;
static pthread_t thread;
static sqlite3 *thread_db;
static int thread_mode, thread_rc, stopped;

#define REAL(file) (((PauseFile *)(file))->real)

static int p_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int p_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int p_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int p_truncate(sqlite3_file *f, sqlite3_int64 size) { return REAL(f)->pMethods->xTruncate(REAL(f), size); }
static int p_sync(sqlite3_file *f, int flags) { return REAL(f)->pMethods->xSync(REAL(f), flags); }
static int p_size(sqlite3_file *f, sqlite3_int64 *size) { return REAL(f)->pMethods->xFileSize(REAL(f), size); }
static int p_lock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xLock(REAL(f), level); }
static int p_unlock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xUnlock(REAL(f), level); }
static int p_check(sqlite3_file *f, int *out) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out); }
static int p_control(sqlite3_file *f, int op, void *arg) { return REAL(f)->pMethods->xFileControl(REAL(f), op, arg); }
static int p_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int p_device(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int p_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, out);
}
static int p_shm_lock(sqlite3_file *f, int offset, int n, int flags) { return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags); }
static void p_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int p_shm_unmap(sqlite3_file *f, int delete) { return REAL(f)->pMethods->xShmUnmap(REAL(f), delete); }
static int p_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **out) { return REAL(f)->pMethods->xFetch(REAL(f), o, n, out); }
static int p_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) {
    if (armed) {
        armed = 0;
        stopped = 1;
        sem_post(&reached);
        while (sem_wait(&released) != 0 && errno == EINTR) {}
    }
    return REAL(f)->pMethods->xUnfetch(REAL(f), o, p);
}

static const sqlite3_io_methods pause_methods = {
    3, p_close, p_read, p_write, p_truncate, p_sync, p_size, p_lock, p_unlock, p_check, p_control, p_sector,
    p_device, p_shm_map, p_shm_lock, p_shm_barrier, p_shm_unmap, p_fetch, p_unfetch,
};

static int p_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags) {
    (void)vfs;
    PauseFile *file = (PauseFile *)f;
    file->real = (sqlite3_file *)&file[1];
    int rc = unix_vfs->xOpen(unix_vfs, name, file->real, flags, out_flags);
    /* Only a file the real VFS opened gets methods (and so an xClose). */
    file->base.pMethods = file->real->pMethods ? &pause_methods : NULL;
    return rc;
}
static int p_delete(sqlite3_vfs *v, const char *name, int sync) { (void)v; return unix_vfs->xDelete(unix_vfs, name, sync); }
static int p_access(sqlite3_vfs *v, const char *name, int flags, int *out) { (void)v; return unix_vfs->xAccess(unix_vfs, name, flags, out); }
static int p_full(sqlite3_vfs *v, const char *name, int n, char *out) { (void)v; return unix_vfs->xFullPathname(unix_vfs, name, n, out); }
static void *p_dlopen(sqlite3_vfs *v, const char *name) { (void)v; return unix_vfs->xDlOpen(unix_vfs, name); }
static void p_dlerror(sqlite3_vfs *v, int n, char *out) { (void)v; unix_vfs->xDlError(unix_vfs, n, out); }
static void (*p_dlsym(sqlite3_vfs *v, void *h, const char *name))(void) { (void)v; return unix_vfs->xDlSym(unix_vfs, h, name); }
static void p_dlclose(sqlite3_vfs *v, void *h) { (void)v; unix_vfs->xDlClose(unix_vfs, h); }
static int p_random(sqlite3_vfs *v, int n, char *out) { (void)v; return unix_vfs->xRandomness(unix_vfs, n, out); }
static int p_sleep(sqlite3_vfs *v, int us) { (void)v; return unix_vfs->xSleep(unix_vfs, us); }
static int p_time(sqlite3_vfs *v, double *out) { (void)v; return unix_vfs->xCurrentTime(unix_vfs, out); }
static int p_error(sqlite3_vfs *v, int n, char *out) { (void)v; return unix_vfs->xGetLastError(unix_vfs, n, out); }
static int p_time64(sqlite3_vfs *v, sqlite3_int64 *out) { (void)v; return unix_vfs->xCurrentTimeInt64(unix_vfs, out); }

int frontdoor_pause_register(void) {
    if (unix_vfs) return SQLITE_OK;
    sqlite3_vfs *found = sqlite3_vfs_find("unix");
    if (!found || found->iVersion < 2) return SQLITE_ERROR;
    if (sem_init(&reached, 0, 0) != 0 || sem_init(&released, 0, 0) != 0) return SQLITE_ERROR;
    unix_vfs = found;
    pause_vfs = (sqlite3_vfs){
        .iVersion = 2, .szOsFile = (int)sizeof(PauseFile) + found->szOsFile, .mxPathname = found->mxPathname,
        .zName = "frontdoor-pause", .xOpen = p_open, .xDelete = p_delete, .xAccess = p_access,
        .xFullPathname = p_full, .xDlOpen = p_dlopen, .xDlError = p_dlerror, .xDlSym = p_dlsym,
        .xDlClose = p_dlclose, .xRandomness = p_random, .xSleep = p_sleep, .xCurrentTime = p_time,
        .xGetLastError = p_error, .xCurrentTimeInt64 = p_time64,
    };
    return sqlite3_vfs_register(&pause_vfs, 0);
}

static void *run_checkpoint(void *unused) {
    (void)unused;
    armed = 1;
    thread_rc = sqlite3_wal_checkpoint_v2(thread_db, "main", thread_mode, NULL, NULL);
    if (armed) { /* never stopped: let frontdoor_pause_wait_reached see that it is over */
        armed = 0;
        sem_post(&reached);
    }
    return NULL;
}

int frontdoor_pause_checkpoint_in_thread(sqlite3 *db, int mode) {
    while (sem_trywait(&reached) == 0) {}
    while (sem_trywait(&released) == 0) {}
    stopped = 0;
    thread_db = db;
    thread_mode = mode;
    return pthread_create(&thread, NULL, run_checkpoint, NULL);
}

int frontdoor_pause_wait_reached(int timeout_ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec += 1; until.tv_nsec -= 1000000000L; }
    int rc;
    while ((rc = sem_timedwait(&reached, &until)) != 0 && errno == EINTR) {}
    return rc == 0 ? 0 : -1;
}

int frontdoor_pause_stopped(void) { return stopped; }

int frontdoor_pause_join(void) {
    sem_post(&released);
    pthread_join(thread, NULL);
    return thread_rc;
}
