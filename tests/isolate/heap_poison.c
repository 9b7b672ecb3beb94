/*
 * tests/isolate/heap_poison.c - a test backend that damages its own
 * process the way a heap overflow does: a grouped problem (groups > 1) is
 * computed right but leaves the process poisoned, and every later run()
 * in that process dies with SIGSEGV (a corrupted allocator failing later,
 * in an unrelated case).  Without `iohw run --isolate` the case after a
 * grouped one crashes; with it every case passes (test_run_isolate.c).
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

static iohw_error last;
static volatile sig_atomic_t poisoned;

static const char *hp_last_error(void *ctx)
{
    (void)ctx;
    return last.msg;
}

static int hp_supports(void *ctx, const iohw_problem *p)
{
    (void)ctx;
    if (iohw_problem_validate(p, &last) != 0)
        return IOHW_UNSUPPORTED;
    if (iohw_problem_is_quant(p) || iohw_problem_is_backward(p)) {
        iohw_error_set(&last, "forward float problems only");
        return IOHW_UNSUPPORTED;
    }
    return IOHW_OK;
}

static int hp_run(void *ctx, const iohw_problem *p, const void *x, const void *w,
                  const void *bias, void *y)
{
    (void)ctx;
    if (poisoned)
        raise(SIGSEGV);
    iohw_oracle_result r;
    memset(&r, 0, sizeof r);
    if (iohw_oracle_run(p, x, w, p->has_bias ? bias : NULL, 1, &r, &last) != 0)
        return IOHW_BACKEND_ERROR;
    memcpy(y, r.y, (size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype));
    iohw_oracle_result_free(&r);
    if (p->groups > 1)
        poisoned = 1;
    return IOHW_OK;
}

static const iohw_backend table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "heap_poison",
    .version = "test",
    .supports = hp_supports,
    .run = hp_run,
    .last_error = hp_last_error,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    return host_abi_version >= 1 ? &table : NULL;
}
