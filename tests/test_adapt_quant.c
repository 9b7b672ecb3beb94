/*
 * tests/test_adapt_quant.c - `iohw run --adapt-layout` on quantized cases
 * (specification section 11), end to end; the re-expression itself is
 * tested in tests/test_adapt.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/shell.h"

/* --- through `iohw run` -------------------------------------------------- */

/* Occurrences of needle in the file at path. */
static int count_in_file(const char *path, const char *needle)
{
    char *text = NULL;
    cr_assert_eq(iohw_test_sh(&text, "cat '%s'", path), 0, "%s", path);
    int count = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        count++;
    free(text);
    return count;
}

/* Generates dir/t.h5 from the problems, runs it on the backend lib without
 * and with --adapt-layout and returns the JSON reports' paths. */
static void gen_and_run(char *dir, size_t n, const char *problems,
                        const char *lib, char *plain, char *adapted, size_t jn)
{
    snprintf(dir, n, "%s/adaptq-%d", IOHW_TEST_TMP, (int)getpid());
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s' && '%s' gen -o "
                              "'%s/t.h5' %s", dir, dir, IOHW_BIN, dir, problems), 0);
    const char *flags[2] = {"", "--adapt-layout"};
    char *json[2] = {plain, adapted};
    for (int i = 0; i < 2; i++) {
        snprintf(json[i], jn, "%s/%s.json", dir, i ? "adapted" : "plain");
        int rc = iohw_test_sh(NULL, "'%s' run --quiet --jobs 1 --allow-empty %s "
                              "--backend '%s/libiohw_%s.so' '%s/t.h5' --json '%s'",
                              IOHW_BIN, flags[i], IOHW_BACKEND_DIR, lib, dir, json[i]);
        cr_assert(rc == 0 || rc == 1, "iohw run %s: exit %d", flags[i], rc);
    }
}

Test(adapt_quant, lets_a_channels_last_backend_pass_nchw_quantized_cases)
{
    char dir[512], plain[600], adapted[600];
    gen_and_run(dir, sizeof dir,
                "--problem 'n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2 bias=1 dt=u8 wdt=s8"
                " ydt=u8 zp=3,-2,0 pc=1 sx=0.5 xl=NCHW wl=IOHW'"
                " --problem 'ci=3 co=4 in=6x3 k=2 s=2 dt=s8 round=gemmlowp pc=1"
                " m=fixed zp=1,0,-3 bias=1 xl=NCHW wl=OIHW'"
                " --problem 'ci=3 co=2 in=4x3 k=2 s=2 dt=s8 ydt=s32 zp=1,2,0 bias=1'",
                "picky", plain, adapted, sizeof plain);
    /* The picky backend (NHWC data, GOHWI weights only) refuses all three
     * as they are, and passes them re-expressed, bit for bit. */
    cr_assert_eq(count_in_file(plain, "\"status\": \"UNSUPPORTED\""), 3);
    cr_assert_eq(count_in_file(adapted, "\"status\": \"PASS\""), 3);
    cr_assert_eq(count_in_file(adapted, "run with layouts NHWC/GOHWI (adapted from NCHW/IOHW)"), 2);
    cr_assert_eq(count_in_file(adapted, "run with layouts NHWC/GOHWI (adapted from NCHW/OIHW)"), 1);
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s'", dir), 0);
}

Test(adapt_quant, shows_a_backend_that_reads_the_bias_as_bytes_its_int32_bias)
{
    /* fault_quant_bias_bytes takes only channels-last data and reads the
     * bias as C_out int8: on the adapted case, which hands it int32
     * values, it fails where a bias is given and passes without one. */
    char dir[512], plain[600], adapted[600];
    gen_and_run(dir, sizeof dir,
                "--problem 'ci=3 co=4 in=4x3 k=2 s=2 dt=s8 ydt=s32 zp=1,2,0 bias=1'"
                " --problem 'ci=3 co=4 in=4x3 k=2 s=2 dt=s8 ydt=s32 zp=1,2,0 bias=0'",
                "fault_quant_bias_bytes", plain, adapted, sizeof plain);
    cr_assert_eq(count_in_file(plain, "\"status\": \"UNSUPPORTED\""), 2);
    cr_assert_eq(count_in_file(adapted, "\"status\": \"FAIL\""), 1);
    cr_assert_eq(count_in_file(adapted, "\"status\": \"PASS\""), 1);
    cr_assert_eq(count_in_file(adapted, "(adapted from NCHW/IOHW)"), 2);
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s'", dir), 0);
}
