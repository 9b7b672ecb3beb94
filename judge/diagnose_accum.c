/*
 * judge/diagnose_accum.c - "accumulated in f16" (or bf16): a 16-bit case
 * whose sum was kept in the 16-bit type, every product and every partial
 * sum rounded to it (specification section 3.5).
 *
 * Within the range of normal numbers such a sum stays inside the tolerance
 * of section 3.3 (the tolerance is the worst case of any order in the
 * dtype's own precision); it fails where products fall below the smallest
 * normal (the accumulator holds only multiples of the smallest subnormal)
 * or where partial sums overflow.  The misreading is tried only where it
 * is proven to fail the case: the builder re-runs the sum with 16-bit
 * rounding and judges it against the oracle's output by the case's own
 * rule; when that passes, nothing tells the two apart and it is not named.
 */
#include "judge/diagnose_internal.h"

#include <stdlib.h>
#include <string.h>

#include "judge/compare.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

/* 1 when the case's sum accumulated in its dtype fails the case, 0 when it
 * passes, -1 when it could not be evaluated. */
static int accumulated_fails(const iohw__dg_base *b)
{
    const iohw_problem *p = b->p;
    const size_t ny = (size_t)b->ny;
    iohw_problem q = *p;
    iohw_layout_map m;
    iohw_result r;
    double *yc = malloc(ny * sizeof *yc), *ec = malloc(ny * sizeof *ec);
    double *ym = malloc(ny * sizeof *ym);
    void *yd = malloc(ny * iohw_dtype_size(p->dtype));
    int rc = -1;

    q.has_bias = 0;
    if (yc == NULL || ec == NULL || ym == NULL || yd == NULL ||
        iohw__dg_conv_terms(&q, 0, 1, b->x, b->w, yc, ec) != 0 ||
        iohw_layout_data_map_as(p, 1, p->data_layout, &m, NULL) != 0)
        goto done;
    for (size_t i = 0; b->bias != NULL && i < ny; i++)
        yc[i] = iohw_dtype_round(p->dtype, yc[i] + b->bias[i / (size_t)b->O % (size_t)b->C_out]);
    iohw_layout_from_canonical(&m, sizeof(double), yc, ym);
    iohw_dtype_from_double(p->dtype, ym, yd, ny);
    iohw_result_init(&r);
    iohw_compare_float(b->c, yd, NULL, &r);
    rc = r.status == IOHW_RESULT_FAIL;
done:
    free(yc);
    free(ec);
    free(ym);
    free(yd);
    return rc;
}

int iohw__dg_accum16(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->p->dtype != IOHW_F16 && b->p->dtype != IOHW_BF16)
        return 0;
    v->accum = 1;
    return accumulated_fails(b);
}
