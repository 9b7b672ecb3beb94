/*
 * backends/faults/saturate.c - f16, bf16 and f32 results beyond the
 * largest finite value (65504, about 3.39e38, about 3.40e38) saturate to
 * it instead of overflowing to Inf (a clamping conversion, a saturating
 * store).
 *
 * IEEE 754 rounds an exact value at or past the largest finite value plus
 * half an ulp to Inf; caught by results far beyond it (fill=huge, tag
 * bug-overflow), in each of the three dtypes.  f64 is computed correctly.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_saturate";
const char iohw__fault_about[] =
    "seeded fault: f16, bf16 and f32 results saturate at the largest finite value";

static double rounding(iohw_dtype dt, double v)
{
    return iohw__fault_round(dt, v, IOHW__ROUND_EVEN, dt != IOHW_F64);
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    return iohw__fault_compute(p, x, w, bias, y, NULL, rounding, err);
}

const fault_spec iohw__fault_spec = {.compute = compute};
