/*
 * backends/reference/reference.c - the oracle behind the backend ABI.
 *
 * Claims every valid problem.  run() calls iohw_oracle_run (one thread: the
 * harness runs cases in parallel itself) and copies the oracle's y, the
 * exact result rounded once to the case's dtype, into the caller's buffer.
 * It therefore reproduces the y stored in every case file bit for bit.
 * run_quant() does the same for quantized problems through the exact
 * quantized oracle (iohw_quant_run); run() refuses them.  run_bwd_data()
 * and run_bwd_weights() compute the backward directions with the oracle's
 * definitions (specification section 13).
 *
 * The context holds the last error message; nothing is global.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/skeleton_check.h"
#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

typedef struct reference_ctx {
    iohw_error err;
} reference_ctx;

SKELETON_CONTEXT(reference, reference_ctx)

#ifdef REFERENCE_PICKY
/* The picky build (libiohw_picky.so): claims only channels-last data
 * (N, spatial, C) with the weight layout G, O, spatial, I, as XNNPACK does,
 * so that tests can exercise `iohw run --adapt-layout`. */
static int picky_layouts(const iohw_problem *p, iohw_error *err)
{
    const char *sp = iohw_spatial_letters((int)p->rank);
    char xl[16], wl[16];
    snprintf(xl, sizeof xl, "N%sC", sp != NULL ? sp : "");
    snprintf(wl, sizeof wl, "GO%sI", sp != NULL ? sp : "");
    if (strcmp(p->data_layout, xl) != 0 || strcmp(p->weight_layout, wl) != 0)
        return iohw_error_set(err, "picky: only %s data with %s weights", xl,
                              wl);
    return 0;
}
#endif

#ifdef REFERENCE_RUDE
/* The rude builds (backends/rude/): correct results, then one rudeness to
 * their own process, defined by each build's own file. */
void iohw__rude_act(void);
#endif

#ifdef REFERENCE_FLUSH
/* The flush build (backends/flush/): the oracle with subnormal inputs and
 * results flushed to zero, defined there. */
int iohw__flush_run(const iohw_problem *p, const void *x, const void *w,
                    const void *bias, void *y, iohw_error *err);
#endif

/* The end of a run that worked: no error, and the rude builds' act. */
static int finished(iohw_error *err)
{
    if (err != NULL)
        err->msg[0] = '\0';
#ifdef REFERENCE_RUDE
    iohw__rude_act();
#endif
    return IOHW_OK;
}

static int reference_supports(void *ctx, const iohw_problem *p)
{
    reference_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    if (skeleton_check(p, err) != 0)
        return IOHW_UNSUPPORTED;
#ifdef REFERENCE_PICKY
    if (picky_layouts(p, err) != 0)
        return IOHW_UNSUPPORTED;
#endif
#ifdef REFERENCE_FLUSH
    if (iohw_problem_is_quant(p)) {
        iohw_error_set(err, "flush: quantized problems have no subnormals to "
                       "flush (no run_quant)");
        return IOHW_UNSUPPORTED;
    }
#endif
    return IOHW_OK;
}

static int reference_run(void *ctx, const iohw_problem *p, const void *x,
                         const void *w, const void *bias, void *y)
{
    reference_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    iohw_oracle_result r;

    /* Test the arguments. */
    if (skeleton_check(p, err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (iohw_problem_is_quant(p)) {
        iohw_error_set(err, "run: a quantized problem (dtype %s) goes to "
                       "run_quant", iohw_dtype_name(p->dtype));
        return IOHW_INVALID_PROBLEM;
    }
    if (iohw_problem_is_backward(p)) {
        iohw_error_set(err, "run: a backward problem (%s) goes to its own "
                       "entry point", iohw_direction_name(p));
        return IOHW_INVALID_PROBLEM;
    }
    const char *null = skeleton_null_tensor(p, x, w, bias, y);
    if (null != NULL) {
        iohw_error_set(err, "run: %s is NULL", null);
        return IOHW_INVALID_PROBLEM;
    }

#ifdef REFERENCE_FLUSH
    (void)r;
    return iohw__flush_run(p, x, w, p->has_bias ? bias : NULL, y, err) == 0
               ? IOHW_OK : IOHW_BACKEND_ERROR;
#endif
    /* Compute and hand over the rounded result. */
    memset(&r, 0, sizeof r);
    if (iohw_oracle_run(p, x, w, p->has_bias ? bias : NULL, 1, &r, err) != 0)
        return IOHW_BACKEND_ERROR;
    memcpy(y, r.y, (size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype));
    iohw_oracle_result_free(&r);
    return finished(err);
}

#ifndef REFERENCE_FLUSH
/* The quantized oracle: exact, so y is the case's y bit for bit. */
static int reference_run_quant(void *ctx, const iohw_problem *p, const void *x,
                               const void *w, const void *bias,
                               const void *requant, void *y)
{
    reference_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    if (skeleton_check(p, err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (!iohw_problem_is_quant(p)) {
        iohw_error_set(err, "run_quant: dtype %s is not quantized",
                       iohw_dtype_name(p->dtype));
        return IOHW_INVALID_PROBLEM;
    }
    if (iohw_quant_run(p, x, w, p->has_bias ? bias : NULL, requant, y, err) != 0)
        return IOHW_INVALID_PROBLEM;
    return finished(err);
}
#endif

#ifndef REFERENCE_FLUSH
/* The backward directions (specification section 13) through the
 * oracle's definitions (iohw_oracle_run_inputs): out gets the direction's
 * output rounded to the dtype, dx or dw followed by db. */
static int reference_backward(void *ctx, const iohw_problem *p, int32_t dir,
                              const iohw_oracle_inputs *in, void *out,
                              void *db)
{
    reference_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    iohw_oracle_result r;
    if (skeleton_check(p, err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (p->direction != dir) {
        iohw_error_set(err, "%s: the problem's direction is %s",
                       dir == IOHW_DIR_BWD_D ? "run_bwd_data"
                                             : "run_bwd_weights",
                       iohw_direction_name(p));
        return IOHW_INVALID_PROBLEM;
    }
    if (out == NULL || in->dy == NULL || (in->x == NULL && in->w == NULL) ||
        (dir == IOHW_DIR_BWD_W && p->has_bias && db == NULL)) {
        iohw_error_set(err, "%s: a tensor is NULL",
                       dir == IOHW_DIR_BWD_D ? "run_bwd_data"
                                             : "run_bwd_weights");
        return IOHW_INVALID_PROBLEM;
    }
    memset(&r, 0, sizeof r);
    if (iohw_oracle_run_inputs(p, in, IOHW_ORACLE_DEFINITION, 1, &r, err) != 0)
        return IOHW_BACKEND_ERROR;
    const size_t es = iohw_dtype_size(p->dtype);
    const size_t main_count = (size_t)(dir == IOHW_DIR_BWD_D
                                           ? iohw_problem_x_count(p)
                                           : iohw_problem_w_count(p));
    memcpy(out, r.y, main_count * es);
    if (dir == IOHW_DIR_BWD_W && p->has_bias)
        memcpy(db, (const char *)r.y + main_count * es,
               (size_t)iohw_problem_bias_count(p) * es);
    iohw_oracle_result_free(&r);
    return finished(err);
}

static int reference_run_bwd_data(void *ctx, const iohw_problem *p,
                                  const void *dy, const void *w, void *dx)
{
    const iohw_oracle_inputs in = {NULL, w, NULL, dy};
    return reference_backward(ctx, p, IOHW_DIR_BWD_D, &in, dx, NULL);
}

static int reference_run_bwd_weights(void *ctx, const iohw_problem *p,
                                     const void *x, const void *dy, void *dw,
                                     void *db)
{
    const iohw_oracle_inputs in = {x, NULL, NULL, dy};
    return reference_backward(ctx, p, IOHW_DIR_BWD_W, &in, dw, db);
}
#endif

static const iohw_backend reference_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
#ifdef REFERENCE_PICKY
    .name = "picky",
#elif defined(REFERENCE_RUDE)
    .name = "rude",
#elif defined(REFERENCE_FLUSH)
    .name = "flush",
#else
    .name = "reference",
#endif
    .version = "iohw oracle 1",
    .init = reference_init,
    .fini = reference_fini,
    .supports = reference_supports,
    .run = reference_run,
    .last_error = reference_last_error,
#ifndef REFERENCE_FLUSH
    .run_quant = reference_run_quant,
    .run_bwd_data = reference_run_bwd_data,
    .run_bwd_weights = reference_run_bwd_weights,
#endif
};

SKELETON_ENTRY(reference_table)
