/*
 * backends/faults/fault_common.c - the backend side of every seeded-fault
 * backend: the ABI table, the context, and run(), which strings together
 * the fault's hooks (fault_common.h):
 *
 *   before  -> may return an error, crash or hang;
 *   compute -> the fault's own computation, or the model (fault_model.c)
 *              perturbed by the fault's perturb hook;
 *   store   -> the fault's own copy into y, or a plain copy.
 *
 * Every fault claims every valid problem it computes: a seeded fault is a
 * backend that believes it is right.  run_quant() hands a quantized
 * problem (fault_quant.h) to the fault's compute_quant hook; a fault
 * without one claims no quantized problem.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/skeleton.h"
#include "fault_common.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

typedef struct fault_ctx {
    iohw_error err;
} fault_ctx;

SKELETON_CONTEXT(fault, fault_ctx)

static int fault_check(const iohw_problem *p, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (p->struct_size < sizeof(iohw_problem))
        return iohw_error_set(err, "problem struct_size %u is too small",
                              (unsigned)p->struct_size);
    if (iohw_problem_validate(p, err) != 0)
        return -1;
    if (iohw_problem_is_quant(p))
        return iohw_error_set(err, "the seeded faults compute float problems "
                              "only (dtype %d is quantized)", (int)p->dtype);
    return 0;
}

/* 1 for a fault that has only a quantized computation. */
static int quant_only(void)
{
    const fault_spec *s = &iohw__fault_spec;
    return s->compute_quant != NULL && s->before == NULL && s->perturb == NULL &&
           s->compute == NULL;
}

static int fault_supports(void *ctx, const iohw_problem *p)
{
    fault_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    if (iohw__fault_is_quant(p)) {
        if (iohw__fault_spec.compute_quant == NULL) {
            iohw_error_set(err, "this fault computes no quantized problem");
            return IOHW_UNSUPPORTED;
        }
        if (iohw__fault_quant_check(p, err) != 0)
            return IOHW_UNSUPPORTED;
        if (iohw__fault_spec.claims != NULL && iohw__fault_spec.claims(p, err) != 0)
            return IOHW_UNSUPPORTED;
        return IOHW_OK;
    }
    if (quant_only()) {
        iohw_error_set(err, "this fault computes only quantized problems");
        return IOHW_UNSUPPORTED;
    }
    if (fault_check(p, err) != 0)
        return IOHW_UNSUPPORTED;
    if (iohw__fault_spec.claims != NULL && iohw__fault_spec.claims(p, err) != 0)
        return IOHW_UNSUPPORTED;
    return IOHW_OK;
}

/* The model, perturbed by the fault, into buf (layout and dtype). */
static int model_compute(const iohw_problem *p, const void *x, const void *w,
                         const void *bias, void *buf, iohw_error *err)
{
    fault_work fw;
    double *yc = NULL;
    int rc = -1;

    if (iohw__fault_work_init(&fw, p, x, w, bias, err) != 0)
        return -1;
    if (iohw__fault_spec.perturb != NULL &&
        iohw__fault_spec.perturb(&fw, err) != 0)
        goto done;
    if (iohw__fault_model(&fw, &yc, err) != 0)
        goto done;
    rc = iohw__fault_store_canonical(p, yc, buf, err);
done:
    free(yc);
    iohw__fault_work_free(&fw);
    return rc;
}

static int fault_run(void *ctx, const iohw_problem *p, const void *x,
                     const void *w, const void *bias, void *y)
{
    fault_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;

    /* Test the arguments. */
    if (fault_check(p, err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (skeleton_null_tensor(p, x, w, bias, y) != NULL) {
        iohw_error_set(err, "run: a tensor pointer is NULL");
        return IOHW_INVALID_PROBLEM;
    }
    if (iohw__fault_spec.before != NULL) {
        const int status = iohw__fault_spec.before(p, err);
        if (status != IOHW_OK)
            return status;
    }

    /* Compute into a scratch buffer, then hand it over. */
    const size_t bytes =
        (size_t)iohw__fault_y_count(p) * iohw__fault_elem_size(p);
    void *buf = malloc(bytes);
    if (buf == NULL) {
        iohw_error_set(err, "run: out of memory (%zu bytes)", bytes);
        return IOHW_OUT_OF_MEMORY;
    }
    const int rc = iohw__fault_spec.compute != NULL
        ? iohw__fault_spec.compute(p, x, w, p->has_bias ? bias : NULL, buf, err)
        : model_compute(p, x, w, p->has_bias ? bias : NULL, buf, err);
    if (rc != 0) {
        free(buf);
        return IOHW_BACKEND_ERROR;
    }
    if (iohw__fault_spec.store != NULL)
        iohw__fault_spec.store(p, buf, y, x);
    else
        memcpy(y, buf, bytes);
    free(buf);
    if (err != NULL)
        err->msg[0] = '\0';
    return IOHW_OK;
}

static int fault_run_quant(void *ctx, const iohw_problem *p, const void *x,
                           const void *w, const void *bias, const void *requant,
                           void *y)
{
    fault_ctx *c = ctx;
    iohw_error *err = c != NULL ? &c->err : NULL;
    fault_qwork fw;

    if (iohw__fault_spec.compute_quant == NULL) {
        iohw_error_set(err, "this fault computes no quantized problem");
        return IOHW_UNSUPPORTED;
    }
    if (p == NULL || x == NULL || w == NULL || y == NULL ||
        (p->has_bias && bias == NULL)) {
        iohw_error_set(err, "run_quant: the problem or a tensor pointer is NULL");
        return IOHW_INVALID_PROBLEM;
    }
    if (iohw__fault_qwork_init(&fw, p, x, w, bias, requant, err) != 0)
        return IOHW_INVALID_PROBLEM;
    void *buf = malloc((size_t)fw.ny * fw.y_size);
    int status = IOHW_OK;
    if (buf == NULL) {
        iohw_error_set(err, "run_quant: out of memory");
        status = IOHW_OUT_OF_MEMORY;
    } else if (iohw__fault_spec.compute_quant(&fw, buf, err) != 0 ||
               iohw__fault_qstore(&fw, buf, y, err) != 0) {
        status = IOHW_BACKEND_ERROR;
    } else if (err != NULL) {
        err->msg[0] = '\0';
    }
    free(buf);
    iohw__fault_qwork_free(&fw);
    return status;
}

/* The table; a fault that computes quantized problems also has run_quant
 * (a float fault has none: the host says UNSUPPORTED without asking). */
#define FAULT_TABLE_V1                                                        \
    .abi_version = IOHW_ABI_VERSION, .struct_size = sizeof(iohw_backend),     \
    .name = iohw__fault_name, .version = iohw__fault_about,                   \
    .init = fault_init, .fini = fault_fini, .supports = fault_supports,       \
    .run = fault_run, .last_error = fault_last_error

static const iohw_backend fault_table = {FAULT_TABLE_V1};
static const iohw_backend fault_table_quant = {FAULT_TABLE_V1,
                                               .run_quant = fault_run_quant};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    if (host_abi_version < 1)
        return NULL;
    return iohw__fault_spec.compute_quant != NULL ? &fault_table_quant : &fault_table;
}

void iohw__fault_sleep_forever(void)
{
    for (;;) {
        struct timespec t = {1, 0};
        nanosleep(&t, NULL);
    }
}
