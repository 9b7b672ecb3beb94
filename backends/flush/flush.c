/*
 * backends/flush/flush.c - the reference backend's run() with subnormals
 * flushed to zero (the REFERENCE_FLUSH build of reference.c).
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

int iohw__flush_run(const iohw_problem *p, const void *x, const void *w,
                    const void *bias, void *y, iohw_error *err);

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
    void *d = malloc((size_t)(n > 0 ? n : 1) * iohw_dtype_size(dt));
    if (d == NULL)
        return NULL;
    memcpy(d, src, (size_t)n * iohw_dtype_size(dt));
    flush_zero(dt, d, n);
    return d;
}

int iohw__flush_run(const iohw_problem *p, const void *x, const void *w,
                    const void *bias, void *y, iohw_error *err)
{
    const iohw_dtype dt = (iohw_dtype)p->dtype;
    const int64_t ny = iohw_problem_y_count(p);
    void *xf = flushed(dt, x, iohw_problem_x_count(p));
    void *wf = flushed(dt, w, iohw_problem_w_count(p));
    void *bf = bias != NULL ? flushed(dt, bias, iohw_problem_bias_count(p)) : NULL;
    iohw_oracle_result r;
    int rc = -1;

    memset(&r, 0, sizeof r);
    if (xf == NULL || wf == NULL || (bias != NULL && bf == NULL)) {
        iohw_error_set(err, "run: out of memory");
    } else if (iohw_oracle_run(p, xf, wf, bf, 1, &r, err) == 0) {
        memcpy(y, r.y, (size_t)ny * iohw_dtype_size(dt));
        flush_zero(dt, y, ny);
        iohw_oracle_result_free(&r);
        rc = 0;
    }
    free(xf);
    free(wf);
    free(bf);
    return rc;
}
