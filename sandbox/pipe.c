/*
 * sandbox/pipe.c - whole reads and writes on a pipe (see pipe.h).
 */
#include "sandbox/pipe.h"

#include <errno.h>
#include <unistd.h>

int iohw__read_full(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k == 0)
            return got == 0 ? 0 : -1;
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)k;
    }
    return 1;
}

int iohw__write_full(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}
