/*
 * tests/abi/abi_table.c - backends that keep the append-only rules of the
 * ABI (include/iohw/backend.h, specification section 5) from the other side,
 * for tests/test_abi.c.  One source, built twice:
 *
 *   ABI_V1_TABLE       (libiohw_abi_v1_table.so) a backend built against the
 *                      version 1 header: its table is a struct of its own
 *                      holding exactly the version 1 members, so a host that
 *                      reads any member appended later reads past the end of
 *                      this object (AddressSanitizer says so);
 *   ABI_LONGER_TABLE   (libiohw_abi_longer_table.so) a backend built against
 *                      a newer header: its table goes on past last_error with
 *                      members this host does not know, and it reads from the
 *                      problem a member appended after has_bias only when
 *                      struct_size says the host sent it.
 *
 * Both compute y with the oracle (one thread), like the reference backend.
 */
#include <stdlib.h>
#include <string.h>

#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

/* A problem as a newer host would send it: one member appended. */
typedef struct newer_problem {
    iohw_problem v1;
    int32_t appended;           /* absent (0) for a version 1 host */
    int32_t appended_pad;
} newer_problem;

static char message[IOHW_ERROR_MAX];

static const char *abi_last_error(void *ctx)
{
    (void)ctx;
    return message;
}

static int abi_supports(void *ctx, const iohw_problem *p)
{
    (void)ctx;
    if (p == NULL || p->struct_size < IOHW_PROBLEM_SIZE_V1)
        return IOHW_UNSUPPORTED;
#ifdef ABI_LONGER_TABLE
    /* Read an appended member only when the host's struct holds it. */
    const int32_t appended = IOHW_HAS_MEMBER(p, newer_problem, appended)
                             ? ((const newer_problem *)p)->appended : 0;
    if (appended != 0)
        return IOHW_UNSUPPORTED;
#endif
    return IOHW_OK;
}

static int abi_run(void *ctx, const iohw_problem *p, const void *x,
                   const void *w, const void *bias, void *y)
{
    iohw_oracle_result r;
    iohw_error err;
    if (abi_supports(ctx, p) != IOHW_OK)
        return IOHW_INVALID_PROBLEM;
    if (iohw_oracle_run_method(p, x, w, bias, IOHW_ORACLE_FAST, 1, &r, &err) != 0) {
        memcpy(message, err.msg, sizeof message);
        return IOHW_BACKEND_ERROR;
    }
    memcpy(y, r.y, (size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype));
    iohw_oracle_result_free(&r);
    return IOHW_OK;
}

#ifdef ABI_V1_TABLE
/* The version 1 table, member for member, and nothing after it. */
typedef struct table {
    uint32_t abi_version;
    uint32_t struct_size;
    const char *name;
    const char *version;
    int (*init)(void **ctx);
    void (*fini)(void *ctx);
    int (*supports)(void *ctx, const iohw_problem *p);
    int (*run)(void *ctx, const iohw_problem *p, const void *x, const void *w,
               const void *bias, void *y);
    const char *(*last_error)(void *ctx);
} table;
#define NAME "abi_v1_table"
#else
/* A newer table: every member this host knows, then two it does not. */
static int abi_future(void *ctx)
{
    (void)ctx;
    abort(); /* a host must not call what it does not know */
}

typedef struct table {
    iohw_backend known;
    int (*future)(void *ctx);
    uint64_t future_flags;
} table;
#define NAME "abi_longer_table"
#endif

static const table abi_table = {
#ifdef ABI_V1_TABLE
    IOHW_ABI_VERSION, sizeof(table), NAME, "1", NULL, NULL, abi_supports,
    abi_run, abi_last_error,
#else
    {IOHW_ABI_VERSION, sizeof(table), NAME, "1", NULL, NULL, abi_supports,
     abi_run, abi_last_error, NULL, NULL, NULL},
    abi_future, ~(uint64_t)0,
#endif
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    if (host_abi_version < 1)
        return NULL;
    return (const iohw_backend *)(const void *)&abi_table;
}
