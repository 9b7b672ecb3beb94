/*
 * tests/test_cases_storage.c - the storage the writer chooses per dataset
 * (specification section 4): shuffle and deflate level 1 for data whose
 * sample's byte planes code to half or less, contiguous without filters for
 * data whose planes do not, compact for small datasets; and every file of a smoke
 * generation read back by iohw's reader and by plain h5py, byte for byte
 * the same.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "test_cases_fixture.h"
#include "support/shell.h"
#include "oracle/dtype.h"
#include "oracle/quant_problem.h"

#define sh iohw_test_sh

/* Storage of one dataset: layout, filter ids in order, deflate level. */
typedef struct storage {
    H5D_layout_t layout;
    int nfilters;
    H5Z_filter_t filter[4];
    unsigned level;
} storage;

static storage storage_of(hid_t fid, const char *name)
{
    storage s;
    memset(&s, 0, sizeof s);
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "%s", name);
    hid_t dcpl = H5Dget_create_plist(d);
    s.layout = H5Pget_layout(dcpl);
    s.nfilters = H5Pget_nfilters(dcpl);
    for (int i = 0; i < s.nfilters && i < 4; i++) {
        unsigned flags, cd[4] = {0};
        size_t ncd = 4;
        char fname[64];
        s.filter[i] = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd,
                                     sizeof fname, fname, NULL);
        if (s.filter[i] == H5Z_FILTER_DEFLATE)
            s.level = cd[0];
    }
    H5Pclose(dcpl);
    H5Dclose(d);
    return s;
}

/* A 1-d case of 4096 positions: x f32 near 1.0 with one random byte in
 * four (codes to about a quarter), y random bits (does not shrink), y_f64
 * three random bytes in eight (codes to about 3/8), err_bound zeros, w a
 * single compact element. */
static void build_mixed(iohw_case *c)
{
    build(&(spec){"mixed", 1, 1, 1, 1, 1, {4096}, {1}, {1}, {1}, {0}, {0},
                  {0}, "NCW", "IOW", IOHW_F32, 0}, c);
    uint32_t *x = c->x;
    uint64_t *y64 = (uint64_t *)c->y_f64;
    for (int64_t i = 0; i < 4096; i++) {
        x[i] = 0x3f800000u | (uint32_t)(hash(7, (uint64_t)i) & 0xff);
        y64[i] = 0x3ff0000000000000ull | (hash(8, (uint64_t)i) & 0xffffff);
        c->err_bound[i] = 0.0;
    }
}

Test(case_storage_choice, data_whose_sample_codes_to_half_or_less_gets_shuffle_and_deflate_level_1)
{
    char path[512];
    tmp_path(path, sizeof path, "mixed");
    iohw_case c;
    build_mixed(&c);
    write_cases(path, &c, 1);

    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    const char *const packed[] = {"/cases/mixed/x", "/cases/mixed/y_f64",
                                  "/cases/mixed/err_bound"};
    for (int i = 0; i < 3; i++) {
        storage s = storage_of(fid, packed[i]);
        cr_expect_eq(s.layout, H5D_CHUNKED, "%s", packed[i]);
        cr_expect_eq(s.nfilters, 2, "%s", packed[i]);
        cr_expect_eq(s.filter[0], H5Z_FILTER_SHUFFLE, "%s", packed[i]);
        cr_expect_eq(s.filter[1], H5Z_FILTER_DEFLATE, "%s", packed[i]);
        cr_expect_eq(s.level, 1, "%s: deflate level %u", packed[i], s.level);
    }
    storage s = storage_of(fid, "/cases/mixed/y");
    cr_expect_eq(s.layout, H5D_CONTIGUOUS, "random bits stay unfiltered");
    cr_expect_eq(s.nfilters, 0);
    s = storage_of(fid, "/cases/mixed/w");
    cr_expect_eq(s.layout, H5D_COMPACT, "one element");
    H5Fclose(fid);

    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    iohw_case got;
    cr_assert_eq(iohw_case_file_read(f, "mixed", IOHW_READ_ALL, &got, &e), 0,
                 "%s", e.msg);
    expect_same(&got, &c, IOHW_READ_ALL);
    iohw_case_free(&got);
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}

Test(case_storage_choice, data_whose_sample_codes_to_more_than_half_stays_contiguous)
{
    char path[512];
    tmp_path(path, sizeof path, "threequarters");
    iohw_case c;
    build_mixed(&c);
    uint32_t *x = c.x;                /* three random bytes in four */
    for (int64_t i = 0; i < 4096; i++)
        x[i] = 0x3f000000u | (uint32_t)(hash(9, (uint64_t)i) & 0xffffff);
    write_cases(path, &c, 1);
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    storage s = storage_of(fid, "/cases/mixed/x");
    cr_expect_eq(s.layout, H5D_CONTIGUOUS);
    cr_expect_eq(s.nfilters, 0);
    H5Fclose(fid);
    iohw_case_free(&c);
    remove(path);
}

/* A 1-d f64 case of n positions whose x, y_f64 and err_bound are small
 * integers (they code to far less than half). */
static void build_integers(int64_t n, iohw_case *c)
{
    build(&(spec){"ints", 1, 1, 1, 1, 1, {n}, {1}, {1}, {1}, {0}, {0},
                  {0}, "NCW", "IOW", IOHW_F64, 0}, c);
    double *x = c->x;
    for (int64_t i = 0; i < n; i++) {
        x[i] = (double)(hash(10, (uint64_t)i) % 16);
        c->y_f64[i] = x[i];
        c->err_bound[i] = 0.0;
    }
}

Test(case_storage_choice, data_over_1_mib_stays_contiguous_even_when_it_would_deflate)
{
    /* 131072 doubles are 1 MiB, deflated; one more is past the limit. */
    const int64_t sizes[] = {131072, 131073};
    for (int k = 0; k < 2; k++) {
        char path[512];
        tmp_path(path, sizeof path, "ints");
        iohw_case c;
        build_integers(sizes[k], &c);
        write_cases(path, &c, 1);
        hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        cr_assert_geq(fid, 0);
        const char *const names[] = {"/cases/ints/x", "/cases/ints/y_f64",
                                     "/cases/ints/err_bound"};
        for (int i = 0; i < 3; i++) {
            storage s = storage_of(fid, names[i]);
            cr_expect_eq(s.layout, k == 0 ? H5D_CHUNKED : H5D_CONTIGUOUS,
                         "%s of %lld doubles", names[i], (long long)sizes[k]);
            cr_expect_eq(s.nfilters, k == 0 ? 2 : 0, "%s", names[i]);
        }
        H5Fclose(fid);
        iohw_case_free(&c);
        remove(path);
    }
}

/* ---------------------------------------------------------------------- */
/* A smoke generation, read by the reader and by h5py. */

/* Sum of b[i] * (i mod 251 + 1) modulo 2^64 (as check_h5py_read.py). */
static uint64_t checksum(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (uint64_t)b[i] * (uint64_t)(i % 251 + 1);
    return s;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One line "FILE CASE DATASET CHECKSUM", as the reader gives it. */
static int add_line(const char *file, const iohw_case *c, const char *name,
                    const void *buf, size_t bytes, char **lines, int at)
{
    char line[256];
    snprintf(line, sizeof line, "%s %s %s %llu", file, c->id, name,
             (unsigned long long)checksum(buf, bytes));
    lines[at] = xstrdup(line);
    return at + 1;
}

/* A quantized case's datasets: x, w, bias (int32), y of their own types,
 * and the requant values (s_w, or multiplier and shift). */
static int quant_lines(const char *file, const iohw_case *c, char **lines, int at)
{
    const iohw_problem *p = &c->p;
    const int32_t wt = p->w_dtype ? p->w_dtype : p->dtype;
    const int32_t yt = p->y_dtype ? p->y_dtype : p->dtype;
    const size_t nq = (size_t)iohw_quant_requant_count(p);
    at = add_line(file, c, "x", c->x, (size_t)iohw_problem_x_count(p), lines, at);
    at = add_line(file, c, "w", c->w,
                  (size_t)iohw_problem_w_count(p) * iohw_dtype_size(wt), lines, at);
    if (p->has_bias)
        at = add_line(file, c, "bias", c->bias, (size_t)p->out_channels * 4, lines, at);
    at = add_line(file, c, "y", c->y,
                  (size_t)iohw_problem_y_count(p) * iohw_dtype_size(yt), lines, at);
    if (nq > 0 && p->m_form == IOHW_QM_SCALES)
        at = add_line(file, c, "s_w", c->requant, nq * 4, lines, at);
    if (nq > 0 && p->m_form == IOHW_QM_FIXED) {
        const int32_t *r = c->requant;
        at = add_line(file, c, "multiplier", r, nq * 4, lines, at);
        at = add_line(file, c, "shift", r + nq, nq * 4, lines, at);
    }
    return at;
}

/* A backward case's datasets (specification section 13): dy and x or w,
 * then dx..., or dw... and db... (c->y holds dw then db). */
static int backward_lines(const char *file, const iohw_case *c, char **lines, int at)
{
    static const char *const names[2][3] = {{"dx", "dx_f64", "dx_err_bound"},
                                            {"dw", "dw_f64", "dw_err_bound"}};
    static const char *const db[3] = {"db", "db_f64", "db_err_bound"};
    const iohw_problem *p = &c->p;
    const int bwd_w = p->direction == IOHW_DIR_BWD_W;
    const size_t es = iohw_dtype_size(p->dtype);
    const size_t head = (size_t)(bwd_w ? iohw_problem_w_count(p) : iohw_problem_x_count(p));
    const size_t nb = (size_t)iohw_problem_out_count(p) - head;
    if (bwd_w)
        at = add_line(file, c, "x", c->x, (size_t)iohw_problem_x_count(p) * es, lines, at);
    at = add_line(file, c, "dy", c->dy, (size_t)iohw_problem_y_count(p) * es, lines, at);
    if (!bwd_w)
        at = add_line(file, c, "w", c->w, (size_t)iohw_problem_w_count(p) * es, lines,
                      at);
    const void *out[3] = {c->y, c->y_f64, c->err_bound};
    for (int i = 0; i < 3; i++) {
        const size_t s = i == 0 ? es : 8;
        at = add_line(file, c, names[bwd_w][i], out[i], head * s, lines, at);
        if (nb > 0)
            at = add_line(file, c, db[i], (const char *)out[i] + head * s, nb * s,
                          lines, at);
    }
    return at;
}

/* One line per dataset of a case: FILE CASE DATASET CHECKSUM. */
static int case_lines(const char *file, const iohw_case *c, char **lines, int at)
{
    const iohw_problem *p = &c->p;
    if (iohw_problem_is_quant(p))
        return quant_lines(file, c, lines, at);
    if (iohw_problem_is_backward(p))
        return backward_lines(file, c, lines, at);
    const size_t es = iohw_dtype_size(p->dtype);
    const size_t ny = (size_t)iohw_problem_y_count(p);
    at = add_line(file, c, "x", c->x, (size_t)iohw_problem_x_count(p) * es, lines, at);
    at = add_line(file, c, "w", c->w, (size_t)iohw_problem_w_count(p) * es, lines, at);
    if (p->has_bias)
        at = add_line(file, c, "bias", c->bias, (size_t)p->out_channels * es, lines, at);
    at = add_line(file, c, "y", c->y, ny * es, lines, at);
    at = add_line(file, c, "y_f64", c->y_f64, ny * 8, lines, at);
    return add_line(file, c, "err_bound", c->err_bound, ny * 8, lines, at);
}

/* Counts the datasets of a file by storage: [0] shuffle + deflate 1,
 * [1] contiguous unfiltered, [2] compact.  lines: the reader's lines, whose
 * second and third words name the datasets of the file. */
static void count_storage(const char *path, char **lines, int from, int to,
                          int *kinds)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(fid, 0, "%s", path);
    for (int i = from; i < to; i++) {
        char id[IOHW_CASE_ID_MAX], ds[16], name[256];
        cr_assert_eq(sscanf(lines[i], "%*s %127s %15s", id, ds), 2);
        snprintf(name, sizeof name, "/cases/%s/%s", id, ds);
        storage s = storage_of(fid, name);
        if (s.layout == H5D_CHUNKED && s.nfilters == 2 && s.level == 1)
            kinds[0]++;
        else if (s.layout == H5D_CONTIGUOUS && s.nfilters == 0)
            kinds[1]++;
        else if (s.layout == H5D_COMPACT)
            kinds[2]++;
        else
            cr_assert_fail("%s: %s: neither of the chosen storages", path, name);
    }
    H5Fclose(fid);
}

/* Splits text into malloc'd lines (at most max). */
static int split_lines(char *text, char **lines, int max)
{
    int n = 0;
    for (char *s = strtok(text, "\n"); s != NULL && n < max; s = strtok(NULL, "\n"))
        lines[n++] = xstrdup(s);
    return n;
}

#define MAX_LINES 4000

Test(case_storage_choice, every_file_of_a_smoke_generation_reads_the_same_through_the_reader_and_h5py,
     .timeout = 300)
{
    char dir[512];
    char *out;
    snprintf(dir, sizeof dir, "%s/storage-smoke-%ld", IOHW_TEST_TMP, (long)getpid());
    int rc = sh(&out, "rm -rf '%s' && '%s' gen --profile smoke -o '%s' --threads 2", dir,
                IOHW_BIN, dir);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);

    /* The reader: every case of every file, all of it. */
    static const char *const files[] = {"backward.h5", "fills.h5", "layouts.h5",
                                        "pairwise.h5", "quant.h5", "regressions.h5",
                                        "shapes.h5"};
    char **mine = calloc(MAX_LINES, sizeof *mine);
    cr_assert_not_null(mine);
    int n = 0, kinds[3] = {0, 0, 0};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char path[600];
        iohw_error e;
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        if (access(path, F_OK) != 0 && strcmp(files[k], "backward.h5") == 0)
            continue;  /* a suite from before the backward directions */
        iohw_case_file *f = iohw_case_file_open(path, &e);
        cr_assert_not_null(f, "%s", e.msg);
        const int first = n;
        for (int i = 0; i < iohw_case_file_count(f); i++) {
            iohw_case c;
            const char *id = iohw_case_file_id(f, i);
            cr_assert_eq(iohw_case_file_read(f, id, IOHW_READ_ALL, &c, &e), 0, "%s",
                         e.msg);
            cr_assert_lt(n + 6, MAX_LINES);
            n = case_lines(files[k], &c, mine, n);
            iohw_case_free(&c);
        }
        iohw_case_file_close(f, NULL);
        count_storage(path, mine, first, n, kinds);
    }
    cr_expect_gt(kinds[0], 0, "smoke has deflated datasets");
    cr_expect_gt(kinds[1], 0, "smoke has contiguous datasets");
    cr_expect_gt(kinds[2], 0, "smoke has compact datasets");

    /* h5py, when there is one: the same bytes. */
    if (sh(NULL, "/usr/bin/python3 -c 'import h5py, numpy'") != 0) {
        cr_log_warn("/usr/bin/python3 cannot import h5py and numpy: the h5py half "
                    "is skipped (apt-get install python3-h5py)");
    } else {
        rc = sh(&out, "/usr/bin/python3 '%s/tests/check_h5py_read.py' '%s'",
                IOHW_SOURCE_DIR, dir);
        cr_assert_eq(rc, 0, "%s", out);
        char **theirs = calloc(MAX_LINES, sizeof *theirs);
        cr_assert_not_null(theirs);
        int m = split_lines(out, theirs, MAX_LINES);
        free(out);
        cr_assert_eq(m, n, "h5py read %d datasets, the reader %d", m, n);
        qsort(mine, (size_t)n, sizeof *mine, cmp_line);
        qsort(theirs, (size_t)m, sizeof *theirs, cmp_line);
        for (int i = 0; i < n; i++)
            cr_assert_str_eq(theirs[i], mine[i]);
        for (int i = 0; i < m; i++)
            free(theirs[i]);
        free(theirs);
    }
    for (int i = 0; i < n; i++)
        free(mine[i]);
    free(mine);
    rc = sh(NULL, "rm -rf '%s'", dir);
    cr_expect_eq(rc, 0);
}
