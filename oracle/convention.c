/*
 * oracle/convention.c - framework padding conventions resolved into the
 * strict problem (specification section 12).
 *
 * Per axis, with L the input size, K the kernel, S the stride, D the
 * dilation, E = (K - 1)*D + 1 the dilated kernel, F = (L - 1)*S + E the
 * uncropped output, A the output_padding, O the requested output size,
 * P- and P+ the pads and "/" C's truncating division of non-negative
 * numbers:
 *
 *   onnx   (ConvTranspose, onnx/defs/nn/defs.cc: the operator's formula)
 *          target T = O when given, else L*S for SAME_*; VALID without O:
 *          P- = P+ = 0.  total t = F + A - T, rejected when < 0, except
 *          t = -1 with O given and not SAME_UPPER: P- = P+ = 0, A + 1
 *          (ONNX's reference and ONNX Runtime agree there: a position
 *          past the uncropped output at the end).
 *          SAME_UPPER: P- = t/2, P+ = t - t/2; otherwise (SAME_LOWER, or
 *          output_shape with NOTSET or VALID): P- = t - t/2, P+ = t/2.
 *   tf     (tf.nn.conv2d_transpose: the gradient of conv2d; padding split
 *          by GetWindowedOutputSizeVerbose, kernel_shape_util.cc)
 *          O when given, else Keras's deconv_output_length: L*S for
 *          'SAME', L*S + max(E - S, 0) for 'VALID'.  The forward size
 *          ceil(O/S) ('SAME') or (O - E + S)/S ('VALID') must be L.
 *          'SAME': need = max((L - 1)*S + E - O, 0), P- = need/2;
 *          'VALID': P- = 0.  r = F - P- - O: P+ = r, A = 0 when r >= 0,
 *          else P+ = 0, A = -r.
 *   tvm    (topi get_pad_tuple; conv2d_transpose_nchw_preprocess)
 *          'SAME': t = K - 1, P- = (t + 1)/2, P+ = t - P-; 'VALID': 0.
 *          A given, A < S; no dilation, no output shape.
 *   torch  (torch.nn.modules.conv._ConvTransposeNd._output_padding)
 *          P = P- = P+ given; m = (L - 1)*S - 2P + (K - 1)*D + 1;
 *          m <= O <= m + S - 1, A = O - m.
 *   mxnet  (Deconvolution, deconvolution-inl.h InferPad)
 *          t = F - O >= 0 ("too big target shape"); P- = P+ = (t + 1)/2,
 *          A = t % 2.
 *
 * Every value is at most VALUE_MAX (2^30) before it is used, so no product
 * or sum below overflows int64.
 */
#include "oracle/convention.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NAXES 3
#define VALUE_MAX ((int64_t)1 << 30)

/* One axis of the problem, what the framework takes and what it derives. */
typedef struct axis {
    int64_t L, K, S, D;
    int64_t E, F;       /* dilated kernel, uncropped output */
    int64_t pb, pe, A;  /* in: what the framework takes; out: resolved */
    int64_t O;          /* requested output size; 0: none */
} axis;

typedef int (*rule_fn)(int32_t auto_pad, axis *x, iohw_error *err);

static const char *const AUTO_PAD_NAMES[] = {"none", "same_upper", "same_lower",
                                             "valid"};
static const char *const CONV_NAMES[] = {"none", "onnx", "tf", "tvm", "torch",
                                         "mxnet"};
#define NAUTO_PAD 4
#define NCONV 6

const char *iohw_auto_pad_name(int32_t code)
{
    return code >= 0 && code < NAUTO_PAD ? AUTO_PAD_NAMES[code] : NULL;
}

/* The index of name among names[1..n), or -1. */
static int find_name(const char *const *names, int n, const char *name, int32_t *code)
{
    for (int32_t i = 1; name != NULL && i < n; i++)
        if (strcmp(name, names[i]) == 0) {
            *code = i;
            return 0;
        }
    return -1;
}

int iohw_auto_pad_parse(const char *name, int32_t *code)
{
    return find_name(AUTO_PAD_NAMES, NAUTO_PAD, name, code);
}

const char *iohw_convention_name(int32_t code)
{
    return code >= 0 && code < NCONV ? CONV_NAMES[code] : NULL;
}

int iohw_convention_parse(const char *name, int32_t *code)
{
    return find_name(CONV_NAMES, NCONV, name, code);
}

/* --- the frameworks, one axis each ------------------------------------- */

static int onnx_axis(int32_t ap, axis *x, iohw_error *err)
{
    if (ap == IOHW_AUTO_PAD_VALID && x->O == 0) {
        x->pb = x->pe = 0;
        return 0;
    }
    const int64_t target = x->O != 0 ? x->O : x->L * x->S;
    const int64_t t = x->F + x->A - target;
    if (t == -1 && x->O != 0 && ap != IOHW_AUTO_PAD_SAME_UPPER) {
        /* Section 12: begin 0, end -1, the position past the uncropped
         * output stated as one more output_padding. */
        x->pb = x->pe = 0;
        x->A += 1;
        return 0;
    }
    if (t < 0 && x->O != 0)
        return iohw_error_set(err, "output_shape %" PRId64 " is beyond what pads "
                              "reach: total_padding = S*(L-1) + output_padding + "
                              "((K-1)*D + 1) - output_shape = %" PRId64 " < 0; "
                              "%s (give output_padding, op=, to reach it)", x->O, t,
                              t == -1 ? "with SAME_UPPER ONNX's reference "
                              "implementation pads -1 at the beginning, ONNX "
                              "Runtime clamps it at 0 and fills the end"
                              : "below -1 ONNX's reference implementation and "
                              "ONNX Runtime place the extra positions differently");
    if (t < 0)
        return iohw_error_set(err, "auto_pad=%s asks for the output L*S = %" PRId64
                              ", but total_padding = S*(L-1) + output_padding + "
                              "((K-1)*D + 1) - L*S = %" PRId64 " < 0 and ONNX "
                              "ConvTranspose pads are >= 0 (ONNX Runtime clamps "
                              "total_padding at 0 and returns %" PRId64 ")",
                              AUTO_PAD_NAMES[ap], target, t, x->F + x->A);
    if (ap == IOHW_AUTO_PAD_SAME_UPPER) {
        x->pb = t / 2;
        x->pe = t - t / 2;
    } else {
        x->pb = t - t / 2;
        x->pe = t / 2;
    }
    return 0;
}

static int tf_axis(int32_t ap, axis *x, iohw_error *err)
{
    if (ap == IOHW_AUTO_PAD_SAME_LOWER)
        return iohw_error_set(err, "TensorFlow has no SAME_LOWER: its padding "
                              "'SAME' puts the odd padding at the end "
                              "(GetWindowedOutputSizeVerbose); write "
                              "auto_pad=same_upper");
    if (ap == IOHW_AUTO_PAD_NONE)
        return iohw_error_set(err, "tf.nn.conv2d_transpose needs a padding: "
                              "auto_pad=same_upper ('SAME') or auto_pad=valid "
                              "('VALID')");
    const int same = ap == IOHW_AUTO_PAD_SAME_UPPER;
    int64_t O = x->O;
    if (O == 0)  /* Keras deconv_output_length, output_padding None */
        O = same ? x->L * x->S : x->L * x->S + (x->E > x->S ? x->E - x->S : 0);
    const int64_t fwd = same ? (O + x->S - 1) / x->S : (O - x->E + x->S) / x->S;
    if (fwd != x->L)
        return iohw_error_set(err, "output_shape %" PRId64 " gives a forward "
                              "convolution of %" PRId64 " positions with padding "
                              "'%s', not the input's %" PRId64 " (TensorFlow's "
                              "Conv2DBackpropInput rejects it: "
                              "ConvBackpropExtractAndVerifyDimension)", O, fwd,
                              same ? "SAME" : "VALID", x->L);
    const int64_t need = (x->L - 1) * x->S + x->E - O;
    x->pb = same && need > 0 ? need / 2 : 0;
    const int64_t r = x->F - x->pb - O;
    x->pe = r >= 0 ? r : 0;
    x->A = r >= 0 ? 0 : -r;
    return 0;
}

static int tvm_axis(int32_t ap, axis *x, iohw_error *err)
{
    if (x->D != 1)
        return iohw_error_set(err, "TVM's conv2d_transpose_nchw takes no "
                              "dilation (d=%" PRId64 ")", x->D);
    if (x->O != 0)
        return iohw_error_set(err, "TVM's conv2d_transpose takes no output "
                              "shape (out=%" PRId64 "), only output_padding", x->O);
    if (ap == IOHW_AUTO_PAD_SAME_UPPER)
        return iohw_error_set(err, "TVM's 'SAME' puts the odd padding at the "
                              "beginning (topi get_pad_tuple: pad_top = "
                              "(pad_h + 1) // 2); write auto_pad=same_lower");
    if (ap == IOHW_AUTO_PAD_NONE)
        return iohw_error_set(err, "conv=tvm needs auto_pad=same_lower (TVM's "
                              "'SAME') or auto_pad=valid");
    if (x->A >= x->S)
        return iohw_error_set(err, "output_padding %" PRId64 " >= stride %" PRId64
                              ": TVM asserts output_padding < stride "
                              "(conv2d_transpose_nchw_preprocess)", x->A, x->S);
    const int64_t t = ap == IOHW_AUTO_PAD_SAME_LOWER ? x->K - 1 : 0;
    x->pb = (t + 1) / 2;
    x->pe = t - x->pb;
    return 0;
}

static int torch_axis(int32_t ap, axis *x, iohw_error *err)
{
    if (ap != IOHW_AUTO_PAD_NONE)
        return iohw_error_set(err, "torch.nn.ConvTranspose has no 'same' or "
                              "'valid' padding (auto_pad=%s): give pad= and out=",
                              AUTO_PAD_NAMES[ap]);
    if (x->O == 0)
        return iohw_error_set(err, "conv=torch needs out= (output_size)");
    if (x->pb != x->pe)
        return iohw_error_set(err, "PyTorch pads both sides alike, but pad is "
                              "%" PRId64 ":%" PRId64, x->pb, x->pe);
    const int64_t lo = x->F - 2 * x->pb, hi = lo + x->S - 1;
    if (x->O < lo || x->O > hi)
        return iohw_error_set(err, "requested an output size of %" PRId64 ", but "
                              "valid sizes range from %" PRId64 " to %" PRId64
                              " (torch.nn.modules.conv._ConvTransposeNd."
                              "_output_padding)", x->O, lo, hi);
    x->A = x->O - lo;
    return 0;
}

static int mxnet_axis(int32_t ap, axis *x, iohw_error *err)
{
    if (ap != IOHW_AUTO_PAD_NONE)
        return iohw_error_set(err, "MXNet's Deconvolution has no auto_pad "
                              "(auto_pad=%s): give out= (target_shape)",
                              AUTO_PAD_NAMES[ap]);
    if (x->O == 0)
        return iohw_error_set(err, "conv=mxnet needs out= (target_shape)");
    const int64_t t = x->F - x->O;
    if (t < 0)
        return iohw_error_set(err, "too big target shape: %" PRId64 " > S*(L-1) + "
                              "(K-1)*D + 1 = %" PRId64 " (MXNet Deconvolution "
                              "InferPad: CHECK_GE)", x->O, x->F);
    x->pb = x->pe = (t + 1) / 2;
    x->A = t % 2;
    return 0;
}

static const rule_fn RULES[NCONV] = {
    NULL, onnx_axis, tf_axis, tvm_axis, torch_axis, mxnet_axis
};

/* --- the problem ---------------------------------------------------------- */

/* The members the resolver reads, checked; the axis count, or -1. */
static int check_stated(const iohw_problem *p, iohw_error *err)
{
    if (p->auto_pad < 0 || p->auto_pad >= NAUTO_PAD)
        return iohw_error_set(err, "auto_pad = %" PRId32 ": must be 0 to 3 "
                              "(none, same_upper, same_lower, valid)", p->auto_pad);
    if (p->convention < 0 || p->convention >= NCONV)
        return iohw_error_set(err, "convention = %" PRId32 ": must be 0 to 5 "
                              "(none, onnx, tf, tvm, torch, mxnet)", p->convention);
    if (p->rank < 1 || p->rank > NAXES)
        return iohw_error_set(err, "rank = %" PRIu32 ": must be 1, 2 or 3", p->rank);
    const int R = (int)p->rank;
    int given = 0;
    for (int a = 0; a < NAXES; a++) {
        const int64_t o = p->out_shape[a];
        if (a >= R ? o != 0 : o < 0 || o > VALUE_MAX)
            return iohw_error_set(err, "out_shape[%d] = %" PRId64 ": must be %s", a,
                                  o, a >= R ? "0 (unused axis)" : "0 to 2^30");
        given += a < R && o > 0;
    }
    if (given != 0 && given != R)
        return iohw_error_set(err, "out_shape gives %d of %d axes: give every "
                              "axis or none", given, R);
    if (p->convention == IOHW_CONV_NONE && (p->auto_pad != 0 || given != 0))
        return iohw_error_set(err, "%s without a convention: frameworks split "
                              "odd padding differently, say which (conv=onnx, tf, "
                              "tvm, torch or mxnet)",
                              p->auto_pad != 0 ? "auto_pad" : "out_shape");
    if (p->convention != IOHW_CONV_NONE && p->auto_pad == 0 && given == 0)
        return iohw_error_set(err, "conv=%s states neither auto_pad nor an output "
                              "shape (out=)", CONV_NAMES[p->convention]);
    return R;
}

/* Axis a of p, with its sizes checked. */
static int axis_of(const iohw_problem *p, int a, axis *x, iohw_error *err)
{
    const int64_t v[] = {p->in_size[a], p->kernel[a], p->stride[a],
                         p->dilation[a], p->pad_begin[a], p->pad_end[a],
                         p->output_padding[a]};
    static const char *const names[] = {"in_size", "kernel", "stride", "dilation",
                                        "pad_begin", "pad_end", "output_padding"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] < (i < 4 ? 1 : 0) || v[i] > VALUE_MAX)
            return iohw_error_set(err, "%s = %" PRId64 ": must be %d to 2^30 to "
                                  "resolve a convention", names[i], v[i],
                                  i < 4 ? 1 : 0);
    memset(x, 0, sizeof *x);
    x->L = v[0], x->K = v[1], x->S = v[2], x->D = v[3];
    x->pb = v[4], x->pe = v[5], x->A = v[6];
    x->E = (x->K - 1) * x->D + 1;
    x->F = (x->L - 1) * x->S + x->E;
    x->O = p->out_shape[a];
    return 0;
}

int iohw_convention_resolve(iohw_problem *p, iohw_error *err)
{
    axis ax[NAXES];

    /* Test the input parameters. */
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    const int R = check_stated(p, err);
    if (R < 0)
        return -1;
    if (p->convention == IOHW_CONV_NONE)
        return 0;

    /* Every axis by the framework's rule, then the members. */
    for (int a = 0; a < R; a++) {
        const char letter = "DHW"[NAXES - R + a];
        if (axis_of(p, a, &ax[a], err) != 0 ||
            RULES[p->convention](p->auto_pad, &ax[a], err) != 0)
            return iohw_error_prefix(err, "conv=%s%s%s, axis %c",
                                     CONV_NAMES[p->convention],
                                     p->auto_pad != 0 ? " auto_pad=" : "",
                                     p->auto_pad != 0 ? AUTO_PAD_NAMES[p->auto_pad]
                                                      : "", letter);
    }
    for (int a = 0; a < R; a++) {
        p->pad_begin[a] = ax[a].pb;
        p->pad_end[a] = ax[a].pe;
        p->output_padding[a] = ax[a].A;
        p->out_size[a] = ax[a].F - ax[a].pb - ax[a].pe + ax[a].A;
    }
    return 0;
}

int iohw_convention_check(const iohw_problem *p, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "problem is NULL");
    iohw_problem q = *p;
    if (iohw_convention_resolve(&q, err) != 0)
        return -1;
    const struct {
        const char *name;
        const int64_t *have, *want;
    } m[] = {
        {"pad_begin", p->pad_begin, q.pad_begin},
        {"pad_end", p->pad_end, q.pad_end},
        {"output_padding", p->output_padding, q.output_padding},
        {"out_size", p->out_size, q.out_size},
    };
    const int R = (int)p->rank;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        for (int a = 0; a < R; a++)
            if (m[i].have[a] != m[i].want[a])
                return iohw_error_set(err, "%s[%d] (%c) = %" PRId64 ", but conv=%s"
                                      "%s%s resolves it to %" PRId64, m[i].name, a,
                                      "DHW"[NAXES - R + a], m[i].have[a],
                                      CONV_NAMES[p->convention],
                                      p->auto_pad != 0 ? " auto_pad=" : "",
                                      p->auto_pad != 0 ? AUTO_PAD_NAMES[p->auto_pad]
                                                       : "", m[i].want[a]);
    return 0;
}
