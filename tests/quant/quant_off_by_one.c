/*
 * tests/quant/quant_off_by_one.c - a test backend for the exact comparison
 * of quantized cases (test_run_quant.c): claims only quantized problems,
 * computes them with the oracle (iohw_quant_run) and then moves one
 * element of y by one unit (element 0, or with QUANT_LAST the last one),
 * down where it can, up at the bottom of the type.  Every case it runs must
 * FAIL with exactly one element differing.
 *
 * With QUANT_HALF_AWAY it rounds half away from zero whatever the case
 * asks (a backend that declares --rounding half_away, test_run_rounding.c)
 * and moves no element; with QUANT_NON_TIE as well, it then moves the
 * first element where half_away and the case's mode agree: an error at
 * no tie.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#ifdef QUANT_HALF_AWAY
#ifdef QUANT_NON_TIE
#define NON_TIE 1
#else
#define NON_TIE 0
#endif

/* y rounded half away from zero; with QUANT_NON_TIE one element off where
 * that agrees with the case's own rounding. */
static int run_half_away(const iohw_problem *p, const void *x, const void *w,
                         const void *bias, const void *requant, void *y)
{
    iohw_problem a = *p;
    const iohw_dtype dt = iohw_problem_y_dtype(p);
    if (dt != IOHW_S32)
        a.rounding = IOHW_ROUND_HALF_AWAY;
    if (iohw_quant_run(&a, x, w, bias, requant, y, &last) != 0)
        return IOHW_BACKEND_ERROR;
    if (!NON_TIE)
        return IOHW_OK;
    const size_t es = iohw_dtype_size(dt);
    const int64_t n = iohw_problem_y_count(p);
    unsigned char *asked = malloc((size_t)n * es);
    if (asked == NULL || iohw_quant_run(p, x, w, bias, requant, asked, &last) != 0) {
        free(asked);
        return IOHW_BACKEND_ERROR;
    }
    int64_t i = 0;
    while (i < n - 1 && memcmp(asked + (size_t)i * es, (unsigned char *)y + (size_t)i * es,
                               es) != 0)
        i++;
    free(asked);
    nudge(dt, y, i);
    return IOHW_OK;
}
#endif

static int q_run_quant(void *ctx, const iohw_problem *p, const void *x,
                       const void *w, const void *bias, const void *requant,
                       void *y)
{
    (void)ctx;
#if defined(QUANT_HALF_AWAY)
    return run_half_away(p, x, w, bias, requant, y);
#else
    if (iohw_quant_run(p, x, w, bias, requant, y, &last) != 0)
        return IOHW_BACKEND_ERROR;
#ifdef QUANT_LAST
    nudge(iohw_problem_y_dtype(p), y, iohw_problem_y_count(p) - 1);
#else
    nudge(iohw_problem_y_dtype(p), y, 0);
#endif
    return IOHW_OK;
#endif
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
