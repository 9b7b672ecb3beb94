/*
 * backends/flush/flush.c - the oracle with subnormals flushed to zero.
 *
 * What a kernel running with x86's FTZ and DAZ flags, or built on its bf16
 * instructions, computes: every subnormal value of x, w and bias (in the
 * problem's dtype) is read as zero of the same sign, the oracle computes
 * the rest exactly, and every subnormal result is written as zero of the
 * same sign.  Cases without subnormals get the oracle's y bit for bit.
 * `iohw run --subnormals flush` accepts its outputs (specification section
 * 3.4); without the declaration, cases with subnormals FAIL.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

typedef struct flush_ctx {
    iohw_error err;
} flush_ctx;

static int flush_init(void **ctx)
{
    flush_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    *ctx = c;
    return IOHW_OK;
}

static void flush_fini(void *ctx)
{
    free(ctx);
}

static const char *flush_last_error(void *ctx)
{
    flush_ctx *c = ctx;
    return c != NULL ? c->err.msg : "";
}

static int flush_check(const iohw_problem *p, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (p->struct_size < sizeof(iohw_problem))
        return iohw_error_set(err, "problem struct_size %u is too small",
                              (unsigned)p->struct_size);
    return iohw_problem_validate(p, err);
}

static int flush_supports(void *ctx, const iohw_problem *p)
{
    flush_ctx *c = ctx;
    return flush_check(p, c != NULL ? &c->err : NULL) == 0 ? IOHW_OK
                                                           : IOHW_UNSUPPORTED;
}

/* Sets the subnormal elements of a (n of dtype dt) to zero, sign kept. */
static void flush_zero(iohw_dtype dt, void *a, int64_t n)
{
    const double lim = dt == IOHW_F16 ? 0x1p-14 : dt == IOHW_F64 ? 0x1p-1022
                                                                 : 0x1p-126;
    for (int64_t i = 0; i < n; i++) {
        double v = iohw_dtype_load(dt, a, (size_t)i);
        if (v != 0 && fabs(v) < lim)
            iohw_dtype_store(dt, a, (size_t)i, copysign(0.0, v));
    }
}

/* A flushed copy of n elements of dt at src; NULL when memory runs out. */
static void *flushed(iohw_dtype dt, const void *src, int64_t n)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * iohw_dtype_size(dt);
    void *d = malloc(bytes);
    if (d == NULL)
        return NULL;
    memcpy(d, src, (size_t)n * iohw_dtype_size(dt));
    flush_zero(dt, d, n);
    return d;
}

static int flush_run(void *ctx, const iohw_problem *p, const void *x,
                     const void *w, const void *bias, void *y)
{
    flush_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    iohw_oracle_result r;
    int rc = IOHW_BACKEND_ERROR;

    if (flush_check(p, err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (x == NULL || w == NULL || y == NULL || (p->has_bias && bias == NULL)) {
        iohw_error_set(err, "run: an input or y is NULL");
        return IOHW_INVALID_PROBLEM;
    }
    const iohw_dtype dt = (iohw_dtype)p->dtype;
    const int64_t ny = iohw_problem_y_count(p);
    void *xf = flushed(dt, x, iohw_problem_x_count(p));
    void *wf = flushed(dt, w, iohw_problem_w_count(p));
    void *bf = p->has_bias ? flushed(dt, bias, iohw_problem_bias_count(p)) : NULL;
    memset(&r, 0, sizeof r);
    if (xf == NULL || wf == NULL || (p->has_bias && bf == NULL)) {
        iohw_error_set(err, "run: out of memory");
    } else if (iohw_oracle_run(p, xf, wf, bf, 1, &r, err) == 0) {
        memcpy(y, r.y, (size_t)ny * iohw_dtype_size(dt));
        flush_zero(dt, y, ny);
        iohw_oracle_result_free(&r);
        rc = IOHW_OK;
    }
    free(xf);
    free(wf);
    free(bf);
    return rc;
}

static const iohw_backend flush_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "flush",
    .version = "iohw oracle 1, subnormals flushed",
    .init = flush_init,
    .fini = flush_fini,
    .supports = flush_supports,
    .run = flush_run,
    .last_error = flush_last_error,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    return host_abi_version >= 1 ? &flush_table : NULL;
}
