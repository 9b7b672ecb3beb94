/*
 * backends/onednn/onednn_md.c - a problem in oneDNN's terms.
 *
 * Correspondence (oneDNN deconvolution forward, C API 2.x):
 *   src      x, dims {N, C_in, D, H, W}     (spatial in D, H, W order)
 *   dst      y, dims {N, C_out, D, H, W};   the dst dims ARE the case's
 *            out_size: oneDNN has no output_padding parameter, it infers
 *            it from the dst size (and accepts it only below the stride)
 *   weights  G == 1: dims {C_out, C_in, K...}      ("OIHW")
 *            G  > 1: dims {G, Mg, Cg, K...}        ("GOIHW")
 *            where O counts THIS operation's output channels: semantic
 *            w[g*Cg + c][m][k] is oneDNN's weights[g][m][c][k]
 *   bias     dims {C_out}
 *   strides  S;  dilates D - 1 (oneDNN counts dilation from 0);
 *   padding_l = pad_begin, padding_r = pad_end.
 *
 * The harness's tensors are described by strides computed from their layout
 * letters (oracle/layout.h gives each canonical axis its element stride in
 * the layout's memory), so any permutation of the letters, and any weight
 * layout with or without a G axis, is described without a copy.
 */
#include "backends/onednn/onednn.h"

#include <stdio.h>
#include <string.h>

#include <oneapi/dnnl/dnnl_debug.h>

#include "oracle/layout.h"
#include "oracle/quant_problem.h"

/* The oneDNN data type of a dtype; -1 when oneDNN has none (f64). */
static int onednn_dt(iohw_dtype dt, dnnl_data_type_t *out)
{
    switch (dt) {
    case IOHW_F32: *out = dnnl_f32; return 0;
    case IOHW_F16: *out = dnnl_f16; return 0;
    case IOHW_BF16: *out = dnnl_bf16; return 0;
    case IOHW_S8: *out = dnnl_s8; return 0;
    case IOHW_U8: *out = dnnl_u8; return 0;
    case IOHW_S32: *out = dnnl_s32; return 0;
    default: return -1;
    }
}

/* One descriptor by strides and its "any" twin. */
static int md_pair(const char *what, int ndims, const dnnl_dims_t dims,
                   const dnnl_dims_t strides, dnnl_data_type_t dt,
                   dnnl_memory_desc_t *user, dnnl_memory_desc_t *any,
                   iohw_error *err)
{
    dnnl_status_t st = dnnl_memory_desc_init_by_strides(user, ndims, dims, dt,
                                                        strides);
    if (st != dnnl_success)
        return iohw_error_set(err, "oneDNN: dnnl_memory_desc_init_by_strides "
                              "(%s): %s", what, dnnl_status2str(st));
    st = dnnl_memory_desc_init_by_tag(any, ndims, dims, dt,
                                      dnnl_format_tag_any);
    if (st != dnnl_success)
        return iohw_error_set(err, "oneDNN: dnnl_memory_desc_init_by_tag "
                              "(%s, any): %s", what, dnnl_status2str(st));
    return 0;
}

int iohw__onednn_mds(const iohw_problem *p, onednn_mds *m, iohw_error *err)
{
    const int R = (int)p->rank;
    const int64_t G = p->groups;
    const int64_t Cg = p->in_channels / G;
    const int64_t Mg = p->out_channels / G;
    iohw_layout_map xm, wm, ym;
    dnnl_data_type_t dt, w_dt, b_dt, y_dt;
    dnnl_dims_t dims, strides;

    memset(m, 0, sizeof *m);
    if (onednn_dt(p->dtype, &dt) != 0)
        return iohw_error_set(err, "oneDNN has no %s data type",
                              p->dtype == IOHW_F64 ? "f64" : "such");
    /* Quantized (section 11.4): w of w_dtype, bias int32, y of y_dtype. */
    if (onednn_dt(iohw_problem_w_dtype(p), &w_dt) != 0 ||
        onednn_dt(iohw_problem_bias_dtype(p), &b_dt) != 0 ||
        onednn_dt(iohw_problem_y_dtype(p), &y_dt) != 0)
        return iohw_error_set(err, "oneDNN has no such data type");
    if (iohw_layout_data_map(p, 0, &xm, err) != 0 ||
        iohw_layout_weight_map(p, &wm, err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, err) != 0)
        return -1;

    /* x and y: canonical order N, C, spatial is oneDNN's order. */
    for (int a = 0; a < 2 + R; a++) {
        dims[a] = xm.canon_shape[a];
        strides[a] = xm.canon_stride[a];
    }
    if (md_pair("src", 2 + R, dims, strides, dt, &m->x, &m->x_any, err) != 0)
        return -1;
    for (int a = 0; a < 2 + R; a++) {
        dims[a] = ym.canon_shape[a];
        strides[a] = ym.canon_stride[a];
    }
    if (md_pair("dst", 2 + R, dims, strides, y_dt, &m->y, &m->y_any, err) != 0)
        return -1;

    /* Weights: canonical G, I (Cg), O (Mg), spatial -> oneDNN (G,) O, I,
     * spatial.  Without groups the G axis is dropped (G = 1). */
    const int g_axes = G > 1 ? 1 : 0;
    if (g_axes) {
        dims[0] = G;
        strides[0] = wm.canon_stride[0];
    }
    dims[g_axes] = Mg;
    strides[g_axes] = wm.canon_stride[2];
    dims[g_axes + 1] = Cg;
    strides[g_axes + 1] = wm.canon_stride[1];
    for (int a = 0; a < R; a++) {
        dims[g_axes + 2 + a] = p->kernel[a];
        strides[g_axes + 2 + a] = wm.canon_stride[3 + a];
    }
    if (md_pair("weights", g_axes + 2 + R, dims, strides, w_dt, &m->w,
                &m->w_any, err) != 0)
        return -1;

    /* Bias: one dense axis. */
    dims[0] = p->out_channels;
    strides[0] = 1;
    return md_pair("bias", 1, dims, strides, b_dt, &m->bias, &m->bias_any, err);
}

dnnl_status_t iohw__onednn_pd(const iohw_problem *p, const onednn_mds *m,
                              const_dnnl_primitive_attr_t attr,
                              dnnl_engine_t engine, dnnl_primitive_desc_t *pd,
                              iohw_error *err)
{
    const int R = (int)p->rank;
    dnnl_dims_t strides, dilates, pad_l, pad_r;
    dnnl_deconvolution_desc_t dd;

    *pd = NULL;
    for (int a = 0; a < R; a++) {
        strides[a] = p->stride[a];
        dilates[a] = p->dilation[a] - 1; /* oneDNN: 0 means dense */
        pad_l[a] = p->pad_begin[a];
        pad_r[a] = p->pad_end[a];
    }

    dnnl_status_t st = dnnl_dilated_deconvolution_forward_desc_init(
        &dd, dnnl_forward_inference, dnnl_deconvolution_direct, &m->x_any,
        &m->w_any, p->has_bias ? &m->bias_any : NULL, &m->y_any, strides,
        dilates, pad_l, pad_r);
    if (st != dnnl_success) {
        iohw_error_set(err, "oneDNN refuses the deconvolution descriptor "
                       "(dnnl_dilated_deconvolution_forward_desc_init: %s)",
                       dnnl_status2str(st));
        return st;
    }
    st = dnnl_primitive_desc_create(pd, &dd, attr, engine, NULL);
    if (st != dnnl_success) {
        *pd = NULL;
        iohw_error_set(err, "oneDNN has no %s deconvolution implementation "
                       "for this problem on this CPU "
                       "(dnnl_primitive_desc_create: %s)",
                       dnnl_dt2str(m->x.data_type), dnnl_status2str(st));
    }
    return st;
}

/* "[1,4,7,9,10]" into buf. */
static void dims_text(const int64_t *d, int n, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int a = 0; a < n && k + 1 < size; a++) {
        int w = snprintf(buf + k, size - k, "%s%lld", a == 0 ? "[" : ",",
                         (long long)d[a]);
        k = w < 0 ? k : k + (size_t)w >= size ? size - 1 : k + (size_t)w;
    }
    if (k + 1 < size)
        snprintf(buf + k, size - k, "]");
}

int iohw__onednn_check_dst(const iohw_problem *p, const dnnl_memory_desc_t *dst,
                           iohw_error *err)
{
    const int R = (int)p->rank;
    int64_t want[5] = {p->batch, p->out_channels, 0, 0, 0};
    int ok = dst != NULL && dst->ndims == 2 + R;
    for (int a = 0; a < R; a++) {
        const int64_t full = (p->in_size[a] - 1) * p->stride[a] +
                             (p->kernel[a] - 1) * p->dilation[a] + 1 -
                             p->pad_begin[a] - p->pad_end[a];
        want[2 + a] = p->out_size[a];
        ok = ok && p->out_size[a] >= full && p->out_size[a] < full + p->stride[a];
    }
    for (int a = 0; ok && a < 2 + R; a++)
        ok = dst->dims[a] == want[a];
    if (ok)
        return 0;
    char got[160], right[160];
    dims_text(dst != NULL ? dst->dims : want, dst != NULL ? dst->ndims : 0, got,
              sizeof got);
    dims_text(want, 2 + R, right, sizeof right);
    return iohw_error_set(err, "oneDNN returned %s where %s is right", got, right);
}
