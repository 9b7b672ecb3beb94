/*
 * tests/test_mutation.c - the suite's mutation score: the smoke profile,
 * run whole against every seeded-fault backend (backends/faults/, found by
 * listing the build's backends folder, so a new fault is counted without
 * editing this file), must catch each one: `iohw run` exits 1.  The score
 * is printed; anything under 100% fails.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int run_cmd(const char *cmd)
{
    int st = system(cmd);
    if (!WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

Test(mutation, the_smoke_profile_catches_every_seeded_fault)
{
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "%s/mutation-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' "
             "> /dev/null", dir, IOHW_BIN, dir);
    cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);

    glob_t g;
    char pattern[600];
    snprintf(pattern, sizeof pattern, "%s/libiohw_fault_*.so", IOHW_BACKEND_DIR);
    cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no fault backends in %s",
                 IOHW_BACKEND_DIR);
    cr_assert_geq(g.gl_pathc, 20, "expected every seeded fault to be built");

    size_t caught = 0;
    char missed[4096] = "";
    for (size_t i = 0; i < g.gl_pathc; i++) {
        /* A short timeout: the hang fault hangs on many cases. */
        snprintf(cmd, sizeof cmd, "'%s' run --backend '%s' '%s' --jobs 2 "
                 "--timeout 0.25 --quiet --no-diagnose > /dev/null 2>&1",
                 IOHW_BIN, g.gl_pathv[i], dir);
        int rc = run_cmd(cmd);
        if (rc == 1) {
            caught++;
        } else {
            const char *base = strrchr(g.gl_pathv[i], '/');
            size_t len = strlen(missed);
            snprintf(missed + len, sizeof missed - len, " %s(exit %d)",
                     base ? base + 1 : g.gl_pathv[i], rc);
        }
    }
    printf("mutation score: %zu of %zu seeded faults caught by the smoke "
           "profile (%.1f%%)%s%s\n", caught, g.gl_pathc,
           100.0 * (double)caught / (double)g.gl_pathc,
           missed[0] ? "; missed:" : "", missed);
    fflush(stdout);
    cr_expect_eq(caught, g.gl_pathc, "missed:%s", missed);
    globfree(&g);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    run_cmd(cmd);
}
