/*
 * judge/compare_rounding.c - judging a quantized output under the
 * rounding a backend declares (`iohw run --rounding MODE`, specification
 * section 11.6): the case is computed again, exactly, with the declared
 * mode R' in place of its own R, and an output equal to that result
 * passes with a note when it differs from the case's only by one at ties.
 *
 * Two modes differ only where v = M * acc is a tie f + 1/2 (and, with
 * gemmlowp on either side, where its second rounding meets a half), and
 * there by one before saturation: so the output equals R''s result and
 * differs from R's only at those ties, each by one.  The check is
 * element for element all the same, so that nothing else ever passes.
 */
#include "judge/compare.h"

#include <stdio.h>
#include <stdlib.h>

#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* 1 when the declaration applies to c (a quantized case): requantized,
 * asking for another mode, in the fixed form when gemmlowp is declared. */
static int applies(const iohw_case *c, int32_t rounding)
{
    const iohw_problem *p = &c->p;
    return rounding != 0 && iohw_problem_y_dtype(p) != IOHW_S32 && p->rounding != rounding &&
           (rounding != IOHW_ROUND_GEMMLOWP || p->m_form == IOHW_QM_FIXED) &&
           c->x != NULL && c->w != NULL && c->y != NULL &&
           (!p->has_bias || c->bias != NULL);
}

/* The elements where y differs from the case's result when y is the case
 * under `rounding` and each differs by one; -1 otherwise. */
static int64_t tie_differences(const iohw_case *c, const void *y, int32_t rounding)
{
    iohw_problem p = c->p;
    const iohw_dtype dt = iohw_problem_y_dtype(&p);
    const int64_t count = iohw_problem_y_count(&p);
    void *yr = malloc((size_t)count * iohw_dtype_size(dt));
    int64_t n = 0;
    p.rounding = rounding;
    if (yr == NULL || iohw_problem_validate(&p, NULL) != 0 ||
        iohw_quant_run(&p, c->x, c->w, p.has_bias ? c->bias : NULL, c->requant, yr,
                       NULL) != 0)
        n = -1;
    for (int64_t i = 0; n >= 0 && i < count; i++) {
        const double want = iohw_dtype_load(dt, c->y, (size_t)i);
        const double declared = iohw_dtype_load(dt, yr, (size_t)i);
        if (iohw_dtype_load(dt, y, (size_t)i) != declared ||
            (declared != want && declared - want != 1.0 && want - declared != 1.0))
            n = -1;
        else
            n += declared != want;
    }
    free(yr);
    return n;
}

int iohw_compare_declared_rounding(const iohw_case *c, const void *y, int32_t rounding,
                                   iohw_result *r)
{
    if (c == NULL || y == NULL || r == NULL || r->status != IOHW_RESULT_FAIL ||
        !applies(c, rounding))
        return 0;
    const int64_t n = tie_differences(c, y, rounding);
    if (n <= 0)
        return 0;
    r->status = IOHW_RESULT_PASS;
    r->message = iohw_text_fmt(
             IOHW_RESULT_NOTE_ROUNDING " (%s; the case asks %s): %lld of %lld output "
             "elements differ from the case's result, each by one at a tie",
             iohw_quant_rounding_name(rounding), iohw_quant_rounding_name(c->p.rounding),
             (long long)n, (long long)iohw_problem_y_count(&c->p));
    return 1;
}
