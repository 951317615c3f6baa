#ifndef FRONTDOOR_CSYSTEM_SHIM_H
#define FRONTDOOR_CSYSTEM_SHIM_H
// What Glibc's Swift module leaves out.
#include <sys/random.h>
#include <syslog.h>
static inline void frontdoor_syslog(int priority, const char *message) { syslog(priority, "%s", message); }
#endif
