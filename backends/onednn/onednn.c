/*
 * backends/onednn/onednn.c - oneDNN's deconvolution forward behind the iohw
 * backend ABI (libiohw_onednn.so).
 *
 * What it claims: every valid problem for which oneDNN creates a
 * deconvolution forward primitive descriptor on this CPU - ranks 1 to 3,
 * groups, dilation, asymmetric padding, bias, any data or weight layout
 * (described by strides, see onednn_md.c), output_padding below the stride
 * (oneDNN infers it from the dst size and refuses larger values), and the
 * data types the CPU and library implement (f32; bf16 and f16 only where
 * the primitive descriptor can be created; never f64).  supports() asks
 * oneDNN by creating the primitive descriptor, so what is claimed is what
 * the library itself accepts.
 *
 * run() does what a real user does: the primitive is created from "any"
 * descriptors, so oneDNN picks its own (possibly blocked) formats, and the
 * harness's tensors are reordered into those formats and the result back
 * into y.  Where oneDNN's choice equals the harness's layout the buffers are
 * used directly (x, w and bias are only read).
 *
 * Threads: with OpenMP (Debian's oneDNN runtime) the calling thread runs
 * oneDNN alone; the harness parallelises over processes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#ifdef IOHW_ONEDNN_OPENMP
#include <omp.h>
#endif

#include "backends/onednn/onednn.h"
#include "backends/skeleton_check.h"
#include "iohw/backend.h"
#include "oracle/error.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

#define ONEDNN_STR_(x) #x
#define ONEDNN_STR(x) ONEDNN_STR_(x)
#define ONEDNN_VERSION_TEXT                                                  \
    "oneDNN " ONEDNN_STR(DNNL_VERSION_MAJOR) "." ONEDNN_STR(                 \
        DNNL_VERSION_MINOR) "." ONEDNN_STR(DNNL_VERSION_PATCH)


static void onednn_fini(void *ctx)
{
    onednn_ctx *c = ctx;
    if (c == NULL)
        return;
    if (c->stream != NULL)
        dnnl_stream_destroy(c->stream);
    if (c->engine != NULL)
        dnnl_engine_destroy(c->engine);
    free(c);
}

static int onednn_init(void **ctx)
{
    onednn_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    if (dnnl_engine_create(&c->engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&c->stream, c->engine,
                           dnnl_stream_default_flags) != dnnl_success) {
        onednn_fini(c);
        return IOHW_BACKEND_ERROR;
    }
    *ctx = c;
    return IOHW_OK;
}

SKELETON_LAST_ERROR(onednn, onednn_ctx)

static int onednn_supports(void *ctx, const iohw_problem *p)
{
    onednn_ctx *c = ctx;
    onednn_mds m;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t attr = NULL;

    if (c == NULL)
        return IOHW_UNSUPPORTED;
    if (skeleton_check(p, &c->err) != 0 || iohw__onednn_mds(p, &m, &c->err) != 0)
        return IOHW_UNSUPPORTED;
    if (iohw_problem_is_backward(p))
        return iohw__onednn_bwd_supports(c, p);
    if (iohw_problem_is_quant(p) &&
        (iohw__onednn_quant_refuse(p, &c->err) != 0 ||
         iohw__onednn_quant_attr(p, NULL, &attr, &c->err) != dnnl_success))
        return IOHW_UNSUPPORTED;
    dnnl_status_t st = iohw__onednn_pd(p, &m, attr, c->engine, &pd, &c->err);
    if (attr != NULL)
        dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success)
        return IOHW_UNSUPPORTED;
    dnnl_primitive_desc_destroy(pd);
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

int iohw__onednn_fail(iohw_error *err, const char *call, dnnl_status_t st)
{
    return iohw_error_set(err, "oneDNN: %s: %s", call, dnnl_status2str(st));
}

/* Copies memory `from` into memory `to` (same dims, any two formats). */
int iohw__onednn_reorder(onednn_ctx *c, dnnl_memory_t from, dnnl_memory_t to)
{
    const dnnl_memory_desc_t *fm, *tm;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t r = NULL;
    dnnl_status_t st;
    int rc = -1;

    if ((st = dnnl_memory_get_memory_desc(from, &fm)) != dnnl_success ||
        (st = dnnl_memory_get_memory_desc(to, &tm)) != dnnl_success) {
        iohw__onednn_fail(&c->err, "dnnl_memory_get_memory_desc", st);
        return -1;
    }
    st = dnnl_reorder_primitive_desc_create(&rpd, fm, c->engine, tm,
                                            c->engine, NULL);
    if (st != dnnl_success) {
        iohw__onednn_fail(&c->err, "dnnl_reorder_primitive_desc_create", st);
        return -1;
    }
    if ((st = dnnl_primitive_create(&r, rpd)) != dnnl_success) {
        iohw__onednn_fail(&c->err, "dnnl_primitive_create (reorder)", st);
        goto done;
    }
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if ((st = dnnl_primitive_execute(r, c->stream, 2, args)) != dnnl_success ||
        (st = dnnl_stream_wait(c->stream)) != dnnl_success) {
        iohw__onednn_fail(&c->err, "reorder execution", st);
        goto done;
    }
    rc = 0;
done:
    if (r != NULL)
        dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    return rc;
}

int iohw__onednn_bind(onednn_ctx *c, onednn_run *r, int t,
                      const dnnl_memory_desc_t *user,
                      const dnnl_memory_desc_t *want, const void *buf,
                      int input)
{
    /* oneDNN's handle is not const; inputs are only read through it. */
    void *handle = (void *)(uintptr_t)buf;
    dnnl_status_t st = dnnl_memory_create(&r->user[t], user, c->engine,
                                          handle);
    if (st != dnnl_success)
        return iohw__onednn_fail(&c->err, "dnnl_memory_create (user)", st);
    if (dnnl_memory_desc_equal(user, want)) {
        r->prim[t] = r->user[t];
        return 0;
    }
    st = dnnl_memory_create(&r->prim[t], want, c->engine,
                            DNNL_MEMORY_ALLOCATE);
    if (st != dnnl_success)
        return iohw__onednn_fail(&c->err, "dnnl_memory_create (primitive)", st);
    return input ? iohw__onednn_reorder(c, r->user[t], r->prim[t]) : 0;
}

void iohw__onednn_run_release(onednn_run *r)
{
    for (int t = 0; t < 4; t++) {
        if (r->prim[t] != NULL && r->prim[t] != r->user[t])
            dnnl_memory_destroy(r->prim[t]);
        if (r->user[t] != NULL)
            dnnl_memory_destroy(r->user[t]);
    }
    if (r->prim_deconv != NULL)
        dnnl_primitive_destroy(r->prim_deconv);
    if (r->pd != NULL)
        dnnl_primitive_desc_destroy(r->pd);
    if (r->attr != NULL)
        dnnl_primitive_attr_destroy(r->attr);
}

/* run() and run_quant(): requant is NULL for a float problem. */
static int run_any(void *ctx, const iohw_problem *p, const void *x,
                   const void *w, const void *bias, const void *requant,
                   void *y)
{
    onednn_ctx *c = ctx;
    onednn_mds m;
    onednn_run r;
    dnnl_status_t st;
    int rc = IOHW_BACKEND_ERROR;

    /* Test the arguments. */
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    if (skeleton_check(p, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (iohw_problem_is_backward(p)) {
        iohw_error_set(&c->err, "run: the problem is %s (run_bwd_data or "
                       "run_bwd_weights computes it)", iohw_direction_name(p));
        return IOHW_INVALID_PROBLEM;
    }
    if (x == NULL || w == NULL || y == NULL || (p->has_bias && bias == NULL)) {
        iohw_error_set(&c->err, "run: %s is NULL",
                       x == NULL ? "x" : w == NULL ? "w"
                                     : y == NULL   ? "y" : "bias");
        return IOHW_INVALID_PROBLEM;
    }
    if (iohw_problem_is_quant(p) && requant == NULL &&
        iohw_problem_y_dtype(p) != IOHW_S32) {
        iohw_error_set(&c->err, "run_quant: requant is NULL");
        return IOHW_INVALID_PROBLEM;
    }
#ifdef IOHW_ONEDNN_OPENMP
    omp_set_num_threads(1);
#endif

    /* The primitive, from oneDNN's own choice of formats. */
    memset(&r, 0, sizeof r);
    if (iohw__onednn_mds(p, &m, &c->err) != 0)
        goto done;
    if (iohw_problem_is_quant(p) &&
        (iohw__onednn_quant_refuse(p, &c->err) != 0 ||
         iohw__onednn_quant_attr(p, requant, &r.attr, &c->err) != dnnl_success))
        goto done;
    if (iohw__onednn_pd(p, &m, r.attr, c->engine, &r.pd, &c->err) != dnnl_success)
        goto done;
    if ((st = dnnl_primitive_create(&r.prim_deconv, r.pd)) != dnnl_success) {
        iohw__onednn_fail(&c->err, "dnnl_primitive_create (deconvolution)", st);
        goto done;
    }

    /* Inputs reordered in, the output bound. */
    const dnnl_memory_desc_t *want_x =
        dnnl_primitive_desc_query_md(r.pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *want_w =
        dnnl_primitive_desc_query_md(r.pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *want_b =
        dnnl_primitive_desc_query_md(r.pd, dnnl_query_weights_md, 1);
    const dnnl_memory_desc_t *want_y =
        dnnl_primitive_desc_query_md(r.pd, dnnl_query_dst_md, 0);
    if (iohw__onednn_check_dst(p, want_y, &c->err) != 0)
        goto done;
    if (iohw__onednn_bind(c, &r, T_X, &m.x, want_x, x, 1) != 0 ||
        iohw__onednn_bind(c, &r, T_W, &m.w, want_w, w, 1) != 0 ||
        (p->has_bias && iohw__onednn_bind(c, &r, T_BIAS, &m.bias, want_b, bias, 1) != 0) ||
        iohw__onednn_bind(c, &r, T_Y, &m.y, want_y, y, 0) != 0)
        goto done;

    /* Execute, then reorder the result into y when needed. */
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, r.prim[T_X]},
        {DNNL_ARG_WEIGHTS, r.prim[T_W]},
        {DNNL_ARG_DST, r.prim[T_Y]},
        {DNNL_ARG_BIAS, r.prim[T_BIAS]},
    };
    st = dnnl_primitive_execute(r.prim_deconv, c->stream,
                                p->has_bias ? 4 : 3, args);
    if (st == dnnl_success)
        st = dnnl_stream_wait(c->stream);
    if (st != dnnl_success) {
        iohw__onednn_fail(&c->err, "deconvolution execution", st);
        goto done;
    }
    if (r.prim[T_Y] != r.user[T_Y] && iohw__onednn_reorder(c, r.prim[T_Y], r.user[T_Y]) != 0)
        goto done;
    c->err.msg[0] = '\0';
    rc = IOHW_OK;
done:
    iohw__onednn_run_release(&r);
    return rc;
}

static int onednn_run_case(void *ctx, const iohw_problem *p, const void *x,
                           const void *w, const void *bias, void *y)
{
    onednn_ctx *c = ctx;
    if (c != NULL && p != NULL && iohw_problem_is_quant(p)) {
        iohw_error_set(&c->err, "run: a quantized problem (dtype %s) goes to "
                       "run_quant", iohw_dtype_name(p->dtype));
        return IOHW_INVALID_PROBLEM;
    }
    return run_any(ctx, p, x, w, bias, NULL, y);
}

/* Quantized problems (specification section 11) as oneDNN 2.6's int8
 * deconvolution states them (onednn_quant.c). */
static int onednn_run_quant(void *ctx, const iohw_problem *p, const void *x,
                            const void *w, const void *bias,
                            const void *requant, void *y)
{
    onednn_ctx *c = ctx;
    if (c != NULL && p != NULL && !iohw_problem_is_quant(p)) {
        iohw_error_set(&c->err, "run_quant: dtype %s is not quantized",
                       iohw_dtype_name(p->dtype));
        return IOHW_INVALID_PROBLEM;
    }
    return run_any(ctx, p, x, w, bias, requant, y);
}

/* The version, with the effective ISA: the kernels oneDNN picks, which the
 * CPU and ONEDNN_MAX_CPU_ISA decide together.  "vnni" is in the text
 * exactly when that ISA has VNNI (avx512_core_vnni and above, avx2_vnni),
 * so that a baseline entry for a kernel without it can say `version!~vnni`
 * (docs/CONFORMANCE.md O5, O6). */
static char onednn_version[192];

static void describe_version(void)
{
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    const char *name = dnnl_cpu_isa2str(isa);
    if (name == NULL)
        name = "unknown";
    if (strncmp(name, "cpu_isa_", 8) == 0)
        name += 8;
    int vnni = (isa & dnnl_cpu_isa_avx512_core_vnni) == dnnl_cpu_isa_avx512_core_vnni
               || (isa & dnnl_cpu_isa_avx2_vnni) == dnnl_cpu_isa_avx2_vnni;
    snprintf(onednn_version, sizeof onednn_version,
             "%s (deconvolution forward, backward data and weights, C API; "
             "ISA %s%s)", ONEDNN_VERSION_TEXT, name,
             vnni && strstr(name, "vnni") == NULL ? "+vnni" : "");
}

static const iohw_backend onednn_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "onednn",
    .version = onednn_version,
    .init = onednn_init,
    .fini = onednn_fini,
    .supports = onednn_supports,
    .run = onednn_run_case,
    .last_error = onednn_last_error,
    .run_quant = onednn_run_quant,
    .run_bwd_data = iohw__onednn_run_bwd_data,
    .run_bwd_weights = iohw__onednn_run_bwd_weights,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    if (host_abi_version < 1)
        return NULL;
    describe_version();
    return &onednn_table;
}
