/*
 * backends/exec/exec.c - a backend that runs an external program per case
 * (libiohw_exec.so), exchanging HDF5 files with it.  The protocol is
 * docs/EXEC_PROTOCOL.md; in short, with PROGRAM the words of the
 * environment variable IOHW_EXEC_COMMAND (read by init):
 *
 *   PROGRAM --supports IN.h5 OUT.h5   asked once per problem class: exit 0
 *                                     and no attribute `unsupported` in
 *                                     OUT.h5 (or no OUT.h5) = claimed
 *   PROGRAM IN.h5 OUT.h5              per case: OUT.h5 gets y
 *
 * A problem class is what a program's support usually depends on: rank,
 * dtype, both layouts, bias, grouping, and per axis whether stride,
 * dilation, padding, asymmetric padding and output_padding (within and
 * beyond max(stride, dilation)) are used.  The answers are cached in the
 * context (the last CLASS_MAX classes).
 *
 * A query fails with IOHW_BACKEND_ERROR, not IOHW_UNSUPPORTED, when the
 * program exits non-zero, is killed or writes a malformed OUT.h5: a query
 * that cannot be answered is not a refusal (iohw run makes the case ERROR).
 *
 * A run fails with IOHW_BACKEND_ERROR when the program exits non-zero, is
 * killed, writes no OUT.h5 or a malformed one (the message has the tail of
 * its output); it returns IOHW_UNSUPPORTED when the program answers
 * `unsupported` for a case it claimed in the query (iohw run counts that as
 * an error of the backend).
 *
 * The files live in a private directory made by init (mkdtemp in $TMPDIR or
 * /tmp) and removed by fini; nothing is global, so each harness worker has
 * its own.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/exec/exec.h"
#include "iohw/backend.h"
#include "oracle/error.h"
#include "oracle/problem.h"

#define CLASS_MAX 64

/* The class of a problem and the program's answer. */
typedef struct exec_class {
    uint32_t rank;
    iohw_dtype dtype;
    int32_t has_bias;
    uint32_t flags;
    char data_layout[16];
    char weight_layout[16];
    int claimed;
    int failed;             /* the query itself failed (not a refusal) */
    char why[400];
} exec_class;

typedef struct exec_ctx {
    exec_cmd cmd;
    int cmd_ok;
    char cmd_why[256];
    char dir[PATH_MAX];
    char in[PATH_MAX + 16];
    char out[PATH_MAX + 16];
    exec_class classes[CLASS_MAX];
    int nclasses;
    int next;                /* the slot to replace when full */
    iohw_error err;
} exec_ctx;

static int exec_init(void **ctx)
{
    exec_ctx *c = calloc(1, sizeof *c);
    iohw_error e;
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;

    /* The command; without one every problem is refused (with why). */
    c->cmd_ok = iohw__exec_cmd_parse(getenv("IOHW_EXEC_COMMAND"), &c->cmd,
                                     &e) == 0;
    if (!c->cmd_ok)
        snprintf(c->cmd_why, sizeof c->cmd_why, "%.250s", e.msg);

    /* The private directory. */
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(c->dir, sizeof c->dir, "%s/iohw-exec-XXXXXX", tmp);
    if (mkdtemp(c->dir) == NULL) {
        iohw__exec_cmd_free(&c->cmd);
        free(c);
        return IOHW_BACKEND_ERROR;
    }
    snprintf(c->in, sizeof c->in, "%s/IN.h5", c->dir);
    snprintf(c->out, sizeof c->out, "%s/OUT.h5", c->dir);
    *ctx = c;
    return IOHW_OK;
}

static void exec_fini(void *ctx)
{
    exec_ctx *c = ctx;
    if (c == NULL)
        return;
    unlink(c->in);
    unlink(c->out);
    rmdir(c->dir);
    iohw__exec_cmd_free(&c->cmd);
    free(c);
}

static const char *exec_last_error(void *ctx)
{
    exec_ctx *c = ctx;
    return c != NULL ? c->err.msg : "";
}

/* 0 when the problem is complete and valid. */
static int exec_check(const iohw_problem *p, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (p->struct_size < sizeof(iohw_problem))
        return iohw_error_set(err, "problem struct_size %u is smaller than "
                              "%zu", (unsigned)p->struct_size,
                              sizeof(iohw_problem));
    return iohw_problem_validate(p, err);
}

/* The class of a validated problem (its answer not filled in). */
static void class_of(const iohw_problem *p, exec_class *k)
{
    memset(k, 0, sizeof *k);
    k->rank = p->rank;
    k->dtype = p->dtype;
    k->has_bias = p->has_bias;
    memcpy(k->data_layout, p->data_layout, sizeof k->data_layout);
    memcpy(k->weight_layout, p->weight_layout, sizeof k->weight_layout);
    k->flags = p->groups > 1;
    for (int a = 0; a < (int)p->rank; a++) {
        const int64_t lim = p->stride[a] > p->dilation[a] ? p->stride[a]
                                                          : p->dilation[a];
        const uint32_t bits =
            (uint32_t)(p->stride[a] > 1) |
            (uint32_t)(p->dilation[a] > 1) << 1 |
            (uint32_t)(p->pad_begin[a] > 0 || p->pad_end[a] > 0) << 2 |
            (uint32_t)(p->pad_begin[a] != p->pad_end[a]) << 3 |
            (uint32_t)(p->output_padding[a] > 0) << 4 |
            (uint32_t)(p->output_padding[a] >= lim) << 5;
        k->flags |= bits << (1 + 6 * a);
    }
}

static int same_class(const exec_class *a, const exec_class *b)
{
    return a->rank == b->rank && a->dtype == b->dtype &&
           a->has_bias == b->has_bias && a->flags == b->flags &&
           strcmp(a->data_layout, b->data_layout) == 0 &&
           strcmp(a->weight_layout, b->weight_layout) == 0;
}

/* Asks the program about the problem's class (once). */
static const exec_class *ask(exec_ctx *c, const iohw_problem *p)
{
    exec_class k;
    class_of(p, &k);
    for (int i = 0; i < c->nclasses; i++)
        if (same_class(&c->classes[i], &k))
            return &c->classes[i];

    /* The query: zeros for the inputs. */
    iohw_error e;
    const char *const extra[] = {"--supports", c->in, c->out, NULL};
    unlink(c->out);
    k.failed = 1;
    if (iohw__exec_write_input(c->in, p, NULL, NULL, NULL, &e) != 0) {
        snprintf(k.why, sizeof k.why, "cannot write the query: %.360s", e.msg);
    } else if (iohw__exec_spawn(&c->cmd, extra, &e) != 0) {
        snprintf(k.why, sizeof k.why, "the --supports query failed: %.360s",
                 e.msg);
    } else {
        int rc = iohw__exec_read_output(c->out, p, 0, NULL, &e);
        k.claimed = rc == 0;
        k.failed = rc < 0;
        if (rc != 0)
            snprintf(k.why, sizeof k.why, "%s%.360s", rc < 0 ? "the --supports "
                     "query's answer: " : "", e.msg);
    }
    unlink(c->in);
    unlink(c->out);

    /* Remember it. */
    int slot;
    if (c->nclasses < CLASS_MAX) {
        slot = c->nclasses++;
    } else {
        slot = c->next;
        c->next = (c->next + 1) % CLASS_MAX;
    }
    c->classes[slot] = k;
    return &c->classes[slot];
}

static int exec_supports(void *ctx, const iohw_problem *p)
{
    exec_ctx *c = ctx;
    if (c == NULL)
        return IOHW_UNSUPPORTED;
    if (!c->cmd_ok) {
        iohw_error_set(&c->err, "%s", c->cmd_why);
        return IOHW_BACKEND_ERROR;
    }
    if (exec_check(p, &c->err) != 0)
        return IOHW_UNSUPPORTED;
    const exec_class *k = ask(c, p);
    if (!k->claimed) {
        iohw_error_set(&c->err, "%s", k->why);
        return k->failed ? IOHW_BACKEND_ERROR : IOHW_UNSUPPORTED;
    }
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

static int exec_run(void *ctx, const iohw_problem *p, const void *x,
                    const void *w, const void *bias, void *y)
{
    exec_ctx *c = ctx;
    const char *const extra[] = {c != NULL ? c->in : NULL,
                                 c != NULL ? c->out : NULL, NULL};
    int rc = IOHW_BACKEND_ERROR;

    /* Test the arguments. */
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    if (!c->cmd_ok) {
        iohw_error_set(&c->err, "%s", c->cmd_why);
        return IOHW_UNSUPPORTED;
    }
    if (exec_check(p, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (x == NULL || w == NULL || y == NULL || (p->has_bias && bias == NULL)) {
        iohw_error_set(&c->err, "run: %s is NULL",
                       x == NULL ? "x" : w == NULL ? "w"
                                     : y == NULL   ? "y" : "bias");
        return IOHW_INVALID_PROBLEM;
    }

    /* IN.h5, the program, OUT.h5. */
    unlink(c->out);
    if (iohw__exec_write_input(c->in, p, x, w, bias, &c->err) != 0) {
        iohw_error_prefix(&c->err, "exec: writing the input");
        goto done;
    }
    if (iohw__exec_spawn(&c->cmd, extra, &c->err) != 0)
        goto done;
    int got = iohw__exec_read_output(c->out, p, 1, y, &c->err);
    if (got != 0) {
        rc = got > 0 ? IOHW_UNSUPPORTED : IOHW_BACKEND_ERROR;
        goto done;
    }
    c->err.msg[0] = '\0';
    rc = IOHW_OK;
done:
    unlink(c->in);
    unlink(c->out);
    return rc;
}

static const iohw_backend exec_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "exec",
    .version = "exec protocol 1 (IOHW_EXEC_COMMAND; docs/EXEC_PROTOCOL.md)",
    .init = exec_init,
    .fini = exec_fini,
    .supports = exec_supports,
    .run = exec_run,
    .last_error = exec_last_error,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    return host_abi_version >= 1 ? &exec_table : NULL;
}
