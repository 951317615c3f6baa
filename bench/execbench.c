/* execbench COUNT PROGRAM [NAME=VALUE ...]: runs PROGRAM COUNT times, one after another, with
   stdin, stdout and stderr on /dev/null and only the given environment, and prints
   "median_ms p99_ms peak_rss_kib". A small static launcher on purpose: the kernel counts the
   launcher's own memory into a child's peak RSS (the mm it had before exec), so a large one
   (a Swift process, say) would hide the program's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fputs("usage: execbench COUNT PROGRAM [NAME=VALUE ...]\n", stderr);
        return 2;
    }
    int count = atoi(argv[1]);
    if (count <= 0) return 2;
    double *times = calloc((size_t)count, sizeof *times);
    if (times == NULL) return 1;
    char *child_argv[] = {argv[2], NULL};
    char **child_env = &argv[3];
    long peak = 0;
    for (int i = 0; i < count; i++) {
        double start = now_ms();
        pid_t pid = vfork();
        if (pid < 0) return 1;
        if (pid == 0) {
            int null = open("/dev/null", O_RDWR);
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
            execve(argv[2], child_argv, child_env);
            _exit(127);
        }
        int status;
        struct rusage usage;
        if (wait4(pid, &status, 0, &usage) < 0) return 1;
        times[i] = now_ms() - start;
        if (usage.ru_maxrss > peak) peak = usage.ru_maxrss;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
            fprintf(stderr, "execbench: cannot run %s\n", argv[2]);
            return 1;
        }
    }
    qsort(times, (size_t)count, sizeof *times, compare);
    int p99 = (int)(count * 0.99 + 0.999) - 1;
    printf("%.2f %.2f %ld\n", times[count / 2], times[p99 < count ? p99 : count - 1], peak);
    free(times);
    return 0;
}
