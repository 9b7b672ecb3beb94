/*
 * backends/faults/bf16_truncate.c - bf16 results by truncation: the f32
 * accumulator's top 16 bits kept, the rest dropped (the cheap conversion
 * of early bf16 code), instead of rounding to nearest even.
 *
 * Differs from the correct result by one ulp wherever the exact value lies
 * past the midpoint between two bf16 numbers; caught bit-exactly by results
 * that are not bf16 numbers (fill=ties, tag bug-rounding) and, beyond the
 * tolerance, in the subnormal range.  Other dtypes are computed correctly.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_bf16_truncate";
const char iohw__fault_about[] =
    "seeded fault: bf16 results truncated instead of rounded to nearest even";

static double rounding(iohw_dtype dt, double v)
{
    if (dt != IOHW_BF16)
        return iohw__fault_round(dt, v, IOHW__ROUND_EVEN, 0);
    /* The f32 accumulator, then its top half. */
    return iohw__fault_round(IOHW_BF16, (double)(float)v, IOHW__ROUND_TRUNC, 0);
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    return iohw__fault_compute(p, x, w, bias, y, NULL, rounding, err);
}

const fault_spec iohw__fault_spec = {.compute = compute};
