/*
 * sandbox/run_call.c - run(), run_quant(), run_bwd_data() or
 * run_bwd_weights(), by the problem's kind (run_call.h; specification
 * sections 11.4 and 13).
 */
#include "sandbox/run_call.h"

#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

static int always(const iohw_backend *t)
{
    (void)t;
    return 1;
}

static int has_run_quant(const iohw_backend *t)
{
    return IOHW_HAS_MEMBER(t, iohw_backend, run_quant) && t->run_quant != NULL;
}

/* A table of an older size, or a NULL pointer: no such entry point
 * (specification section 5.1). */
static int has_run_bwd_data(const iohw_backend *t)
{
    return IOHW_HAS_MEMBER(t, iohw_backend, run_bwd_data) &&
           t->run_bwd_data != NULL;
}

static int has_run_bwd_weights(const iohw_backend *t)
{
    return IOHW_HAS_MEMBER(t, iohw_backend, run_bwd_weights) &&
           t->run_bwd_weights != NULL;
}

static int call_run(const iohw_backend *t, void *ctx, const iohw_problem *p,
                    const iohw__run_args *a)
{
    return t->run(ctx, p, a->x, a->w, a->bias, a->y);
}

static int call_run_quant(const iohw_backend *t, void *ctx,
                          const iohw_problem *p, const iohw__run_args *a)
{
    return t->run_quant(ctx, p, a->x, a->w, a->bias, a->requant, a->y);
}

/* dx from dy and w (specification section 13). */
static int call_run_bwd_data(const iohw_backend *t, void *ctx,
                             const iohw_problem *p, const iohw__run_args *a)
{
    return t->run_bwd_data(ctx, p, a->dy, a->w, a->y);
}

/* dw at the start of the output, db right after it (NULL without bias). */
static int call_run_bwd_weights(const iohw_backend *t, void *ctx,
                                const iohw_problem *p, const iohw__run_args *a)
{
    void *db = p->has_bias
                   ? (char *)a->y + (size_t)iohw_problem_w_count(p) *
                                        iohw_dtype_size(p->dtype)
                   : NULL;
    return t->run_bwd_weights(ctx, p, a->x, a->dy, a->y, db);
}

static const iohw__run_call RUN = {"run()", NULL, 1, always, call_run};
static const iohw__run_call RUN_QUANT = {
    "run_quant()", "the backend has no run_quant", 0, has_run_quant,
    call_run_quant};
static const iohw__run_call RUN_BWD_DATA = {
    "run_bwd_data()", "the backend has no run_bwd_data (backward data)", 0,
    has_run_bwd_data, call_run_bwd_data};
static const iohw__run_call RUN_BWD_WEIGHTS = {
    "run_bwd_weights()",
    "the backend has no run_bwd_weights (backward weights)", 0,
    has_run_bwd_weights, call_run_bwd_weights};

const iohw__run_call *iohw__run_call_of(const iohw_problem *p)
{
    if (p->direction == IOHW_DIR_BWD_D)
        return &RUN_BWD_DATA;
    if (p->direction == IOHW_DIR_BWD_W)
        return &RUN_BWD_WEIGHTS;
    return iohw_problem_is_quant(p) ? &RUN_QUANT : &RUN;
}
