/*
 * backends/broken/broken.c - deliberately broken backends for the loader's
 * tests and the run's error paths.  One source, built once per defect; the
 * compile definition BROKEN_<DEFECT> picks it:
 *
 *   NO_ENTRY           exports no iohw_backend_entry (a misspelt one)
 *   NULL_TABLE         iohw_backend_entry returns NULL (wants a newer host)
 *   ABI99              abi_version 99
 *   SHORT_STRUCT       struct_size ends before run
 *   NULL_NAME          name is NULL
 *   NULL_SUPPORTS      supports is NULL
 *   NULL_RUN           run is NULL
 *   NULL_LAST_ERROR    last_error is NULL
 *   INIT_FAILS         init returns IOHW_BACKEND_ERROR, with a message
 *   RUN_UNSUPPORTED    claims every problem, then run() says
 *                      IOHW_UNSUPPORTED
 *   RUN_ERROR          claims every problem, then run() fails with
 *                      IOHW_BACKEND_ERROR and a message
 *   NULL_MESSAGE       like RUN_ERROR, but last_error returns NULL
 *
 * Apart from its defect each one is a well-formed backend.
 */
#include <stddef.h>
#include <stdlib.h>

#include "iohw/backend.h"

/* Some defects leave a callback out of the table. */
#define MAYBE_UNUSED __attribute__((unused))

typedef struct broken_ctx {
    const char *msg;
} broken_ctx;

static int broken_init(void **ctx)
{
#if defined(BROKEN_INIT_FAILS)
    /* A failed init leaves no context behind; last_error(NULL) says why. */
    (void)ctx;
    return IOHW_BACKEND_ERROR;
#else
    broken_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    c->msg = "";
    *ctx = c;
    return IOHW_OK;
#endif
}

static void broken_fini(void *ctx)
{
    free(ctx);
}

MAYBE_UNUSED static const char *broken_last_error(void *ctx)
{
#if defined(BROKEN_NULL_MESSAGE)
    (void)ctx;
    return NULL;
#else
    broken_ctx *c = ctx;
    if (c != NULL)
        return c->msg;
#if defined(BROKEN_INIT_FAILS)
    return "broken_init_fails: no device available"; /* why init failed */
#else
    return "";
#endif
#endif
}

MAYBE_UNUSED static int broken_supports(void *ctx, const iohw_problem *p)
{
    (void)ctx;
    (void)p;
    return IOHW_OK;
}

MAYBE_UNUSED static int broken_run(void *ctx, const iohw_problem *p, const void *x,
                      const void *w, const void *bias, void *y)
{
    broken_ctx *c = ctx;
    (void)p;
    (void)x;
    (void)w;
    (void)bias;
    (void)y;
#if defined(BROKEN_RUN_UNSUPPORTED)
    c->msg = "broken_run_unsupported: not implemented after all";
    return IOHW_UNSUPPORTED;
#else
    c->msg = "broken_run_error: the device went away";
    return IOHW_BACKEND_ERROR;
#endif
}

static const iohw_backend broken_table = {
#if defined(BROKEN_ABI99)
    .abi_version = 99,
#else
    .abi_version = IOHW_ABI_VERSION,
#endif
#if defined(BROKEN_SHORT_STRUCT)
    .struct_size = offsetof(iohw_backend, run),
#else
    .struct_size = sizeof(iohw_backend),
#endif
#if defined(BROKEN_NULL_NAME)
    .name = NULL,
#else
    .name = "broken",
#endif
    .version = "0",
    .init = broken_init,
    .fini = broken_fini,
#if !defined(BROKEN_NULL_SUPPORTS)
    .supports = broken_supports,
#endif
#if !defined(BROKEN_NULL_RUN)
    .run = broken_run,
#endif
#if !defined(BROKEN_NULL_LAST_ERROR)
    .last_error = broken_last_error,
#endif
};

#if defined(BROKEN_NO_ENTRY)
IOHW_EXPORT const iohw_backend *iohw_backend_entri(uint32_t host_abi_version);
IOHW_EXPORT const iohw_backend *iohw_backend_entri(uint32_t host_abi_version)
#else
IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
#endif
{
#if defined(BROKEN_NULL_TABLE)
    /* Wants a host newer than any there is. */
    return host_abi_version >= 1000 ? &broken_table : NULL;
#else
    return host_abi_version >= 1 ? &broken_table : NULL;
#endif
}
