/*
 * tests/test_show_pipe.c - `iohw show FILE | head`: a reader that stops
 * reading is not a corrupt file.  The guarded child that prints the cases
 * dies of SIGPIPE when the pipe closes; iohw stops quietly as a filter
 * does, and blames nothing.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/shell.h"

Test(show_pipe, a_closed_pipe_is_not_a_corrupt_file)
{
    char dir[512], file[600], *out = NULL;
    snprintf(dir, sizeof dir, "%s/show-pipe-%d", IOHW_TEST_TMP, (int)getpid());
    iohw_test_smoke(IOHW_BIN, dir);
    /* Far more than a pipe holds, so the child is still writing when head
     * has gone. */
    snprintf(file, sizeof file, "%s/pairwise.h5", dir);
    /* stderr only: the cases go to head, which stops after one line. */
    int rc = iohw_test_sh(&out, "{ '%s' show '%s' 2>&1 >&3 | cat >&2; } 3>&1 | head -1 "
                          ">/dev/null", IOHW_BIN, file);
    cr_expect_eq(rc, 0, "status %d: %s", rc, out);
    cr_expect(out == NULL || strstr(out, "corrupt") == NULL, "%s", out);
    cr_expect(out == NULL || strstr(out, "crashed") == NULL, "%s", out);
    free(out);
}
