/* The CGI floor: the least a CGI program can do. It drains the body, as fcgiwrap requires,
   and answers a small JSON document. Compiled by scripts/bench, statically. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
    const char *length = getenv("CONTENT_LENGTH");
    long left = length ? strtol(length, NULL, 10) : 0;
    char buffer[4096];
    while (left > 0) {
        ssize_t n = read(0, buffer, left < (long)sizeof buffer ? (size_t)left : sizeof buffer);
        if (n <= 0) break;
        left -= n;
    }
    fputs("Status: 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n{\"hello\":true}\n", stdout);
    return 0;
}
