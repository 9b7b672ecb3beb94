/*
 * tests/test_cases_fixture.h - cases built in memory for the case-file
 * tests (test_cases.c, test_cases_user.c): a problem in a few words, every
 * tensor a pattern of arbitrary bits (a hash of the element index), so a
 * file must give back exactly the bytes written, NaN payloads included.
 */
#ifndef IOHW_TEST_CASES_FIXTURE_H
#define IOHW_TEST_CASES_FIXTURE_H

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

/* A problem in a few words. */
typedef struct spec {
    const char *id;
    int rank;
    int64_t n, ci, co, g;
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], op[3];
    const char *xl, *wl;
    iohw_dtype dt;
    int bias;
} spec;

static inline void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/cases-%ld-%s.h5", IOHW_TEST_TMP, (long)getpid(),
             name);
}

/* Element i of a pattern: a 64-bit hash, so neighbours differ in every
 * byte. */
static inline uint64_t hash(uint64_t salt, uint64_t i)
{
    uint64_t z = salt * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void *pattern(size_t esize, int64_t count, uint64_t salt)
{
    unsigned char *b = malloc((size_t)count * esize);
    cr_assert_not_null(b);
    for (int64_t i = 0; i < count; i++) {
        uint64_t h = hash(salt, (uint64_t)i);
        memcpy(b + (size_t)i * esize, &h, esize);
    }
    return b;
}

static inline char *xstrdup(const char *s)
{
    char *d = strdup(s);
    cr_assert_not_null(d);
    return d;
}

/* A complete case from a spec; tensors are patterns, err_bound >= 0. */
static inline void build(const spec *s, iohw_case *c)
{
    iohw_error e;
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", s->id);
    iohw_problem *p = &c->p;
    iohw_problem_init(p);
    p->rank = (uint32_t)s->rank;
    p->batch = s->n;
    p->in_channels = s->ci;
    p->out_channels = s->co;
    p->groups = s->g;
    for (int a = 0; a < s->rank; a++) {
        p->in_size[a] = s->in[a];
        p->kernel[a] = s->k[a];
        p->stride[a] = s->s[a] ? s->s[a] : 1;
        p->dilation[a] = s->d[a] ? s->d[a] : 1;
        p->pad_begin[a] = s->pb[a];
        p->pad_end[a] = s->pe[a];
        p->output_padding[a] = s->op[a];
    }
    snprintf(p->data_layout, sizeof p->data_layout, "%s", s->xl);
    snprintf(p->weight_layout, sizeof p->weight_layout, "%s", s->wl);
    p->dtype = s->dt ? s->dt : IOHW_F32;
    p->has_bias = s->bias;
    cr_assert_eq(iohw_problem_finish(p, &e), 0, "%s: %s", s->id, e.msg);

    snprintf(c->fill, sizeof c->fill, "normal");
    c->seed = 0xFEDCBA9876543210ull;
    c->tags = xstrdup("grouped,dilated,asym-pad");
    c->descriptor = xstrdup("n=1 ci=1 co=1 in=1 k=1");
    c->terms_max = iohw_oracle_terms_max(p);
    const size_t es = iohw_dtype_size(p->dtype);
    const int64_t ny = iohw_problem_y_count(p);
    c->x = pattern(es, iohw_problem_x_count(p), 1);
    c->w = pattern(es, iohw_problem_w_count(p), 2);
    if (p->has_bias)
        c->bias = pattern(es, p->out_channels, 3);
    c->y = pattern(es, ny, 4);
    c->y_f64 = pattern(8, ny, 5);
    c->err_bound = malloc((size_t)ny * sizeof(double));
    cr_assert_not_null(c->err_bound);
    for (int64_t i = 0; i < ny; i++)
        c->err_bound[i] = (double)(hash(6, (uint64_t)i) >> 11) * 0x1p-40;
}

/* Problems of every rank, bias or not, plain and grouped weight layouts;
 * x of rank3 is large enough to be split into several chunks. */
static const spec SPECS[] = {
    {"r1.plain", 1, 1, 3, 2, 1, {5}, {3}, {2}, {1}, {1}, {0}, {1},
     "NCW", "IOW", 0, 0},
    {"r1.nwc", 1, 2, 4, 6, 2, {7}, {2}, {1}, {2}, {0}, {1}, {0},
     "NWC", "GOWI", 0, 1},
    {"r2.nhwc", 2, 2, 4, 6, 2, {20, 23}, {3, 2}, {2, 1}, {1, 2}, {1, 0},
     {0, 1}, {1, 0}, "NHWC", "OIHW", 0, 1},
    {"r2.chwn", 2, 1, 3, 5, 1, {4, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0},
     {0, 0}, {0, 0}, "CHWN", "HWOI", 0, 0},
    {"r2.goihw", 2, 1, 6, 9, 3, {9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1},
     {1, 1}, {1, 1}, "NCHW", "GOIHW", 0, 1},
    {"r3.big", 3, 1, 4, 4, 4, {9, 32, 32}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1},
     {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, "NCDHW", "GIODHW", 0, 0},
    {"r3.ndhwc", 3, 1, 2, 3, 1, {3, 2, 4}, {2, 1, 3}, {1, 2, 1}, {1, 1, 2},
     {0, 0, 1}, {1, 0, 0}, {0, 1, 0}, "NDHWC", "DHWIO", 0, 1},
};
#define NSPECS (int)(sizeof SPECS / sizeof SPECS[0])

/* The spec s with dtype dt and an id saying both. */
static inline void build_dt(const spec *s, iohw_dtype dt, iohw_case *c)
{
    spec t = *s;
    char id[IOHW_CASE_ID_MAX];
    snprintf(id, sizeof id, "%s.%s", s->id, iohw_dtype_name(dt));
    t.id = id;
    t.dt = dt;
    build(&t, c);
}

static inline void write_cases(const char *path, iohw_case *cs, int n)
{
    iohw_error e;
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    for (int i = 0; i < n; i++)
        cr_assert_eq(iohw_case_file_write(f, &cs[i], &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
}

static inline void expect_bytes(const char *what, const char *id, const void *got,
                         const void *want, size_t bytes)
{
    cr_assert_not_null(got, "%s: %s not loaded", id, what);
    cr_assert_eq(memcmp(got, want, bytes), 0, "%s: %s differs", id, what);
}

/* Compares everything a read (with `what`) should give back. */
static inline void expect_same(const iohw_case *got, const iohw_case *want,
                        unsigned what)
{
    const iohw_problem *p = &want->p;
    const char *id = want->id;
    const size_t es = iohw_dtype_size(p->dtype);
    const size_t ny = (size_t)iohw_problem_y_count(p);
    cr_assert_str_eq(got->id, want->id);
    cr_assert_eq(memcmp(&got->p, p, sizeof *p), 0, "%s: problem differs",
                 id);
    cr_assert_str_eq(got->fill, want->fill, "%s", id);
    cr_assert_eq(got->seed, want->seed, "%s", id);
    cr_assert_str_eq(got->tags, want->tags, "%s", id);
    cr_assert_str_eq(got->descriptor, want->descriptor, "%s", id);
    cr_assert_eq(got->terms_max, want->terms_max, "%s", id);
    if (what & IOHW_READ_INPUTS) {
        expect_bytes("x", id, got->x, want->x,
                     es * (size_t)iohw_problem_x_count(p));
        expect_bytes("w", id, got->w, want->w,
                     es * (size_t)iohw_problem_w_count(p));
        if (p->has_bias)
            expect_bytes("bias", id, got->bias, want->bias,
                         es * (size_t)p->out_channels);
        else
            cr_assert_null(got->bias, "%s", id);
    } else {
        cr_assert(got->x == NULL && got->w == NULL && got->bias == NULL,
                  "%s: inputs loaded without IOHW_READ_INPUTS", id);
    }
    if (what & IOHW_READ_OUTPUTS) {
        expect_bytes("y", id, got->y, want->y, es * ny);
        expect_bytes("y_f64", id, got->y_f64, want->y_f64, 8 * ny);
        expect_bytes("err_bound", id, got->err_bound, want->err_bound,
                     8 * ny);
    } else {
        cr_assert(got->y == NULL && got->y_f64 == NULL &&
                  got->err_bound == NULL,
                  "%s: outputs loaded without IOHW_READ_OUTPUTS", id);
    }
}

static inline unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "%s", path);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return b;
}

#endif
