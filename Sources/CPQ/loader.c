// libpq, loaded on first use as libcurl is (Sources/CCurl/loader.c): these definitions stand in
// for the libpq functions frontdoor calls; the first call dlopen()s libpq.so.5 and every call
// forwards to the real one. A missing libpq makes PQconnectdb answer NULL.
#include "/usr/include/postgresql/libpq-fe.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    PGconn *(*connectdb)(const char *);
    ConnStatusType (*status)(const PGconn *);
    char *(*error_message)(const PGconn *);
    PGresult *(*exec_params)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int);
    ExecStatusType (*result_status)(const PGresult *);
    char *(*result_error_field)(const PGresult *, int);
    int (*ntuples)(const PGresult *);
    int (*nfields)(const PGresult *);
    char *(*getvalue)(const PGresult *, int, int);
    int (*getisnull)(const PGresult *, int, int);
    int (*getlength)(const PGresult *, int, int);
    Oid (*ftype)(const PGresult *, int);
    void (*clear)(PGresult *);
    void (*finish)(PGconn *);
    const char *(*parameter_status)(const PGconn *, const char *);
} api;

static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *symbol(void *library, const char *name, int *missing) {
    void *address = dlsym(library, name);
    if (address == NULL) *missing = 1;
    return address;
}

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "frontdoor: cannot load libpq.so.5: %s\n", dlerror());
        return;
    }
    int missing = 0;
    *(void **)&api.connectdb = symbol(library, "PQconnectdb", &missing);
    *(void **)&api.status = symbol(library, "PQstatus", &missing);
    *(void **)&api.error_message = symbol(library, "PQerrorMessage", &missing);
    *(void **)&api.exec_params = symbol(library, "PQexecParams", &missing);
    *(void **)&api.result_status = symbol(library, "PQresultStatus", &missing);
    *(void **)&api.result_error_field = symbol(library, "PQresultErrorField", &missing);
    *(void **)&api.ntuples = symbol(library, "PQntuples", &missing);
    *(void **)&api.nfields = symbol(library, "PQnfields", &missing);
    *(void **)&api.getvalue = symbol(library, "PQgetvalue", &missing);
    *(void **)&api.getisnull = symbol(library, "PQgetisnull", &missing);
    *(void **)&api.getlength = symbol(library, "PQgetlength", &missing);
    *(void **)&api.ftype = symbol(library, "PQftype", &missing);
    *(void **)&api.clear = symbol(library, "PQclear", &missing);
    *(void **)&api.finish = symbol(library, "PQfinish", &missing);
    *(void **)&api.parameter_status = symbol(library, "PQparameterStatus", &missing);
    if (missing) {
        fprintf(stderr, "frontdoor: libpq.so.5 lacks a function frontdoor needs\n");
        return;
    }
    loaded = 1;
}

static int ready(void) {
    pthread_once(&once, load);
    return loaded;
}

PGconn *PQconnectdb(const char *conninfo) { return ready() ? api.connectdb(conninfo) : NULL; }
ConnStatusType PQstatus(const PGconn *conn) { return ready() ? api.status(conn) : CONNECTION_BAD; }
char *PQerrorMessage(const PGconn *conn) { return ready() ? api.error_message(conn) : "libpq is not available"; }
PGresult *PQexecParams(PGconn *conn, const char *command, int n, const Oid *types, const char *const *values,
                       const int *lengths, const int *formats, int result_format) {
    return ready() ? api.exec_params(conn, command, n, types, values, lengths, formats, result_format) : NULL;
}
ExecStatusType PQresultStatus(const PGresult *res) { return ready() ? api.result_status(res) : PGRES_FATAL_ERROR; }
char *PQresultErrorField(const PGresult *res, int code) { return ready() ? api.result_error_field(res, code) : NULL; }
int PQntuples(const PGresult *res) { return ready() ? api.ntuples(res) : 0; }
int PQnfields(const PGresult *res) { return ready() ? api.nfields(res) : 0; }
char *PQgetvalue(const PGresult *res, int row, int column) { return ready() ? api.getvalue(res, row, column) : NULL; }
int PQgetisnull(const PGresult *res, int row, int column) { return ready() ? api.getisnull(res, row, column) : 1; }
int PQgetlength(const PGresult *res, int row, int column) { return ready() ? api.getlength(res, row, column) : 0; }
Oid PQftype(const PGresult *res, int column) { return ready() ? api.ftype(res, column) : 0; }
void PQclear(PGresult *res) { if (ready()) api.clear(res); }
void PQfinish(PGconn *conn) { if (ready()) api.finish(conn); }
const char *PQparameterStatus(const PGconn *conn, const char *name) {
    return ready() ? api.parameter_status(conn, name) : NULL;
}
