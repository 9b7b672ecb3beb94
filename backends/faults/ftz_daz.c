/*
 * backends/faults/ftz_daz.c - flush-to-zero and denormals-are-zero (the
 * MXCSR FTZ and DAZ bits a "fast" library sets; x86 bf16 conversions
 * behave so always).
 *
 * Inputs below the dtype's smallest normal are read as zeros (of their
 * sign); every product and partial sum below the accumulator's smallest
 * normal (f64 for f64 data, f32 otherwise) is flushed; the result is
 * rounded to the dtype and flushed again.  Caught by inputs and results in
 * the subnormal range (fill=subnormal, tag bug-subnormal-flush), in every
 * dtype.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_ftz_daz";
const char iohw__fault_about[] =
    "seeded fault: flushes subnormal inputs, products, sums and results to zero";

static double add(const iohw_problem *p, double acc, double x, double w)
{
    const iohw_dtype acc_dt = p->dtype == IOHW_F64 ? IOHW_F64 : IOHW_F32;
    const double prod = iohw__fault_flush(acc_dt, iohw__fault_flush(p->dtype, x) *
                                                      iohw__fault_flush(p->dtype, w));
    return iohw__fault_flush(acc_dt, acc + prod);
}

static double rounding(iohw_dtype dt, double v)
{
    return iohw__fault_flush(dt, iohw__fault_round(dt, v, IOHW__ROUND_EVEN, 0));
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    return iohw__fault_compute(p, x, w, bias, y, add, rounding, err);
}

const fault_spec iohw__fault_spec = {.compute = compute};
