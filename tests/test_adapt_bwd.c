/*
 * tests/test_adapt_bwd.c - `iohw run --adapt-layout` on backward cases
 * (judge/adapt.h; specification section 13): dy is re-expressed like y, dx
 * like x, dw like w and db as it is, so a backend that takes only the
 * default layouts (tests/bwd/bwd_backend.c, its own loops, not the oracle)
 * passes backward cases stated in other layouts, and its wrong dx still
 * fails once adapted.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int count_in_file(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int count = 0;
    for (const char *p = buf; (p = strstr(p, needle)) != NULL; p++)
        count++;
    return count;
}

static int run_cmd(const char *cmd)
{
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s", cmd);
    return WEXITSTATUS(st);
}

/* Four backward cases, none in the default layouts the backend takes. */
static void make_cases(char *dir, size_t n)
{
    char cmd[4096];
    snprintf(dir, n, "%s/adapt-bwd-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && '%s' gen -o '%s/t.h5'"
             " --problem 'n=2 ci=2 co=3 in=5 k=3 s=2 op=1 xl=NWC wl=WIO dir=bwd_d'"
             " --problem 'n=2 ci=2 co=3 in=5 k=3 s=2 op=1 xl=NWC wl=OIW bias=1 dir=bwd_w'"
             " --problem 'ci=3 co=2 in=4x3 k=2x3 s=2x1 pad=1:0x0:1 xl=NHWC wl=HWOI dir=bwd_d'"
             " --problem 'n=2 ci=3 co=2 in=4x3 k=2x3 s=2x1 xl=CHWN wl=OHWI bias=1 dir=bwd_w'"
             " > /dev/null", dir, dir, IOHW_BIN, dir);
    cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);
}

/* Runs t.h5 against the test backend (knob: IOHW_BWD_KNOB or NULL) into
 * dir/name.json. */
static void run_into(const char *dir, const char *name, int adapt, const char *knob)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s%s%s'%s' run --quiet --jobs 1 --allow-empty %s"
             "--backend '%s/libiohw_bwd_test.so' '%s/t.h5' --json '%s/%s.json' > /dev/null",
             knob ? "IOHW_BWD_KNOB=" : "", knob ? knob : "", knob ? " " : "",
             IOHW_BIN, adapt ? "--adapt-layout " : "", IOHW_BACKEND_DIR, dir, dir, name);
    run_cmd(cmd);
}

Test(adapt_bwd, a_default_layout_backend_passes_backward_cases_in_other_layouts)
{
    char dir[512], json[600];
    make_cases(dir, sizeof dir);
    run_into(dir, "plain", 0, NULL);
    snprintf(json, sizeof json, "%s/plain.json", dir);
    cr_expect_eq(count_in_file(json, "\"status\": \"UNSUPPORTED\""), 4,
                 "every case is in layouts the backend refuses");

    run_into(dir, "adapted", 1, NULL);
    snprintf(json, sizeof json, "%s/adapted.json", dir);
    cr_expect_eq(count_in_file(json, "\"status\": \"PASS\""), 4);
    cr_expect_eq(count_in_file(json, "run with layouts NCW/IOW (adapted from NWC/WIO)"), 1);
    cr_expect_eq(count_in_file(json, "run with layouts NCW/IOW (adapted from NWC/OIW)"), 1);
    cr_expect_eq(count_in_file(json, "run with layouts NCHW/IOHW (adapted from NHWC/HWOI)"), 1);
    cr_expect_eq(count_in_file(json, "run with layouts NCHW/IOHW (adapted from CHWN/OHWI)"), 1);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    run_cmd(cmd);
}

Test(adapt_bwd, a_wrong_dx_still_fails_once_adapted)
{
    char dir[512], json[600];
    make_cases(dir, sizeof dir);
    run_into(dir, "wrong", 1, "wrong_dx");
    snprintf(json, sizeof json, "%s/wrong.json", dir);
    cr_expect_eq(count_in_file(json, "\"status\": \"FAIL\""), 2, "the two BWD_D cases");
    cr_expect_eq(count_in_file(json, "\"status\": \"PASS\""), 2, "the two BWD_W cases");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    run_cmd(cmd);
}
