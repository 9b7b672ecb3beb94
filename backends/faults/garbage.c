/*
 * backends/faults/garbage.c - returns random numbers in [-1, 1) on every
 * problem (a backend that forgot to compute).  The generator is local to
 * each call and seeded from the problem, so runs repeat.
 */
#include "fault_common.h"
#include "oracle/dtype.h"

const char iohw__fault_name[] = "fault_garbage";
const char iohw__fault_about[] =
    "seeded misbehaviour: returns random numbers";

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    (void)x;
    (void)w;
    (void)bias;
    (void)err;
    uint64_t s = 0x9E3779B97F4A7C15u ^ (uint64_t)iohw__fault_y_count(p);
    const int64_t count = iohw__fault_y_count(p);
    for (int64_t i = 0; i < count; i++) {
        /* xorshift64 */
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        const double u = (double)(s >> 11) * 0x1.0p-53;
        iohw_dtype_store(p->dtype, y, (size_t)i, 2.0 * u - 1.0);
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.compute = compute};
