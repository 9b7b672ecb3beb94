/*
 * cli/import_onnx_problem.c - an ONNX ConvTranspose node into an iohw
 * problem.  Attributes (onnx/defs/nn/defs.cc, every opset from 1): strides,
 * dilations, pads ([begin..., end...]), output_padding, kernel_shape (must be
 * W's), group, auto_pad (NOTSET, SAME_UPPER, SAME_LOWER, VALID) and
 * output_shape (spatial only, or with N and C as ONNX Runtime also accepts).
 * X is [N, C_in, L...], W [C_in, C_out/group, K...]: the default layouts
 * NC... and IO... of specification section 2.  auto_pad and output_shape
 * are stated as conv=onnx and resolved by the oracle's convention
 * (specification section 12).
 */
#include "cli/import_onnx.h"

#include <inttypes.h>
#include <string.h>

#include "oracle/convention.h"
#include "oracle/problem.h"

#define NAXES 3

/* The attribute named name, or NULL. */
static const iohw__pb_attr *attr(const iohw__pb_node *n, const char *name)
{
    for (int i = 0; i < n->nattr; i++)
        if (iohw__pb_is(n->attr[i].name, name))
            return &n->attr[i];
    return NULL;
}

/* An INTS attribute of `count` values into out (left alone when absent). */
static int ints(const iohw__pb_node *n, const char *name, int count, int64_t lo,
                int64_t *out, iohw_error *err)
{
    const iohw__pb_attr *a = attr(n, name);
    if (a == NULL)
        return 0;
    if (a->nints != count)
        return iohw_error_set(err, "attribute %s has %d values, expected %d", name,
                              a->nints, count);
    for (int i = 0; i < count; i++) {
        if (a->ints[i] < lo || a->ints[i] > ((int64_t)1 << 30))
            return iohw_error_set(err, "attribute %s[%d] = %" PRId64 ": must be %" PRId64
                                  " to 2^30", name, i, a->ints[i], lo);
        out[i] = a->ints[i];
    }
    return 0;
}

static int auto_pad(const iohw__pb_node *n, int32_t *code, iohw_error *err)
{
    static const char *const names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    const iohw__pb_attr *a = attr(n, "auto_pad");
    *code = 0;
    if (a == NULL || a->s.n == 0)
        return 0;
    for (int32_t i = 0; i < 4; i++)
        if (iohw__pb_is(a->s, names[i])) {
            *code = i;
            return 0;
        }
    return iohw_error_set(err, "attribute auto_pad = '%.*s': must be NOTSET, SAME_UPPER, "
                          "SAME_LOWER or VALID", (int)(a->s.n > 40 ? 40 : a->s.n), a->s.p);
}

/* output_shape: R spatial values, or N, C and them. */
static int output_shape(const iohw__pb_node *n, int R, const iohw__pb_tensor *x,
                        int64_t *out, iohw_error *err)
{
    const iohw__pb_attr *a = attr(n, "output_shape");
    if (a == NULL)
        return 0;
    const int skip = a->nints == R + 2 ? 2 : 0;
    if (a->nints != R && a->nints != R + 2)
        return iohw_error_set(err, "attribute output_shape has %d values, expected %d "
                              "(or %d with N and C)", a->nints, R, R + 2);
    if (skip != 0 && a->ints[0] != x->dims[0])
        return iohw_error_set(err, "attribute output_shape[0] = %" PRId64 " is not X's "
                              "batch %" PRId64, a->ints[0], x->dims[0]);
    for (int i = 0; i < R; i++) {
        const int64_t v = a->ints[skip + i];
        if (v < 1 || v > ((int64_t)1 << 30))
            return iohw_error_set(err, "attribute output_shape[%d] = %" PRId64 ": must be "
                                  "1 to 2^30", skip + i, v);
        out[i] = v;
    }
    return 0;
}

static int shapes(const iohw__pb_node *n, const iohw__pb_tensor *x, const iohw__pb_tensor *w,
                  iohw_problem *p, iohw_error *err)
{
    if (x->ndims < 3 || x->ndims > 5)
        return iohw_error_set(err, "input X has %d dims: ConvTranspose needs N, C and 1 "
                              "to 3 spatial axes", x->ndims);
    if (w->ndims != x->ndims)
        return iohw_error_set(err, "input W has %d dims, X has %d", w->ndims, x->ndims);
    const int R = x->ndims - 2;
    const iohw__pb_attr *g = attr(n, "group");
    p->rank = (uint32_t)R;
    p->groups = g != NULL ? g->i : 1;
    if (p->groups < 1 || p->groups > ((int64_t)1 << 30))
        return iohw_error_set(err, "attribute group = %" PRId64 ": must be >= 1", p->groups);
    if (x->dims[1] != w->dims[0])
        return iohw_error_set(err, "X has %" PRId64 " channels, W's first dim (C_in) is "
                              "%" PRId64, x->dims[1], w->dims[0]);
    p->batch = x->dims[0];
    p->in_channels = x->dims[1];
    p->out_channels = w->dims[1] * p->groups;
    for (int a = 0; a < R; a++) {
        p->in_size[a] = x->dims[2 + a];
        p->kernel[a] = w->dims[2 + a];
    }
    int64_t k[NAXES] = {0};
    if (ints(n, "kernel_shape", R, 1, k, err) != 0)
        return -1;
    for (int a = 0; a < R && attr(n, "kernel_shape") != NULL; a++)
        if (k[a] != p->kernel[a])
            return iohw_error_set(err, "attribute kernel_shape[%d] = %" PRId64 ", but W's "
                                  "dim %d is %" PRId64, a, k[a], a + 2, p->kernel[a]);
    return R;
}

int iohw__onnx_problem(const iohw__pb_node *n, const iohw__pb_tensor *x,
                       const iohw__pb_tensor *w, int has_bias, iohw_problem *p,
                       iohw_error *err)
{
    int64_t pads[2 * NAXES] = {0};
    iohw_problem_init(p);
    const int R = shapes(n, x, w, p, err);
    if (R < 0)
        return -1;
    p->has_bias = has_bias;
    if (ints(n, "strides", R, 1, p->stride, err) != 0 ||
        ints(n, "dilations", R, 1, p->dilation, err) != 0 ||
        ints(n, "pads", 2 * R, 0, pads, err) != 0 ||
        ints(n, "output_padding", R, 0, p->output_padding, err) != 0 ||
        auto_pad(n, &p->auto_pad, err) != 0 ||
        output_shape(n, R, x, p->out_shape, err) != 0)
        return -1;
    for (int a = 0; a < R; a++) {
        p->pad_begin[a] = pads[a];
        p->pad_end[a] = pads[R + a];
    }
    if (p->auto_pad != 0 || p->out_shape[0] != 0) {
        /* Section 12: ONNX's auto_pad and output_shape, resolved. */
        p->convention = IOHW_CONV_ONNX;
        if (iohw_convention_resolve(p, err) != 0)
            return -1;
    }
    return iohw_problem_finish(p, err);
}
