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
 * Quantized (run_quant, specification section 11): xnn_create_
 * deconvolution2d_nhwc_qs8 (s8 x, w, y; no kernel zero point) and _qu8 (u8
 * x, w, y; zp_w), same geometry and kernel layout, bias int32, input_scale
 * s_x, kernel_scale s_w (one), output_scale s_y, output range y's whole
 * type.  XNNPACK computes M = s_x * s_w / s_y in float and requantizes
 * in float with round-to-nearest-even, then adds zp_y: it claims
 * round=half_even, m=scales, one M, and refuses s32 y, per-channel M, the
 * fixed form, other roundings and mixed types.  It is exact where section
 * 11.2's binary32 bounds hold; beyond them a tie may differ by one.
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

#include "backends/skeleton_check.h"
#include "iohw/backend.h"
#include "oracle/dtype.h"
#include "oracle/error.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

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

SKELETON_LAST_ERROR(xnnpack, xnnpack_ctx)

/* Creates an f32 (es 4) or f16 (es 2) operator. */
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

/* Creates a qs8 or qu8 operator (by p's dtype) with kernel scale s_w; the
 * output range is y's whole type (saturation, no further clamp). */
static enum xnn_status create_quant_op(const iohw_problem *p, float s_w,
                                       const void *kernel,
                                       const int32_t *bias, xnn_operator_t *op)
{
    const uint32_t G = (uint32_t)p->groups;
    const size_t Cg = (size_t)(p->in_channels / p->groups);
    const size_t Mg = (size_t)(p->out_channels / p->groups);
    if (p->dtype == IOHW_S8)
        return xnn_create_deconvolution2d_nhwc_qs8(
            (uint32_t)p->pad_begin[0], (uint32_t)p->pad_end[1],
            (uint32_t)p->pad_end[0], (uint32_t)p->pad_begin[1],
            (uint32_t)p->kernel[0], (uint32_t)p->kernel[1],
            (uint32_t)p->stride[0], (uint32_t)p->stride[1],
            (uint32_t)p->dilation[0], (uint32_t)p->dilation[1], G, Cg, Mg,
            (size_t)p->in_channels, (size_t)p->out_channels,
            (int8_t)p->zp_x, p->s_x, s_w, kernel, bias, (int8_t)p->zp_y,
            p->s_y, INT8_MIN, INT8_MAX, 0, op);
    return xnn_create_deconvolution2d_nhwc_qu8(
        (uint32_t)p->pad_begin[0], (uint32_t)p->pad_end[1],
        (uint32_t)p->pad_end[0], (uint32_t)p->pad_begin[1],
        (uint32_t)p->kernel[0], (uint32_t)p->kernel[1],
        (uint32_t)p->stride[0], (uint32_t)p->stride[1],
        (uint32_t)p->dilation[0], (uint32_t)p->dilation[1], G, Cg, Mg,
        (size_t)p->in_channels, (size_t)p->out_channels, (uint8_t)p->zp_x,
        p->s_x, (uint8_t)p->zp_w, s_w, kernel, bias, (uint8_t)p->zp_y,
        p->s_y, 0, UINT8_MAX, 0, op);
}

/* Sets op up on x and y (element size es; 1: quantized). */
static enum xnn_status setup_op(const iohw_problem *p, size_t es,
                                xnn_operator_t op, const void *x, void *y)
{
    const size_t n = (size_t)p->batch;
    const size_t ih = (size_t)p->in_size[0], iw = (size_t)p->in_size[1];
    const uint32_t ah = (uint32_t)p->output_padding[0];
    const uint32_t aw = (uint32_t)p->output_padding[1];
    if (es == 4)
        return xnn_setup_deconvolution2d_nhwc_f32(op, n, ih, iw, ah, aw, x,
                                                  y, NULL);
    if (es == 2)
        return xnn_setup_deconvolution2d_nhwc_f16(op, n, ih, iw, ah, aw, x,
                                                  y, NULL);
    if (p->dtype == IOHW_S8)
        return xnn_setup_deconvolution2d_nhwc_qs8(op, n, ih, iw, ah, aw, x,
                                                  y, NULL);
    return xnn_setup_deconvolution2d_nhwc_qu8(op, n, ih, iw, ah, aw, x, y,
                                              NULL);
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

/* 0 when xnn_create_deconvolution2d_nhwc_qs8/_qu8 computes quantized p
 * by its definition (specification section 11); else -1 with the reason.
 * The kernel scale's own limit (M >= 256) is XNNPACK's to refuse, in
 * run_quant(). */
static int claims_quant(const iohw_problem *p, iohw_error *err)
{
    const int32_t wt = p->w_dtype != 0 ? p->w_dtype : p->dtype;
    const int32_t yt = p->y_dtype != 0 ? p->y_dtype : p->dtype;
    if (yt == IOHW_S32)
        return iohw_error_set(err, "XNNPACK's quantized deconvolution always "
                              "requantizes (no s32 output)");
    if (wt != p->dtype || yt != p->dtype)
        return iohw_error_set(err, "XNNPACK's qs8 deconvolution takes s8 x, "
                              "w and y, its qu8 one u8 (x %s, w %s, y %s)",
                              iohw_dtype_name(p->dtype), iohw_dtype_name(wt),
                              iohw_dtype_name(yt));
    if (p->per_channel)
        return iohw_error_set(err, "XNNPACK's qs8/qu8 deconvolution takes one "
                              "kernel scale (no per-channel M)");
    if (p->m_form != IOHW_QM_SCALES)
        return iohw_error_set(err, "XNNPACK takes float scales, not a "
                              "fixed-point multiplier (m=fixed)");
    if (p->rounding != IOHW_ROUND_HALF_EVEN)
        return iohw_error_set(err, "XNNPACK requantizes in float with rint, "
                              "ties to even (round=half_even only)");
    if (p->dtype == IOHW_S8 && p->zp_w != 0)
        return iohw_error_set(err, "XNNPACK's qs8 deconvolution has no kernel "
                              "zero point (zp_w %d)", (int)p->zp_w);
    return 0;
}

/* 0 when the adapter claims p; else -1 with the reason. */
static int claims(xnnpack_ctx *c, const iohw_problem *p, iohw_error *err)
{
    if (skeleton_check(p, err) != 0)
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
    if (iohw_problem_is_quant(p)) {
        if (claims_quant(p, err) != 0)
            return -1;
    } else if (p->dtype == IOHW_F16 && !f16_usable(c)) {
        return iohw_error_set(err, "%s", c->f16_why);
    } else if (p->dtype != IOHW_F32 && p->dtype != IOHW_F16) {
        return iohw_error_set(err, "XNNPACK has no %s deconvolution",
                              iohw_dtype_name(p->dtype));
    }
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

/* The checks run() and run_quant() share: IOHW_OK, or the status with the
 * reason in c->err.  quant: whether the entry point is run_quant(). */
static int check_call(xnnpack_ctx *c, const iohw_problem *p, const void *x,
                      const void *w, const void *bias, const void *requant,
                      void *y, int quant)
{
    if (claims(c, p, &c->err) != 0)
        return p != NULL && p->struct_size >= sizeof(iohw_problem) &&
                       iohw_problem_validate(p, NULL) == 0
                   ? IOHW_UNSUPPORTED
                   : IOHW_INVALID_PROBLEM;
    if (iohw_problem_is_quant(p) != quant) {
        iohw_error_set(&c->err, "%s: dtype %s is %squantized",
                       quant ? "run_quant" : "run", iohw_dtype_name(p->dtype),
                       quant ? "not " : "");
        return IOHW_INVALID_PROBLEM;
    }
    if (x == NULL || w == NULL || y == NULL || (p->has_bias && bias == NULL) ||
        (quant && requant == NULL)) {
        iohw_error_set(&c->err, "%s: %s is NULL", quant ? "run_quant" : "run",
                       x == NULL ? "x" : w == NULL ? "w"
                                     : y == NULL   ? "y"
                                     : requant == NULL && quant ? "requant"
                                                                : "bias");
        return IOHW_INVALID_PROBLEM;
    }
    return IOHW_OK;
}

/* Runs p (checked) with x, w, bias in XNNPACK's terms; s_w is the kernel
 * scale of a quantized p. */
static int compute(xnnpack_ctx *c, const iohw_problem *p, const void *x,
                   const void *w, const void *bias, float s_w, void *y)
{
    const int quant = iohw_problem_is_quant(p);
    const size_t es = quant ? 1 : iohw_dtype_size(p->dtype);
    const size_t bs = quant ? sizeof(int32_t) : es;
    const char *type = quant ? (p->dtype == IOHW_S8 ? "qs8" : "qu8")
                             : es == 4 ? "f32" : "f16";
    const char *call = "xnn_create_deconvolution2d_nhwc";
    iohw_layout_map wm;
    xnn_operator_t op = NULL;
    enum xnn_status st;
    int rc = IOHW_BACKEND_ERROR;

    if (iohw_layout_weight_map(p, &wm, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (check_output_shape(p, &c->err) != 0)
        return IOHW_BACKEND_ERROR;

    /* Inputs in XNNPACK's terms, each with its extra bytes. */
    void *kernel = pack_kernel(p, &wm, es, w);
    void *xcopy = padded_copy(x, (size_t)iohw_problem_x_count(p) * es);
    void *bcopy = p->has_bias ? padded_copy(bias, (size_t)p->out_channels * bs)
                              : NULL;
    if (kernel == NULL || xcopy == NULL || (p->has_bias && bcopy == NULL)) {
        iohw_error_set(&c->err, "out of memory copying the inputs");
        rc = IOHW_OUT_OF_MEMORY;
        goto done;
    }

    /* Create, set up, run. */
    st = quant ? create_quant_op(p, s_w, kernel, bcopy, &op)
               : create_op(p, es, kernel, bcopy, &op);
    if (st == xnn_status_success) {
        call = "xnn_setup_deconvolution2d_nhwc";
        st = setup_op(p, es, op, xcopy, y);
    }
    if (st == xnn_status_success) {
        call = "xnn_run_operator";
        st = xnn_run_operator(op, NULL);
    }
    if (quant && st == xnn_status_unsupported_parameter && op == NULL) {
        iohw_error_set(&c->err, "XNNPACK refuses the scales: its "
                       "requantization scale s_x * s_w / s_y (float) must be "
                       "below 256 (%s_%s: %s)", call, type, status_text(st));
        rc = IOHW_UNSUPPORTED;
        goto done;
    }
    if (st != xnn_status_success) {
        iohw_error_set(&c->err, "XNNPACK: %s_%s: %s", call, type,
                       status_text(st));
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

static int xnnpack_run(void *ctx, const iohw_problem *p, const void *x,
                       const void *w, const void *bias, void *y)
{
    xnnpack_ctx *c = ctx;
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    const int rc = check_call(c, p, x, w, bias, NULL, y, 0);
    return rc != IOHW_OK ? rc : compute(c, p, x, w, bias, 0.0f, y);
}

/* requant is float s_w[1] (the scales form, one M: what claims() lets
 * through). */
static int xnnpack_run_quant(void *ctx, const iohw_problem *p, const void *x,
                             const void *w, const void *bias,
                             const void *requant, void *y)
{
    xnnpack_ctx *c = ctx;
    float s_w;
    if (c == NULL)
        return IOHW_BACKEND_ERROR;
    const int rc = check_call(c, p, x, w, bias, requant, y, 1);
    if (rc != IOHW_OK)
        return rc;
    memcpy(&s_w, requant, sizeof s_w);
    return compute(c, p, x, w, bias, s_w, y);
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
    .run_quant = xnnpack_run_quant,
};

SKELETON_ENTRY(xnnpack_table)
