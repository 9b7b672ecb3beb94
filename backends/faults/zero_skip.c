/*
 * backends/faults/zero_skip.c - products whose x is zero skipped (an
 * activation-sparsity shortcut).
 *
 * Skipping x == 0 changes nothing for finite weights, but 0 * Inf and
 * 0 * NaN are NaN (IEEE 754), so an output element reached by a zero x
 * through an infinite or NaN weight must be NaN; this backend leaves it
 * finite.  Caught only by data that puts a zero x exactly where the weight
 * is Inf or NaN (fill=zeros, tag bug-zero-skip).
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_zero_skip";
const char iohw__fault_about[] =
    "seeded fault: skips products whose x is zero (0 * Inf never happens)";

static double add(const iohw_problem *p, double acc, double x, double w)
{
    (void)p;
    return x == 0.0 ? acc : acc + x * w;
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    return iohw__fault_compute(p, x, w, bias, y, add, NULL, err);
}

const fault_spec iohw__fault_spec = {.compute = compute};
