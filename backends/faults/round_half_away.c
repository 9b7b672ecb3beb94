/*
 * backends/faults/round_half_away.c - f16 and bf16 results rounded to
 * nearest with ties away from zero (C's round(), a hand-written
 * conversion) instead of ties to even.
 *
 * Differs only where the exact result lies exactly halfway between two
 * numbers of the dtype, which the tolerance accepts either way; caught
 * bit-exactly by single products that need rounding (fill=ties, tag
 * bug-rounding).  f32 and f64 are computed correctly.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_round_half_away";
const char iohw__fault_about[] =
    "seeded fault: f16 and bf16 results rounded with ties away from zero";

static double rounding(iohw_dtype dt, double v)
{
    const int narrow = dt == IOHW_F16 || dt == IOHW_BF16;
    return iohw__fault_round(dt, v, narrow ? IOHW__ROUND_AWAY : IOHW__ROUND_EVEN, 0);
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    return iohw__fault_compute(p, x, w, bias, y, NULL, rounding, err);
}

const fault_spec iohw__fault_spec = {.compute = compute};
