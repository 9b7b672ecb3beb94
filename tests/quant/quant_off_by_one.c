/*
 * tests/quant/quant_off_by_one.c - a test backend for the exact comparison
 * of quantized cases (test_run_quant.c): claims only quantized problems,
 * computes them with the oracle (iohw_quant_run) and then moves one
 * element of y by one unit (element 0, or with QUANT_LAST the last one),
 * down where it can, up at the bottom of the type.  Every case it runs must
 * FAIL with exactly one element differing.
 */
#include <stdint.h>
#include <stdlib.h>

#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

static iohw_error last;

static const char *q_last_error(void *ctx)
{
    (void)ctx;
    return last.msg;
}

static int q_supports(void *ctx, const iohw_problem *p)
{
    (void)ctx;
    if (iohw_problem_validate(p, &last) != 0)
        return IOHW_UNSUPPORTED;
    if (!iohw_problem_is_quant(p)) {
        iohw_error_set(&last, "only quantized problems");
        return IOHW_UNSUPPORTED;
    }
    return IOHW_OK;
}

static int q_run(void *ctx, const iohw_problem *p, const void *x, const void *w,
                 const void *bias, void *y)
{
    (void)ctx, (void)p, (void)x, (void)w, (void)bias, (void)y;
    iohw_error_set(&last, "run() is not for quantized problems");
    return IOHW_INVALID_PROBLEM;
}

/* y[i] one unit away, inside the type's range. */
static void nudge(iohw_dtype dt, void *y, int64_t i)
{
    if (dt == IOHW_S8) {
        int8_t *v = y;
        v[i] = v[i] > INT8_MIN ? (int8_t)(v[i] - 1) : (int8_t)(v[i] + 1);
    } else if (dt == IOHW_U8) {
        uint8_t *v = y;
        v[i] = v[i] > 0 ? (uint8_t)(v[i] - 1) : (uint8_t)(v[i] + 1);
    } else {
        int32_t *v = y;
        v[i] = v[i] > INT32_MIN ? v[i] - 1 : v[i] + 1;
    }
}

static int q_run_quant(void *ctx, const iohw_problem *p, const void *x,
                       const void *w, const void *bias, const void *requant,
                       void *y)
{
    (void)ctx;
    if (iohw_quant_run(p, x, w, bias, requant, y, &last) != 0)
        return IOHW_BACKEND_ERROR;
#ifdef QUANT_LAST
    nudge(iohw_problem_y_dtype(p), y, iohw_problem_y_count(p) - 1);
#else
    nudge(iohw_problem_y_dtype(p), y, 0);
#endif
    return IOHW_OK;
}

static const iohw_backend table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "quant_off_by_one",
    .version = "test",
    .supports = q_supports,
    .run = q_run,
    .last_error = q_last_error,
    .run_quant = q_run_quant,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    return host_abi_version >= 1 ? &table : NULL;
}
