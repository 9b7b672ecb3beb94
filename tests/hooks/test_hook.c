/*
 * tests/hooks/test_hook.c - the test hooks of the harness
 * (sandbox/test_hook.h), linked only into the test copies.
 */
#include "sandbox/test_hook.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void iohw__test_hook(const char *point, const char *subject)
{
    const char *spec = getenv("IOHW_TEST_HOOK");
    if (spec == NULL || point == NULL || subject == NULL)
        return;
    const char *at = strchr(spec, ':');
    size_t n = strlen(point);
    if (at == NULL || strncmp(at + 1, point, n) != 0 || at[1 + n] != ':' ||
        strcmp(at + 2 + n, subject) != 0)
        return;
    if (strncmp(spec, "crash:", 6) == 0)
        raise(SIGSEGV);
    if (strncmp(spec, "hang:", 5) == 0)
        for (;;)
            pause();
}
