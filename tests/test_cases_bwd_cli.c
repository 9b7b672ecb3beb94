/*
 * tests/test_cases_bwd_cli.c - backward case files outside the reader
 * (specification sections 4 and 13): plain h5py reads every dataset of a
 * backward case with the bytes written (tests/check_h5py_read.py), and
 * `iohw show` prints the direction and the direction's tensors.
 */
#include <criterion/criterion.h>

#include <sys/stat.h>

#include "support/shell.h"
#include "test_cases_bwd_fixture.h"

/* Sum of b[i] * (i mod 251 + 1) modulo 2^64 (as check_h5py_read.py). */
static uint64_t checksum(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (uint64_t)b[i] * (uint64_t)(i % 251 + 1);
    return s;
}

static void expect_line(const char *out, const char *file, const char *id,
                        const char *ds, const void *buf, size_t bytes)
{
    char line[300];
    snprintf(line, sizeof line, "%s %s %s %llu\n", file, id, ds,
             (unsigned long long)checksum(buf, bytes));
    cr_assert(strstr(out, line) != NULL, "h5py's output lacks '%s'", line);
}

/* r1.nwc (test_cases_bwd_fixture.h, worked in test_cases_backward.c): dy 96
 * elements, x 56, w and dw 24, db 6; dx 56. */
Test(cases_bwd_cli, h5py_reads_the_bytes_of_every_backward_dataset)
{
    if (iohw_test_sh(NULL, "/usr/bin/python3 -c 'import h5py, numpy'") != 0) {
        cr_log_warn("/usr/bin/python3 cannot import h5py and numpy: skipped "
                    "(apt-get install python3-h5py)");
        return;
    }
    char dir[512], path[600];
    iohw_case c[2];
    snprintf(dir, sizeof dir, "%s/bwd-h5py-%ld", IOHW_TEST_TMP,
             (long)getpid());
    cr_assert_eq(mkdir(dir, 0700), 0, "%s", dir);
    snprintf(path, sizeof path, "%s/backward.h5", dir);
    build_bwd(&SPECS[1], IOHW_DIR_BWD_D, &c[0]);
    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c[1]);
    write_cases(path, c, 2);

    char *out = NULL;
    int rc = iohw_test_sh(&out, "/usr/bin/python3 '%s/tests/check_h5py_read.py' "
                          "'%s'", IOHW_SOURCE_DIR, dir);
    cr_assert_eq(rc, 0, "%s", out);
    const char *f = "backward.h5";
    const iohw_case *d = &c[0], *w = &c[1];
    expect_line(out, f, d->id, "dy", d->dy, 96 * 4);
    expect_line(out, f, d->id, "w", d->w, 24 * 4);
    expect_line(out, f, d->id, "dx", d->y, 56 * 4);
    expect_line(out, f, d->id, "dx_f64", d->y_f64, 56 * 8);
    expect_line(out, f, d->id, "dx_err_bound", d->err_bound, 56 * 8);
    expect_line(out, f, w->id, "x", w->x, 56 * 4);
    expect_line(out, f, w->id, "dy", w->dy, 96 * 4);
    expect_line(out, f, w->id, "dw", w->y, 24 * 4);
    expect_line(out, f, w->id, "dw_f64", w->y_f64, 24 * 8);
    expect_line(out, f, w->id, "dw_err_bound", w->err_bound, 24 * 8);
    expect_line(out, f, w->id, "db", (const float *)w->y + 24, 6 * 4);
    expect_line(out, f, w->id, "db_f64", w->y_f64 + 24, 6 * 8);
    expect_line(out, f, w->id, "db_err_bound", w->err_bound + 24, 6 * 8);
    int lines = 0;
    for (const char *s = out; (s = strchr(s, '\n')) != NULL; s++)
        lines++;
    cr_assert_eq(lines, 13, "13 datasets, h5py printed:\n%s", out);
    free(out);
    iohw_case_free(&c[0]);
    iohw_case_free(&c[1]);
    remove(path);
    rmdir(dir);
}

/* `iohw show` names the direction and shows dy and the outputs by their
 * names; a forward case has no direction line. */
Test(cases_bwd_cli, show_prints_the_direction_and_its_tensors)
{
    char path[512];
    iohw_case c[3];
    tmp_path(path, sizeof path, "bwd-show");
    build_bwd(&SPECS[1], IOHW_DIR_BWD_D, &c[0]);
    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c[1]);
    build(&SPECS[1], &c[2]);
    write_cases(path, c, 3);

    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' show '%s:r1.nwc.bwd_w'", IOHW_BIN, path);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "  direction      BWD_WB (dw and db from x and dy)\n")
              != NULL, "%s", out);
    cr_assert(strstr(out, "    dy         [2, 8, 6]  NWC  f32\n") != NULL,
              "%s", out);
    cr_assert(strstr(out, "    dw         [2, 3, 2, 2]  GOWI  f32\n") != NULL,
              "%s", out);
    cr_assert(strstr(out, "    db_err_bound") != NULL, "%s", out);
    cr_assert(strstr(out, "    y ") == NULL && strstr(out, "    w ") == NULL,
              "%s", out);
    free(out);

    rc = iohw_test_sh(&out, "'%s' show '%s:r1.nwc.bwd_d'", IOHW_BIN, path);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "  direction      BWD_D (dx from dy and w)\n") != NULL,
              "%s", out);
    cr_assert(strstr(out, "    dx         [2, 7, 4]  NWC  f32\n") != NULL,
              "%s", out);
    cr_assert(strstr(out, "    dx_err_bound") != NULL, "%s", out);
    cr_assert(strstr(out, "    x ") == NULL, "%s", out);
    free(out);

    rc = iohw_test_sh(&out, "'%s' show '%s:r1.nwc'", IOHW_BIN, path);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "direction") == NULL, "%s", out);
    free(out);
    for (int i = 0; i < 3; i++)
        iohw_case_free(&c[i]);
    remove(path);
}
