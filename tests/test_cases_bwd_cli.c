/*
 * tests/test_cases_bwd_cli.c - backward case files outside the reader
 * (specification sections 4 and 13): plain h5py reads every dataset of a
 * backward case with the bytes written (tests/check_h5py_read.py),
 * `iohw show` prints the direction and the direction's tensors, and
 * `iohw oracle` completes a user's backward case with the values worked
 * out by hand.
 */
#include <criterion/criterion.h>

#include <sys/stat.h>

#include <hdf5.h>

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

/* Writes a one-case user file from c: its inputs only (the outputs,
 * terms_max, fill, tags and descriptor deleted). */
static void write_user(const char *path, const iohw_case *c)
{
    static const char *const outs[] = {
        "dx", "dx_f64", "dx_err_bound", "dw", "dw_f64", "dw_err_bound",
        "db", "db_f64", "db_err_bound"};
    static const char *const attrs[] = {"terms_max", "fill", "tags",
                                        "descriptor", "out_size"};
    write_cases(path, (iohw_case *)c, 1);
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    char name[300];
    snprintf(name, sizeof name, "/cases/%s", c->id);
    hid_t g = H5Gopen2(fid, name, H5P_DEFAULT);
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        if (H5Lexists(g, outs[i], H5P_DEFAULT) > 0)
            cr_assert_geq(H5Ldelete(g, outs[i], H5P_DEFAULT), 0);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        cr_assert_geq(H5Adelete(g, attrs[i]), 0, "%s", attrs[i]);
    H5Gclose(g);
    H5Fclose(fid);
}

/* The smallest problem, worked by hand: N = C_in = C_out = 1, L = 2,
 * K = 2, stride 1, no padding: O = 3.  x = [1, 2], w = [3, 5],
 * dy = [1, 10, 100]:
 *   dx[i] = sum_k dy[i + k] w[k]:  dx = [1*3 + 10*5, 10*3 + 100*5] = [53, 530]
 *   dw[k] = sum_i x[i] dy[i + k]:  dw = [1*1 + 2*10, 1*10 + 2*100] = [21, 210]
 *   db = 1 + 10 + 100 = 111.
 * Every term is positive, so each bound is the value itself; terms_max:
 * dx 2 (two taps reach each i), dw 2 (two inputs per tap), db 3. */
static void tiny(int32_t dir, iohw_case *c)
{
    static const float x[2] = {1, 2}, w[2] = {3, 5}, dy[3] = {1, 10, 100};
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "tiny.%s", dir == IOHW_DIR_BWD_D ? "bwd_d"
                                                                  : "bwd_w");
    iohw_problem *p = &c->p;
    iohw_problem_init(p);
    p->rank = 1;
    p->batch = p->in_channels = p->out_channels = p->groups = 1;
    p->in_size[0] = 2;
    p->kernel[0] = 2;
    p->direction = dir;
    p->has_bias = dir == IOHW_DIR_BWD_W;
    snprintf(p->data_layout, sizeof p->data_layout, "NCW");
    snprintf(p->weight_layout, sizeof p->weight_layout, "IOW");
    iohw_error e;
    cr_assert_eq(iohw_problem_finish(p, &e), 0, "%s", e.msg);
    cr_assert_eq(p->out_size[0], 3);
    snprintf(c->fill, sizeof c->fill, "exact");
    c->tags = xstrdup("1d");
    c->descriptor = xstrdup("in=2 k=2");
    c->terms_max = iohw_oracle_terms_max(p);
    const int64_t n = iohw_problem_out_count(p);
    c->dy = pattern(4, 3, 0);
    memcpy(c->dy, dy, sizeof dy);
    if (dir == IOHW_DIR_BWD_D) {
        c->w = pattern(4, 2, 0);
        memcpy(c->w, w, sizeof w);
    } else {
        c->x = pattern(4, 2, 0);
        memcpy(c->x, x, sizeof x);
    }
    c->y = calloc((size_t)n, 4);
    c->y_f64 = calloc((size_t)n, 8);
    c->err_bound = calloc((size_t)n, 8);
}

static void expect_completed(const char *path, const char *id, int n,
                             const double *want, int64_t terms_max)
{
    iohw_error e;
    iohw_case got;
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, id, IOHW_READ_ALL, &got, &e), 0, "%s",
                 e.msg);
    cr_assert_eq(iohw_problem_out_count(&got.p), n);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(((const float *)got.y)[i], (float)want[i], "%s %d", id, i);
        cr_assert_eq(got.y_f64[i], want[i], "%s %d", id, i);
        cr_assert_eq(got.err_bound[i], want[i], "%s %d", id, i);
    }
    cr_assert_eq(got.terms_max, terms_max, "%s", id);
    cr_assert_str_eq(got.fill, "user");
    iohw_case_free(&got);
    iohw_case_file_close(f, NULL);
}

Test(cases_bwd_cli, oracle_completes_backward_cases_with_their_direction)
{
    char in_d[512], in_w[512], out_d[512], out_w[512];
    iohw_case c;
    tmp_path(in_d, sizeof in_d, "bwd-oracle-in-d");
    tmp_path(in_w, sizeof in_w, "bwd-oracle-in-w");
    tmp_path(out_d, sizeof out_d, "bwd-oracle-out-d");
    tmp_path(out_w, sizeof out_w, "bwd-oracle-out-w");
    tiny(IOHW_DIR_BWD_D, &c);
    write_user(in_d, &c);
    iohw_case_free(&c);
    tiny(IOHW_DIR_BWD_W, &c);
    write_user(in_w, &c);
    iohw_case_free(&c);

    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' oracle '%s' -o '%s' --threads 1",
                          IOHW_BIN, in_d, out_d);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    rc = iohw_test_sh(&out, "'%s' oracle '%s' -o '%s' --threads 1", IOHW_BIN,
                      in_w, out_w);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    const double dx[2] = {53, 530}, dwdb[3] = {21, 210, 111};
    expect_completed(out_d, "tiny.bwd_d", 2, dx, 2);
    expect_completed(out_w, "tiny.bwd_w", 3, dwdb, 3);
    remove(in_d);
    remove(in_w);
    remove(out_d);
    remove(out_w);
}
