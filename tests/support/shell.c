/*
 * tests/support/shell.c - running a shell command from a test (shell.h).
 */
#include "support/shell.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int iohw_test_sh(char **out, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    cr_assert(len >= 0);
    char *cmd = malloc((size_t)len + sizeof " 2>&1");
    cr_assert(cmd != NULL);
    vsnprintf(cmd, (size_t)len + 1, fmt, again);
    va_end(again);
    strcat(cmd, " 2>&1");
    FILE *p = popen(cmd, "r");
    cr_assert(p != NULL, "popen %s", cmd);
    free(cmd);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    cr_assert(buf != NULL);
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert(buf != NULL);
        }
    }
    buf[n] = '\0';
    int status = pclose(p);
    if (out != NULL)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void iohw_test_smoke(const char *bin, const char *dir)
{
    int rc = iohw_test_sh(NULL, "mkdir -p '%s' && flock '%s.lock' sh -c \"test -f "
                          "'%s/manifest.txt' || '%s' gen --profile smoke -o '%s' > "
                          "/dev/null\"", dir, dir, dir, bin, dir);
    cr_assert_eq(rc, 0, "gen --profile smoke -o %s", dir);
}
