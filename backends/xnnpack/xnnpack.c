/*
 * backends/xnnpack/xnnpack.c - XNNPACK's 2-d deconvolution operator behind
 * the iohw backend ABI (libiohw_xnnpack.so).
 *
 * Correspondence (xnn_create_deconvolution2d_nhwc_f32 / _f16):
 *   "output_padding_top/right/bottom/left"  XNNPACK's name for the crop of
 *            the full output, i.e. pad_begin[H], pad_end[W], pad_end[H],
 *            pad_begin[W] (note the clockwise order)
 *   kernel, stride, dilation (1 = dense), groups, Cg, Mg per group
 *   input/output pixel stride   C_in / C_out (dense NHWC)
 *   kernel   [G][Mg][KH][KW][Cg] ("GOHWI"): the case's weight is copied
 *            into it (semantic w[g*Cg + c][m][kh][kw])
 *   bias     [C_out] or NULL
 *   adjustment_height/width (setup)  output_padding
 *   output_min/max  -inf, +inf (no clamping)
 *
 * What it claims: rank 2, data layout NHWC, any weight layout, f32 (and f16
 * when the library creates f16 operators on this CPU), output_padding below
 * the stride (XNNPACK's own limit on the adjustment), every size within
 * uint32.  Anything else is UNSUPPORTED.
 *
 * XNNPACK writes an output whose size it computes itself (its API returns
 * no shape): run() checks that XNNPACK's documented formula, stride *
 * (in - 1) + adjustment + (K - 1) * dilation + 1 - padding_top -
 * padding_bottom per axis, gives the case's shape, and refuses to let it
 * write y otherwise (IOHW_BACKEND_ERROR "XNNPACK returns [..] where [..] is
 * right").
 *
 * XNNPACK may read up to XNN_EXTRA_BYTES past its inputs, so x is copied
 * into a padded buffer (the harness's x may end at a guard page).  The
 * operator runs on the calling thread (no thread pool).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

#ifndef IOHW_XNNPACK_VERSION
#define IOHW_XNNPACK_VERSION "unknown version"
#endif

typedef struct xnnpack_ctx {
    enum xnn_status init_status;  /* of xnn_initialize */
    int f16;                      /* 1 usable, -1 not, 0 not asked yet */
    char f16_why[160];
    iohw_error err;
} xnnpack_ctx;

static const char *status_text(enum xnn_status st)
{
    switch (st) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "xnn_status_uninitialized";
    case xnn_status_invalid_parameter: return "xnn_status_invalid_parameter";
    case xnn_status_invalid_state: return "xnn_status_invalid_state";
    case xnn_status_unsupported_parameter:
        return "xnn_status_unsupported_parameter";
    case xnn_status_unsupported_hardware:
        return "xnn_status_unsupported_hardware";
    case xnn_status_out_of_memory: return "xnn_status_out_of_memory";
    default: return "unknown xnn_status";
    }
}

static int xnnpack_init(void **ctx)
{
    xnnpack_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    c->init_status = xnn_initialize(NULL);
    *ctx = c;
    return IOHW_OK;
}

static void xnnpack_fini(void *ctx)
{
    xnnpack_ctx *c = ctx;
    if (c != NULL && c->init_status == xnn_status_success)
        xnn_deinitialize();
    free(c);
}

static const char *xnnpack_last_error(void *ctx)
{
    xnnpack_ctx *c = ctx;
    return c != NULL ? c->err.msg : "";
}

/* Creates an operator of element size es (4: f32, 2: f16). */
static enum xnn_status create_op(const iohw_problem *p, size_t es,
                                 const void *kernel, const void *bias,
                                 xnn_operator_t *op)
{
    const uint32_t G = (uint32_t)p->groups;
    const size_t Cg = (size_t)(p->in_channels / p->groups);
    const size_t Mg = (size_t)(p->out_channels / p->groups);
    if (es == 4)
        return xnn_create_deconvolution2d_nhwc_f32(
            (uint32_t)p->pad_begin[0], (uint32_t)p->pad_end[1],
            (uint32_t)p->pad_end[0], (uint32_t)p->pad_begin[1],
            (uint32_t)p->kernel[0], (uint32_t)p->kernel[1],
            (uint32_t)p->stride[0], (uint32_t)p->stride[1],
            (uint32_t)p->dilation[0], (uint32_t)p->dilation[1], G, Cg, Mg,
            (size_t)p->in_channels, (size_t)p->out_channels, kernel, bias,
            -INFINITY, INFINITY, 0, op);
    return xnn_create_deconvolution2d_nhwc_f16(
        (uint32_t)p->pad_begin[0], (uint32_t)p->pad_end[1],
        (uint32_t)p->pad_end[0], (uint32_t)p->pad_begin[1],
        (uint32_t)p->kernel[0], (uint32_t)p->kernel[1],
        (uint32_t)p->stride[0], (uint32_t)p->stride[1],
        (uint32_t)p->dilation[0], (uint32_t)p->dilation[1], G, Cg, Mg,
        (size_t)p->in_channels, (size_t)p->out_channels, kernel, bias,
        -INFINITY, INFINITY, 0, op);
}

/* 1 when the library makes f16 deconvolutions here (asked once, with a
 * 1x1 operator). */
static int f16_usable(xnnpack_ctx *c)
{
    if (c->f16 == 0) {
        iohw_problem q;
        xnn_operator_t op = NULL;
        const uint16_t one[1 + XNN_EXTRA_BYTES / 2] = {0x3C00};
        iohw_problem_init(&q);
        q.rank = 2;
        q.in_channels = q.out_channels = 1;
        q.in_size[0] = q.in_size[1] = q.kernel[0] = q.kernel[1] = 1;
        enum xnn_status st = create_op(&q, 2, one, NULL, &op);
        c->f16 = st == xnn_status_success ? 1 : -1;
        snprintf(c->f16_why, sizeof c->f16_why,
                 "XNNPACK makes no f16 deconvolution on this CPU (%s)",
                 status_text(st));
        if (op != NULL)
            xnn_delete_operator(op);
    }
    return c->f16 > 0;
}

/* 0 when the adapter claims p; else -1 with the reason. */
static int claims(xnnpack_ctx *c, const iohw_problem *p, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    if (p->struct_size < sizeof(iohw_problem))
        return iohw_error_set(err, "problem struct_size %u is smaller than "
                              "%zu", (unsigned)p->struct_size,
                              sizeof(iohw_problem));
    if (iohw_problem_validate(p, err) != 0)
        return -1;
    if (c->init_status != xnn_status_success)
        return iohw_error_set(err, "xnn_initialize failed: %s",
                              status_text(c->init_status));
    if (p->rank != 2)
        return iohw_error_set(err, "XNNPACK's deconvolution is 2-d only "
                              "(rank %u)", (unsigned)p->rank);
    if (strcmp(p->data_layout, "NHWC") != 0)
        return iohw_error_set(err, "XNNPACK takes NHWC data only (data "
                              "layout %s)", p->data_layout);
    if (p->dtype == IOHW_F16 && !f16_usable(c))
        return iohw_error_set(err, "%s", c->f16_why);
    if (p->dtype != IOHW_F32 && p->dtype != IOHW_F16)
        return iohw_error_set(err, "XNNPACK has no %s deconvolution",
                              iohw_dtype_name(p->dtype));
    for (int a = 0; a < 2; a++) {
        if (p->output_padding[a] >= p->stride[a])
            return iohw_error_set(err, "XNNPACK's adjustment must be below "
                                  "the stride (axis %c: output_padding %lld, "
                                  "stride %lld)", "HW"[a],
                                  (long long)p->output_padding[a],
                                  (long long)p->stride[a]);
        const int64_t v[5] = {p->kernel[a], p->stride[a], p->dilation[a],
                              p->pad_begin[a], p->pad_end[a]};
        for (int k = 0; k < 5; k++)
            if (v[k] > (int64_t)UINT32_MAX)
                return iohw_error_set(err, "an extent of axis %c does not "
                                      "fit XNNPACK's uint32_t", "HW"[a]);
    }
    if (p->groups > (int64_t)UINT32_MAX)
        return iohw_error_set(err, "groups do not fit XNNPACK's uint32_t");
    return 0;
}

static int xnnpack_supports(void *ctx, const iohw_problem *p)
{
    xnnpack_ctx *c = ctx;
    if (c == NULL || claims(c, p, &c->err) != 0)
        return IOHW_UNSUPPORTED;
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

/* The case's weight as XNNPACK's [G][Mg][KH][KW][Cg], es bytes each,
 * followed by XNN_EXTRA_BYTES of zeros.  NULL when memory runs out. */
static void *pack_kernel(const iohw_problem *p, const iohw_layout_map *wm,
                         size_t es, const void *w)
{
    const int64_t G = p->groups;
    const int64_t Cg = p->in_channels / G;
    const int64_t Mg = p->out_channels / G;
    const int64_t KH = p->kernel[0], KW = p->kernel[1];
    const int64_t sg = wm->canon_stride[0], si = wm->canon_stride[1];
    const int64_t so = wm->canon_stride[2];
    const int64_t sh = wm->canon_stride[3], sw = wm->canon_stride[4];
    unsigned char *k = calloc(1, (size_t)wm->count * es + XNN_EXTRA_BYTES);
    const unsigned char *src = w;
    size_t at = 0;
    if (k == NULL)
        return NULL;
    for (int64_t g = 0; g < G; g++)
        for (int64_t m = 0; m < Mg; m++)
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++)
                    for (int64_t ci = 0; ci < Cg; ci++) {
                        const int64_t off =
                            g * sg + ci * si + m * so + kh * sh + kw * sw;
                        memcpy(k + at, src + (size_t)off * es, es);
                        at += es;
                    }
    return k;
}

/* A copy of n bytes followed by XNN_EXTRA_BYTES of zeros. */
static void *padded_copy(const void *src, size_t n)
{
    unsigned char *d = calloc(1, n + XNN_EXTRA_BYTES);
    if (d != NULL)
        memcpy(d, src, n);
    return d;
}

/* 0 when XNNPACK's output size formula gives p's output shape ([N, C, H,
 * W]); otherwise -1 with both shapes in err. */
static int check_output_shape(const iohw_problem *p, iohw_error *err)
{
    int64_t got[2];
    int same = 1;
    for (int a = 0; a < 2; a++) {
        got[a] = p->stride[a] * (p->in_size[a] - 1) + p->output_padding[a] +
                 (p->kernel[a] - 1) * p->dilation[a] + 1 - p->pad_begin[a] -
                 p->pad_end[a];
        same = same && got[a] == p->out_size[a];
    }
    if (same)
        return 0;
    return iohw_error_set(err, "XNNPACK returns [%lld,%lld,%lld,%lld] where "
                          "[%lld,%lld,%lld,%lld] is right", (long long)p->batch,
                          (long long)p->out_channels, (long long)got[0],
                          (long long)got[1], (long long)p->batch,
                          (long long)p->out_channels, (long long)p->out_size[0],
                          (long long)p->out_size[1]);
}

static int xnnpack_run(void *ctx, const iohw_problem *p, const void *x,
                       const void *w, const void *bias, void *y)
{
    xnnpack_ctx *c = ctx;
    iohw_layout_map wm;
    xnn_operator_t op = NULL;
    enum xnn_status st;
    const char *call = "xnn_create_deconvolution2d_nhwc";
    int rc = IOHW_BACKEND_ERROR;

    /* Test the arguments. */
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    if (claims(c, p, &c->err) != 0)
        return p != NULL && p->struct_size >= sizeof(iohw_problem) &&
                       iohw_problem_validate(p, NULL) == 0
                   ? IOHW_UNSUPPORTED
                   : IOHW_INVALID_PROBLEM;
    if (x == NULL || w == NULL || y == NULL || (p->has_bias && bias == NULL)) {
        iohw_error_set(&c->err, "run: %s is NULL",
                       x == NULL ? "x" : w == NULL ? "w"
                                     : y == NULL   ? "y" : "bias");
        return IOHW_INVALID_PROBLEM;
    }
    if (iohw_layout_weight_map(p, &wm, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (check_output_shape(p, &c->err) != 0)
        return IOHW_BACKEND_ERROR;

    /* Inputs in XNNPACK's terms, each with its extra bytes. */
    const size_t es = iohw_dtype_size(p->dtype);
    void *kernel = pack_kernel(p, &wm, es, w);
    void *xcopy = padded_copy(x, (size_t)iohw_problem_x_count(p) * es);
    void *bcopy = p->has_bias ? padded_copy(bias, (size_t)p->out_channels * es)
                              : NULL;
    if (kernel == NULL || xcopy == NULL || (p->has_bias && bcopy == NULL)) {
        iohw_error_set(&c->err, "out of memory copying the inputs");
        rc = IOHW_OUT_OF_MEMORY;
        goto done;
    }

    /* Create, set up, run. */
    st = create_op(p, es, kernel, bcopy, &op);
    if (st == xnn_status_success) {
        call = "xnn_setup_deconvolution2d_nhwc";
        if (es == 4)
            st = xnn_setup_deconvolution2d_nhwc_f32(
                op, (size_t)p->batch, (size_t)p->in_size[0],
                (size_t)p->in_size[1], (uint32_t)p->output_padding[0],
                (uint32_t)p->output_padding[1], xcopy, y, NULL);
        else
            st = xnn_setup_deconvolution2d_nhwc_f16(
                op, (size_t)p->batch, (size_t)p->in_size[0],
                (size_t)p->in_size[1], (uint32_t)p->output_padding[0],
                (uint32_t)p->output_padding[1], xcopy, y, NULL);
    }
    if (st == xnn_status_success) {
        call = "xnn_run_operator";
        st = xnn_run_operator(op, NULL);
    }
    if (st != xnn_status_success) {
        iohw_error_set(&c->err, "XNNPACK: %s_%s: %s", call,
                       es == 4 ? "f32" : "f16", status_text(st));
        rc = st == xnn_status_out_of_memory ? IOHW_OUT_OF_MEMORY
                                            : IOHW_BACKEND_ERROR;
        goto done;
    }
    c->err.msg[0] = '\0';
    rc = IOHW_OK;
done:
    if (op != NULL)
        xnn_delete_operator(op);
    free(kernel);
    free(xcopy);
    free(bcopy);
    return rc;
}

static const iohw_backend xnnpack_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "xnnpack",
    .version = "XNNPACK " IOHW_XNNPACK_VERSION
               " (deconvolution2d_nhwc, operator API)",
    .init = xnnpack_init,
    .fini = xnnpack_fini,
    .supports = xnnpack_supports,
    .run = xnnpack_run,
    .last_error = xnnpack_last_error,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    return host_abi_version >= 1 ? &xnnpack_table : NULL;
}
