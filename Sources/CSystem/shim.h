#ifndef FRONTDOOR_CSYSTEM_SHIM_H
#define FRONTDOOR_CSYSTEM_SHIM_H
// What Glibc's Swift module leaves out.
#include <sys/random.h>
#include <syslog.h>
// glibc declares pipe2 only under _GNU_SOURCE, which Swift's Glibc module is not built with.
int pipe2(int fds[2], int flags);
static inline void frontdoor_syslog(int priority, const char *message) { syslog(priority, "%s", message); }
#endif
