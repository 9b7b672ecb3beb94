/*
 * tests/test_cases_break.h - a valid case file to break, and the tools to
 * break it with the HDF5 C API, for test_cases_hostile.c (attributes) and
 * test_cases_datasets.c (datasets).  Each breakage gets a fresh file; the
 * read must fail with a message naming the file, the case and the reason,
 * and must leave the case zeroed.
 *
 * The base case (worked by hand): rank 2, NCHW / IOHW, N = 1, C_in = 10,
 * C_out = 15, G = 1, in 4x3, kernel 5x5, stride 1, dilation 1, no padding:
 * out = L + 4 = 8x7; x [1,10,4,3], w [10,15,5,5], bias [15], y [1,15,8,7].
 */
#ifndef IOHW_TEST_CASES_BREAK_H
#define IOHW_TEST_CASES_BREAK_H

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "cases/case.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

#define ID "ct2d.x.0001"

static inline void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/hostile-%ld-%s.h5", IOHW_TEST_TMP, (long)getpid(),
             name);
}

/* Writes the base case in dtype dt to path. */
static inline void write_base(const char *path, iohw_dtype dt)
{
    iohw_case c;
    iohw_error e;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, ID);
    iohw_problem *p = &c.p;
    iohw_problem_init(p);
    p->rank = 2;
    p->in_channels = 10;
    p->out_channels = 15;
    p->in_size[0] = 4;
    p->in_size[1] = 3;
    p->kernel[0] = p->kernel[1] = 5;
    p->dtype = dt;
    p->has_bias = 1;
    cr_assert_eq(iohw_problem_finish(p, &e), 0, "%s", e.msg);
    cr_assert(p->out_size[0] == 8 && p->out_size[1] == 7);
    snprintf(c.fill, sizeof c.fill, "exact");
    c.seed = 7;
    c.tags = strdup("2d,bias");
    c.descriptor = strdup("ci=10 co=15 in=4x3 k=5x5 bias=1");
    c.terms_max = iohw_oracle_terms_max(p);
    const size_t es = iohw_dtype_size(dt);
    const int64_t nx = 120, nw = 3750, ny = 840;
    c.x = malloc((size_t)nx * es);
    c.w = malloc((size_t)nw * es);
    c.bias = malloc(15 * es);
    c.y = malloc((size_t)ny * es);
    c.y_f64 = malloc((size_t)ny * 8);
    c.err_bound = malloc((size_t)ny * 8);
    for (int64_t i = 0; i < nx; i++)
        iohw_dtype_store(dt, c.x, (size_t)i, (double)(i % 5) - 2);
    for (int64_t i = 0; i < nw; i++)
        iohw_dtype_store(dt, c.w, (size_t)i, (double)(i % 7) - 3);
    for (int64_t i = 0; i < 15; i++)
        iohw_dtype_store(dt, c.bias, (size_t)i, 0.5 * (double)i);
    for (int64_t i = 0; i < ny; i++) {
        iohw_dtype_store(dt, c.y, (size_t)i, (double)i);
        c.y_f64[i] = (double)i;
        c.err_bound[i] = 1.0;
    }
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
    iohw_case_free(&c);
}

/* --- editing files with the HDF5 C API ----------------------------------- */

static inline void del_attr(hid_t loc, const char *name)
{
    if (H5Aexists(loc, name) > 0)
        cr_assert_geq(H5Adelete(loc, name), 0, "%s", name);
}

/* Attribute of file type ft from memory type mt: n values (0 = scalar). */
static inline void set_attr(hid_t loc, const char *name, hid_t ft, hid_t mt, int n,
                     const void *v)
{
    del_attr(loc, name);
    hsize_t dims[1] = {(hsize_t)n};
    hid_t s = n ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, ft, s, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(a, 0, "%s", name);
    cr_assert_geq(H5Awrite(a, mt, v), 0, "%s", name);
    H5Aclose(a);
    H5Sclose(s);
}

static inline void set_i64(hid_t loc, const char *name, int n, const int64_t *v)
{
    set_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, n, v);
}

static inline void set_1(hid_t loc, const char *name, int64_t v)
{
    set_i64(loc, name, 0, &v);
}

/* A variable-length string, as h5py writes str. */
static inline void set_str(hid_t loc, const char *name, const char *s)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    set_attr(loc, name, t, t, 0, &s);
    H5Tclose(t);
}

/* Replaces dataset `name` by one of type ft and the given extents (zeros;
 * ndim 0 = scalar). */
static inline void replace_ds(hid_t loc, const char *name, hid_t ft, int ndim,
                       const hsize_t *dims)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0)
        cr_assert_geq(H5Ldelete(loc, name, H5P_DEFAULT), 0);
    hid_t s = ndim ? H5Screate_simple(ndim, dims, NULL)
                   : H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(loc, name, ft, s, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    cr_assert_geq(d, 0, "%s", name);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    void *zero = calloc((size_t)n, H5Tget_size(ft));
    cr_assert_geq(H5Dwrite(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, zero), 0);
    free(zero);
    H5Dclose(d);
    H5Sclose(s);
}

/* A mutation: fid is the file, g the case's group. */
typedef void (*mutation)(hid_t fid, hid_t g);

static inline void mutate(const char *path, mutation m)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    hid_t g = H5Gopen2(fid, "/cases/" ID, H5P_DEFAULT);
    cr_assert_geq(g, 0);
    m(fid, g);
    H5Gclose(g);
    cr_assert_geq(H5Fclose(fid), 0);
}

static inline void expect_in(const char *msg, const char *needle, const char *label)
{
    cr_assert(strstr(msg, needle) != NULL, "%s: '%s' lacks '%s'", label, msg,
              needle);
}

/* Opens path and reads case id with `what`; one of the two must fail with
 * a message naming the file, the case (when the open succeeded) and
 * `needle`. */
static inline void expect_error(const char *path, const char *id, unsigned what,
                         const char *needle, const char *label)
{
    iohw_error e;
    memset(&e, 0, sizeof e);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    if (f == NULL) {
        expect_in(e.msg, path, label);
        expect_in(e.msg, needle, label);
        return;
    }
    iohw_case c;
    int rc = iohw_case_file_read(f, id, what, &c, &e);
    iohw_case_file_close(f, NULL);
    cr_assert_eq(rc, -1, "%s: the read should fail", label);
    iohw_case zero;
    memset(&zero, 0, sizeof zero);
    cr_assert_eq(memcmp(&c, &zero, sizeof c), 0, "%s: case not freed", label);
    char named[1200];
    snprintf(named, sizeof named, "%s: case '%s': ", path, id);
    expect_in(e.msg, named, label);
    expect_in(e.msg, needle, label);
}

/* One broken file per mutation. */
typedef struct breakage {
    const char *label;
    mutation m;
    const char *needle;
} breakage;

static inline void run_breakages(const breakage *b, int n, iohw_dtype dt,
                          unsigned what)
{
    for (int i = 0; i < n; i++) {
        char path[512];
        tmp_path(path, sizeof path, b[i].label);
        write_base(path, dt);
        mutate(path, b[i].m);
        expect_error(path, ID, what, b[i].needle, b[i].label);
        remove(path);
    }
}

#endif
