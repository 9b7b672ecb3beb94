/*
 * judge/diagnose_shape_values.c - whether a wrong-shaped output's values are
 * a misread problem's output (diagnose_shape.h, specification sections 3.5
 * and 11): float within the bound of section 3, quantized exactly.
 */
#include "judge/diagnose_shape.h"

#include <stdlib.h>
#include <string.h>

#include "judge/compare.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* A quantized case: 1 when y is q's exact output (specification section
 * 11) on the case's inputs and requant values, 0 when not, -1 when the
 * oracle could not run (a per-channel requant of another channel count). */
static int quant_values_match(const iohw_case *c, const iohw_problem *q, const void *y)
{
    const int64_t ny = iohw_problem_y_count(q);
    const size_t es = iohw_dtype_size(iohw_problem_y_dtype(q));
    if (c->x == NULL || c->w == NULL || (q->has_bias && c->bias == NULL)
        || iohw_quant_requant_count(q) != iohw_quant_requant_count(&c->p))
        return -1;
    void *o = malloc((size_t)ny * es + 1);
    int rc = o == NULL || iohw_quant_run(q, c->x, c->w, c->bias, c->requant, o, NULL) != 0
                 ? -1 : memcmp(o, y, (size_t)ny * es) == 0;
    free(o);
    return rc;
}

/* 1 when y (q's output count of elements) passes against q's oracle run
 * on the case's inputs, by the case's own rule; 0 when not, -1 when the
 * oracle could not run. */
int iohw__shape_values_match(const iohw_case *c, const iohw_problem *q,
                             const void *y, const void *sentinel_bits)
{
    if (iohw_problem_is_quant(q))
        return quant_values_match(c, q, y);
    iohw_oracle_result o;
    iohw_case t;
    iohw_result r;
    if (c->x == NULL || c->w == NULL || (q->has_bias && c->bias == NULL) ||
        iohw_oracle_run(q, c->x, c->w, c->bias, 1, &o, NULL) != 0)
        return -1;
    memset(&t, 0, sizeof t);
    t.p = *q;
    t.y = o.y;
    t.y_f64 = o.y_f64;
    t.err_bound = o.err_bound;
    t.terms_max = o.terms_max;
    memcpy(t.fill, c->fill, sizeof t.fill);
    iohw_result_init(&r);
    iohw_compare_float(&t, y, sentinel_bits, &r);
    iohw_oracle_result_free(&o);
    return r.status == IOHW_RESULT_PASS;
}
