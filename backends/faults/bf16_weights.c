/*
 * backends/faults/bf16_weights.c - weights rounded to bf16 on long f32
 * reductions (a "fast math" path: bf16 dot-product instructions used when
 * the reduction is long enough to pay for the conversion).
 *
 * When an f32 problem sums more than 256 terms per group (C_in/G times the
 * kernel's positions), every weight is rounded to bf16 (to nearest even)
 * before the computation: relative errors of 2^-9 per weight, far beyond
 * the f32 tolerance.  Caught by long f32 reductions with non-integer
 * weights (tag bug-fast-math-weights).  Other problems are computed
 * correctly.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_bf16_weights";
const char iohw__fault_about[] =
    "seeded fault: rounds the weights to bf16 on f32 reductions longer than 256";

#define LONG_REDUCTION 256

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *q = &fw->q;
    (void)err;
    const int64_t reduction = q->in_channels / q->groups * iohw__fault_taps(q);
    if (q->dtype != IOHW_F32 || reduction <= LONG_REDUCTION)
        return 0;
    const int64_t count = q->in_channels * (q->out_channels / q->groups) *
                          iohw__fault_taps(q);
    for (int64_t i = 0; i < count; i++)
        fw->w[i] = iohw__fault_round(IOHW_BF16, fw->w[i], IOHW__ROUND_EVEN, 0);
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
