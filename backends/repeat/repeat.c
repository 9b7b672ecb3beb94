/*
 * backends/repeat/repeat.c - correct backends (the oracle, as
 * backends/reference) for the tests of `iohw run --repeat N`:
 *
 *   libiohw_counting.so         appends one line "run" to the file named by
 *                               the environment variable IOHW_COUNT_FILE
 *                               (when set) at each run() call, so that a
 *                               test can count the calls of every worker
 *   libiohw_nondeterministic.so when run() is called again with the same
 *                               problem as the call before it, flips the
 *                               lowest bit of y's first byte: its first
 *                               output is right, its repeated ones differ
 *
 * The context holds the last error message and the last problem.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/skeleton.h"
#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

typedef struct repeat_ctx {
    iohw_error err;
    iohw_problem last;   /* the problem of the last run() */
    int have_last;
} repeat_ctx;

SKELETON_CONTEXT(repeat, repeat_ctx)

static int repeat_supports(void *ctx, const iohw_problem *p)
{
    repeat_ctx *c = ctx;
    if (p == NULL || p->struct_size < sizeof(iohw_problem))
        return iohw_error_set(&c->err, "problem struct too small"),
               IOHW_UNSUPPORTED;
    return iohw_problem_validate(p, &c->err) == 0 ? IOHW_OK
                                                  : IOHW_UNSUPPORTED;
}

/* Appends a line to $IOHW_COUNT_FILE. */
static void count_call(void)
{
    const char *path = getenv("IOHW_COUNT_FILE");
    FILE *f = path != NULL ? fopen(path, "a") : NULL;
    if (f != NULL) {
        fputs("run\n", f);
        fclose(f);
    }
}

static int repeat_run(void *ctx, const iohw_problem *p, const void *x,
                      const void *w, const void *bias, void *y)
{
    repeat_ctx *c = ctx;
    iohw_oracle_result r;
    count_call();
    if (repeat_supports(ctx, p) != IOHW_OK)
        return IOHW_INVALID_PROBLEM;
    memset(&r, 0, sizeof r);
    if (iohw_oracle_run(p, x, w, p->has_bias ? bias : NULL, 1, &r, &c->err) != 0)
        return IOHW_BACKEND_ERROR;
    memcpy(y, r.y, (size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype));
    iohw_oracle_result_free(&r);
#ifdef REPEAT_NONDETERMINISTIC
    if (c->have_last && memcmp(&c->last, p, sizeof *p) == 0)
        ((unsigned char *)y)[0] ^= 1;
#endif
    c->last = *p;
    c->have_last = 1;
    return IOHW_OK;
}

static const iohw_backend repeat_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
#ifdef REPEAT_NONDETERMINISTIC
    .name = "nondeterministic",
#else
    .name = "counting",
#endif
    .version = "iohw oracle 1",
    .init = repeat_init,
    .fini = repeat_fini,
    .supports = repeat_supports,
    .run = repeat_run,
    .last_error = repeat_last_error,
};

SKELETON_ENTRY(repeat_table)
