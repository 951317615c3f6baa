/* execbench COUNT FLOOR PROGRAM [NAME=VALUE ...]: runs FLOOR and PROGRAM alternately, COUNT times
   each, one after another, with stdin, stdout and stderr on /dev/null and only the given
   environment, and prints "median_ms p99_ms peak_rss_kib" for PROGRAM, then the same for FLOOR.
   Alternating keeps a busy moment of the shared machine from landing on one of the two only.
   A small static launcher on purpose: the kernel counts the launcher's own memory into a child's
   peak RSS (the mm it had before exec), so a large one (a Swift process, say) would hide the
   program's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct series {
    double *times;
    long peak_kib;
};

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

/* One run of path; its time goes to times[i]. Returns 0, or 1 when it could not be run. */
static int run_once(char *path, char **env, struct series *s, int i) {
    char *child_argv[] = {path, NULL};
    double start = now_ms();
    pid_t pid = vfork();
    if (pid < 0) return 1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        execve(path, child_argv, env);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) return 1;
    s->times[i] = now_ms() - start;
    if (usage.ru_maxrss > s->peak_kib) s->peak_kib = usage.ru_maxrss;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(stderr, "execbench: cannot run %s\n", path);
        return 1;
    }
    return 0;
}

static void report(struct series *s, int count) {
    qsort(s->times, (size_t)count, sizeof *s->times, compare);
    int p99 = (int)(count * 0.99 + 0.999) - 1;
    printf("%.2f %.2f %ld", s->times[count / 2], s->times[p99 < count ? p99 : count - 1], s->peak_kib);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fputs("usage: execbench COUNT FLOOR PROGRAM [NAME=VALUE ...]\n", stderr);
        return 2;
    }
    int count = atoi(argv[1]);
    if (count <= 0) return 2;
    struct series program = {calloc((size_t)count, sizeof(double)), 0};
    struct series floor = {calloc((size_t)count, sizeof(double)), 0};
    if (program.times == NULL || floor.times == NULL) return 1;
    char **env = &argv[4];
    for (int i = 0; i < count; i++) {
        if (run_once(argv[2], env, &floor, i) != 0) return 1;
        if (run_once(argv[3], env, &program, i) != 0) return 1;
    }
    report(&program, count);
    putchar(' ');
    report(&floor, count);
    putchar('\n');
    free(program.times);
    free(floor.times);
    return 0;
}
