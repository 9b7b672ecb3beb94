/*
 * backends/skeleton.h - the parts every backend writes the same way: the
 * check of the tensor pointers, the context functions of a backend whose
 * context holds its last error, and the exported entry point (the first
 * check of a problem, which needs the oracle, is skeleton_check.h).
 * Header only (static inline functions and macros that define static
 * functions), usable from C and C++; a backend includes it as
 * "backends/skeleton.h" and keeps its own table, so that what it exports
 * is unchanged.
 */
#ifndef IOHW_BACKEND_SKELETON_H
#define IOHW_BACKEND_SKELETON_H

#include <stdlib.h>

#include "iohw/backend.h"

/* The name of the first NULL tensor pointer of run() ("x", "w", "y", or
 * "bias" when the problem has one), or NULL when none is. */
static inline const char *skeleton_null_tensor(const iohw_problem *p,
                                               const void *x, const void *w,
                                               const void *bias, const void *y)
{
    if (x == NULL)
        return "x";
    if (w == NULL)
        return "w";
    if (y == NULL)
        return "y";
    if (p->has_bias && bias == NULL)
        return "bias";
    return NULL;
}

/* prefix_last_error for a context type with an iohw_error member err: its
 * message, or "" without a context. */
#define SKELETON_LAST_ERROR(prefix, type)                                     \
    static const char *prefix##_last_error(void *ctx)                         \
    {                                                                         \
        const type *c = (const type *)ctx;                                    \
        return c != NULL ? c->err.msg : "";                                   \
    }

/* prefix_init, prefix_fini and prefix_last_error for a context that needs
 * nothing but zeroed memory: calloc, free, and the message of its err. */
#define SKELETON_CONTEXT(prefix, type)                                        \
    static int prefix##_init(void **ctx)                                      \
    {                                                                         \
        type *c = (type *)calloc(1, sizeof *c);                               \
        if (c == NULL)                                                        \
            return IOHW_OUT_OF_MEMORY;                                        \
        *ctx = c;                                                             \
        return IOHW_OK;                                                       \
    }                                                                         \
    static void prefix##_fini(void *ctx)                                      \
    {                                                                         \
        free(ctx);                                                            \
    }                                                                         \
    SKELETON_LAST_ERROR(prefix, type)

/* The one exported symbol: the table for a host of ABI version 1 or later,
 * NULL for an older one. */
#define SKELETON_ENTRY(table)                                                 \
    IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version) \
    {                                                                         \
        return host_abi_version >= 1 ? &(table) : NULL;                       \
    }

#endif
