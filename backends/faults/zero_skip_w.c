/*
 * backends/faults/zero_skip_w.c - products whose weight is zero skipped (a
 * weight-sparsity shortcut: pruned weights never multiplied).
 *
 * Inf * 0 and NaN * 0 are NaN (IEEE 754), so an output element reached by
 * an infinite or NaN x through a zero weight must be NaN; this backend
 * leaves it finite (fill=zeros, tag bug-zero-skip).
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_zero_skip_w";
const char iohw__fault_about[] =
    "seeded fault: skips products whose weight is zero (Inf * 0 never happens)";

static double add(const iohw_problem *p, double acc, double x, double w)
{
    (void)p;
    return w == 0.0 ? acc : acc + x * w;
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    return iohw__fault_compute(p, x, w, bias, y, add, NULL, err);
}

const fault_spec iohw__fault_spec = {.compute = compute};
