#ifndef FRONTDOOR_CPQ_SHIM_H
#define FRONTDOOR_CPQ_SHIM_H
#include "/usr/include/postgresql/libpq-fe.h"
#endif
