#ifndef FRONTDOOR_CSYSTEM_SHIM_H
#define FRONTDOOR_CSYSTEM_SHIM_H
// What Glibc's Swift module leaves out.
#include <gnu/libc-version.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <syslog.h>
// glibc declares pipe2 and accept4 only under _GNU_SOURCE, which Swift's Glibc module is not built
// with. Declared here rather than looked up with dlsym, which a static executable cannot do.
int pipe2(int fds[2], int flags);
int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline void frontdoor_syslog(int priority, const char *message) { syslog(priority, "%s", message); }
#endif
