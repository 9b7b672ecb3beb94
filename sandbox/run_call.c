/*
 * sandbox/run_call.c - run() or run_quant(), by the problem's kind
 * (run_call.h).
 */
#include "sandbox/run_call.h"

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

static const iohw__run_call RUN = {"run()", NULL, 1, always, call_run};
static const iohw__run_call RUN_QUANT = {
    "run_quant()", "the backend has no run_quant", 0, has_run_quant,
    call_run_quant};

const iohw__run_call *iohw__run_call_of(const iohw_problem *p)
{
    return iohw_problem_is_quant(p) ? &RUN_QUANT : &RUN;
}
