/*
 * tests/test_exec_shape.c - an exec program that ignores the dilation
 * returns the undilated output (tests/exec/undilated.py: 1x3x4x4 where
 * 1x3x5x5 is right).  `iohw run` reports an ERROR whose message names the
 * returned and the expected shape, and whose diagnosis names the
 * misreading, proven by the values (specification section 3.5,
 * docs/EXEC_PROTOCOL.md), under protocol 1 and under protocol 3 (the
 * program serving requests, supports=problem).  A y too large to keep gets
 * the shape's facts only, no cause.  A quantized case is diagnosed the same
 * way, its values compared exactly with the misread problem's oracle.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "support/shell.h"

#define PYTHON "/usr/bin/python3"
#define PROGRAM PYTHON " " IOHW_SOURCE_DIR "/tests/exec/undilated.py"

static void need_h5py(void)
{
    if (system(PYTHON " -c 'import h5py, numpy' >/dev/null 2>&1") != 0)
        cr_skip_test(PYTHON " cannot import h5py and numpy");
}

/* Runs the program (with flags) on the one case of desc; its result. */
static void run_one(const char *flags, const char *desc, iohw_result *out)
{
    char dir[512], json[600];
    iohw_report rep;
    iohw_error err = {{0}};
    snprintf(dir, sizeof dir, "%s/exec-shape-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(json, sizeof json, "%s/r.json", dir);
    cr_assert_eq(iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s' && '%s' gen "
                              "--problem '%s' -o '%s/c.h5' > /dev/null", dir,
                              dir, IOHW_BIN, desc, dir), 0);
    int rc = iohw_test_sh(NULL, "IOHW_EXEC_COMMAND='%s %s' '%s' run --backend "
                          "'%s/libiohw_exec.so' '%s/c.h5' --quiet --json '%s' "
                          "> /dev/null 2>&1", PROGRAM, flags, IOHW_BIN,
                          IOHW_BACKEND_DIR, dir, json);
    cr_assert_eq(rc, 1, "exit %d", rc);
    cr_assert_eq(iohw_report_read(json, &rep, &err), 0, "%s", err.msg);
    cr_assert_eq(rep.results.count, 1);
    *out = rep.results.items[0];
    iohw_report_free(&rep);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

/* H: (3-1)*1 + 2*(2-1) + 1 = 5; undilated: 2 + 1 + 1 = 4. */
#define DILATED "ci=2 co=3 in=3x3 k=2x2 d=2 bias=1 dt=f32"

Test(exec_shape, the_undilated_output_is_named_dilation_ignored, .timeout = 300)
{
    iohw_result r;
    need_h5py();
    run_one("", DILATED, &r);
    cr_expect_eq(r.status, IOHW_RESULT_ERROR);
    cr_expect(strstr(r.message, "returned shape 1x3x4x4 where the case's y is "
                                "1x3x5x5 (NCHW)") != NULL, "%s", r.message);
    cr_expect_str_eq(r.diagnosis, "dilation ignored: the output is 1x3x4x4 "
                     "where 1x3x5x5 NCHW is right, and its values match the "
                     "oracle of that problem");
}

/* 1x3x6x6 (one more per axis): more elements than y holds, so the values
 * are not kept; 6x6 is the shape of d+1 (d = 3, k = 2: 2 + 3 + 1 = 6),
 * stated as a fact and no cause. */
Test(exec_shape, a_larger_output_gets_the_facts_of_its_shape, .timeout = 300)
{
    iohw_result r;
    need_h5py();
    run_one("--big", DILATED, &r);
    cr_expect_eq(r.status, IOHW_RESULT_ERROR);
    cr_expect(strstr(r.message, "returned shape 1x3x6x6") != NULL &&
                  strstr(r.message, "its values were not kept") != NULL,
              "%s", r.message);
    cr_expect_str_eq(r.diagnosis, "the output is 1x3x6x6 where 1x3x5x5 NCHW is "
                     "right; that is the shape of the problem with dilation "
                     "taken as 0-based (d+1)");
}

/* The same program serving protocol 3 (--p3: protocols=1 2 3,
 * supports=problem): the returned shape is diagnosed as under protocol 1. */
Test(exec_shape, a_protocol_3_program_gets_the_same_diagnosis, .timeout = 300)
{
    iohw_result r;
    need_h5py();
    run_one("--p3", DILATED, &r);
    cr_expect_eq(r.status, IOHW_RESULT_ERROR);
    cr_expect(strstr(r.message, "returned shape 1x3x4x4 where the case's y is "
                                "1x3x5x5 (NCHW)") != NULL, "%s", r.message);
    cr_expect_str_eq(r.diagnosis, "dilation ignored: the output is 1x3x4x4 "
                     "where 1x3x5x5 NCHW is right, and its values match the "
                     "oracle of that problem");
}

/* A quantized case (specification section 11): the program computes the
 * undilated problem's exact y; its values equal that problem's oracle, so
 * the misreading is named, under protocols 1 and 3. */
Test(exec_shape, a_quantized_undilated_output_is_named_dilation_ignored, .timeout = 300)
{
    static const char *const FLAGS[] = {"", "--p3"};
    need_h5py();
    for (int i = 0; i < 2; i++) {
        iohw_result r;
        run_one(FLAGS[i], "ci=2 co=3 in=3x3 k=2x2 d=2 bias=1 dt=s8 wdt=s8 ydt=s8 pc=1", &r);
        cr_expect_eq(r.status, IOHW_RESULT_ERROR);
        cr_expect(strstr(r.message, "run_quant() returned IOHW_BACKEND_ERROR") != NULL &&
                      strstr(r.message, "returned shape 1x3x4x4 where the case's y is "
                                        "1x3x5x5 (NCHW)") != NULL,
                  "%s", r.message);
        cr_expect_str_eq(r.diagnosis, "dilation ignored: the output is 1x3x4x4 "
                         "where 1x3x5x5 NCHW is right, and its values match the "
                         "oracle of that problem", "flags '%s'", FLAGS[i]);
    }
}
