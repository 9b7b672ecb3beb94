/*
 * tests/test_cli_check.c - `iohw check`: the verdict of `iohw run` on an
 * answer file computed elsewhere.  The answers are the case's own stored y
 * (PASS), the same with one element moved by 1 (FAIL at that element, the
 * expected value being the stored y_f64), a file saying unsupported, and
 * bad usage (exit 2, the thing named).
 */
#include <criterion/criterion.h>

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "support/shell.h"

#define DESC "ci=2 co=3 in=4x4 k=3x3 s=2x2 dt=f32 fill=normal seed=3"

static char casefile[512], answer[512];

/* `iohw ARGS` with its output (tests/support/shell.h). */
#define run(out, fmt, ...) iohw_test_sh(out, "'" IOHW_BIN "' " fmt, __VA_ARGS__)

static void setup(void)
{
    mkdir(IOHW_TEST_TMP, 0777);
    snprintf(casefile, sizeof casefile, "%s/check_%ld_case.h5", IOHW_TEST_TMP, (long)getpid());
    snprintf(answer, sizeof answer, "%s/check_%ld_out.h5", IOHW_TEST_TMP, (long)getpid());
    char *out;
    int rc = run(&out, "gen --problem '" DESC "' --id one -o '%s'", casefile);
    cr_assert_eq(rc, 0, "gen: %s", out);
    free(out);
}

static void teardown(void)
{
    unlink(casefile);
    unlink(answer);
}

/* The stored y of the case (1 x 3 x 9 x 9 f32, NCHW), element `bump`
 * (-1: none) plus 1, written as OUT.h5's /y. */
static double write_answer(int bump)
{
    iohw_error err = {{0}};
    iohw_case c;
    iohw_case_file *f = iohw_case_file_open(casefile, &err);
    cr_assert(f != NULL, "%s", err.msg);
    cr_assert_eq(iohw_case_file_read(f, "one", IOHW_READ_ALL, &c, &err), 0, "%s", err.msg);
    float *y = c.y;
    double expected = bump >= 0 ? c.y_f64[bump] : 0.0;
    if (bump >= 0)
        y[bump] += 1.0f;
    hsize_t dims[4] = {1, 3, 9, 9};
    hid_t file = H5Fcreate(answer, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(4, dims, NULL);
    hid_t d = H5Dcreate2(file, "y", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(d >= 0);
    cr_assert(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, y) >= 0);
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(file);
    iohw_case_free(&c);
    iohw_case_file_close(f, NULL);
    return expected;
}

TestSuite(cli_check, .init = setup, .fini = teardown);

Test(cli_check, stored_output_passes)
{
    write_answer(-1);
    char *out;
    int rc = run(&out, "check '%s' --id one --y '%s'", casefile, answer);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect_str_eq(out, "PASS one\n");
    free(out);
}

Test(cli_check, one_element_off_fails_there)
{
    /* element 101 of NCHW 1x3x9x9: c 1, h 2, w 2 */
    double expected = write_answer(101);
    char *out;
    int rc = run(&out, "check '%s' --id one --y '%s' --json --backend mine.so", casefile, answer);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "\"status\": \"FAIL\"") != NULL, "%s", out);
    cr_expect(strstr(out, "\"mismatches\": 1,") != NULL, "%s", out);
    cr_expect(strstr(out, "\"coord\": [0, 1, 0, 2, 2]") != NULL, "%s", out);
    cr_expect(strstr(out, "iohw run --backend mine.so") != NULL, "%s", out);
    char want[64];
    snprintf(want, sizeof want, "\"expected\": %.17g,", expected);
    cr_expect(strstr(out, want) != NULL, "%s in %s", want, out);
    cr_expect(strstr(out, "\"index\": 101") != NULL, "%s", out);
    free(out);
    rc = run(&out, "check '%s' --id one --y '%s'", casefile, answer);
    cr_expect_eq(rc, 1);
    cr_expect(strstr(out, "FAIL one (") != NULL, "%s", out);
    cr_expect(strstr(out, "__REPRO: iohw run --backend LIB") != NULL, "%s", out);
    free(out);
}

Test(cli_check, unsupported_answer)
{
    hid_t file = H5Fcreate(answer, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 9);
    hid_t a = H5Acreate2(file, "unsupported", t, space, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(H5Awrite(a, t, "no groups") >= 0);
    H5Aclose(a);
    H5Tclose(t);
    H5Sclose(space);
    H5Fclose(file);
    char *out;
    int rc = run(&out, "check '%s' --id one --y '%s' --json", casefile, answer);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "\"status\": \"UNSUPPORTED\"") != NULL, "%s", out);
    cr_expect(strstr(out, "\"message\": \"no groups\"") != NULL, "%s", out);
    free(out);
}

Test(cli_check, bad_usage_names_the_thing)
{
    char *out;
    cr_expect_eq(run(&out, "check '%s' --id one", casefile), 2);
    cr_expect(strstr(out, "--y OUT.h5") != NULL, "%s", out);
    free(out);
    write_answer(-1);
    cr_expect_eq(run(&out, "check '%s' --id nosuch --y '%s'", casefile, answer), 2);
    cr_expect(strstr(out, "nosuch") != NULL, "%s", out);
    free(out);
    cr_expect_eq(run(&out, "check '%s' --id one --y /nonexistent/out.h5", casefile), 2);
    cr_expect(strstr(out, "/nonexistent/out.h5") != NULL, "%s", out);
    free(out);
}
