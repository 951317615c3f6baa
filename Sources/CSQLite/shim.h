#ifndef FRONTDOOR_CSQLITE_SHIM_H
#define FRONTDOOR_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
