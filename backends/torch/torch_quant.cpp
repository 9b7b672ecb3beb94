/*
 * backends/torch/torch_quant.cpp - libtorch 1.13's quantized ConvTranspose
 * behind run_quant() (specification section 11): the operators
 * quantized::conv_transpose1d_prepack / conv_transpose1d and the 2d pair,
 * called boxed through c10::Dispatcher, on the qnnpack engine.
 *
 * What Debian's libtorch 1.13.1 offers (supportedQEngines(): qnnpack,
 * onednn; no fbgemm, which Debian does not build), on the qnnpack engine,
 * which the adapter pins:
 *   u8 x     libtorch's own QNNPACK: quint8 activations, qint8 weights with
 *            any zero point (it adds 128 to weights and zero point), quint8
 *            y with its zero point; groups, dilation, any output_padding.
 *            It requantizes in binary32: M = fl(fl(s_w * s_x) * fl(1 /
 *            s_y)) (generate_requantization_scales), y = zp_y +
 *            cvtps2dq(acc * M) (round to nearest even on v, then the zero
 *            point; SSE2 kernels on every x86-64 CPU) saturated to the
 *            type.  Per-channel weight scales: it reads C_out of them, one
 *            per output channel, but a ConvTranspose weight [C_in][C_out/G]
 *            [K] quantized along its axis 1 has C_out/G: exact for G = 1
 *            only (G > 1 reads past the scales).  Its conv_transpose3d
 *            computes a wrong output shape.
 *   s8 x     a qint8 activation goes to libtorch's XNNPACK path instead
 *            (xnn_create_deconvolution2d_nhwc_qs8): qint8 throughout, weight
 *            zero point 0, one M (below 256), output_padding below the
 *            stride, ranks 1 and 2; XNNPACK's own float requantization,
 *            ties to even on v, zp_y after (docs/CONFORMANCE.md, "XNNPACK,
 *            quantized").
 *   onednn   (the other engine) adds zp_y before rounding and refuses
 *            output_padding (docs/CONFORMANCE.md); not used.
 * Both paths are the definition with R = half_even whenever section 11.2's
 * float bound holds and s_y is a power of two (fl(1 / s_y) exact).  So the
 * adapter claims the scales form with half_even, ranks 1 and 2, any layout
 * and padding, with or without bias, and the types and M above; everything
 * else is refused with the reason.
 *
 * Bias: libtorch takes a float bias and quantizes it itself, to
 * nearbyint(b * fl(1 / fl(s_w * s_x))) in int32.  The adapter passes
 * b = fl(bias_q * fl(s_w * s_x)), checks with libtorch's own
 * quantize_per_tensor / quantize_per_channel that b comes back as bias_q,
 * and steps b by one ulp where it does not; a bias it cannot state is an
 * error, never a silently different bias.
 *
 * Padding: PyTorch pads symmetrically, so with p = min(pad_begin, pad_end)
 * the adapter asks for padding p and output_padding
 * max(0, A - (pad_end - p)), and crops y from pad_begin - p on (cropping an
 * output never changes its values).
 */
#include "backends/torch/torch_quant.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

extern "C" {
#include "oracle/layout.h"
#include "oracle/quant_problem.h"
}

namespace {

/* Calls a dispatcher operator with its arguments boxed; returns its first
 * result. */
c10::IValue call(const char *name, std::vector<c10::IValue> args)
{
    auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
    torch::jit::Stack stack(std::move(args));
    op.callBoxed(&stack);
    if (stack.empty())
        throw std::runtime_error(std::string(name) + " returned nothing");
    return stack[0];
}

/* 1 when libtorch was built with the qnnpack engine. */
bool has_qnnpack()
{
    for (at::QEngine e : at::globalContext().supportedQEngines())
        if (e == at::QEngine::QNNPACK)
            return true;
    return false;
}

/* A dense copy of one of the harness's tensors, from its layout map. */
at::Tensor dense(const void *buf, const iohw_layout_map &m, int n,
                 at::ScalarType st)
{
    std::vector<int64_t> sizes(m.canon_shape, m.canon_shape + n);
    std::vector<int64_t> strides(m.canon_stride, m.canon_stride + n);
    return at::from_blob(const_cast<void *>(buf), sizes, strides,
                         at::TensorOptions().dtype(st))
        .contiguous();
}

/* The float bias libtorch quantizes to bias_q: b[oc] = bias_q[oc] * t[oc]
 * with t = fl(s_w * s_x), checked (and stepped by an ulp where needed)
 * with libtorch's own int32 quantization at the scales it will use. */
at::Tensor float_bias(const iohw_problem *p, const int32_t *bias,
                      const float *s_w, const at::Tensor &wq)
{
    const int64_t C = p->out_channels;
    at::Tensor b = at::empty({C}, at::kFloat);
    float *bd = b.data_ptr<float>();
    for (int64_t oc = 0; oc < C; oc++) {
        const double t = (float)((double)s_w[p->per_channel ? oc : 0] *
                                 (double)p->s_x);
        bd[oc] = (float)((double)bias[oc] * t);
    }
    for (int step = 0; step < 8; step++) {
        at::Tensor q = p->per_channel
            ? at::quantize_per_channel(b, wq.q_per_channel_scales() * (double)p->s_x,
                                       at::zeros({C}, at::kLong), 0, at::kQInt32)
            : at::quantize_per_tensor(b, wq.q_scale() * (double)p->s_x, 0,
                                      at::kQInt32);
        const at::Tensor qi = q.int_repr();
        const int32_t *qd = qi.data_ptr<int32_t>();
        int64_t off = 0;
        for (int64_t oc = 0; oc < C; oc++) {
            if (qd[oc] == bias[oc])
                continue;
            off++;
            bd[oc] = std::nextafter(bd[oc], qd[oc] < bias[oc] ? INFINITY
                                                               : -INFINITY);
        }
        if (off == 0)
            return b;
    }
    throw std::runtime_error("no float bias that libtorch quantizes to the "
                             "case's int32 bias (|bias_q| too large for its "
                             "binary32 scale)");
}

/* The qint8 weight [C_in][Mg][K...]: one scale, or C_out along axis 1
 * (G = 1, so Mg = C_out). */
at::Tensor quant_weight(const iohw_problem *p, const void *w, const float *s_w)
{
    const int R = (int)p->rank;
    iohw_layout_map wm;
    iohw_error err;
    if (iohw_layout_weight_map(p, &wm, &err) != 0)
        throw std::runtime_error(err.msg);
    std::vector<int64_t> sizes{p->in_channels, p->out_channels / p->groups};
    for (int a = 0; a < R; a++)
        sizes.push_back(p->kernel[a]);
    at::Tensor wi = dense(w, wm, 3 + R, at::kChar).reshape(sizes).contiguous();
    if (!p->per_channel)
        return at::_make_per_tensor_quantized_tensor(wi, (double)s_w[0],
                                                     p->zp_w);
    at::Tensor sc = at::empty({p->out_channels}, at::kDouble);
    for (int64_t oc = 0; oc < p->out_channels; oc++)
        sc.data_ptr<double>()[oc] = (double)s_w[oc];
    return at::_make_per_channel_quantized_tensor(
        wi, sc, at::full({p->out_channels}, p->zp_w, at::kLong), 1);
}

/* Axis a's symmetric padding P = min(pad_begin, pad_end) and the
 * output_padding A that keeps the strict output inside PyTorch's. */
void torch_pads(const iohw_problem *p, int a, int64_t *P, int64_t *A)
{
    *P = std::min(p->pad_begin[a], p->pad_end[a]);
    *A = std::max<int64_t>(0, p->output_padding[a] - (p->pad_end[a] - *P));
}

} /* namespace */

/* What the u8 path (libtorch's QNNPACK) does not compute by the
 * definition. */
static int refuse_u8(const iohw_problem *p, iohw_error *err)
{
    if (iohw_problem_y_dtype(p) != IOHW_U8)
        return iohw_error_set(err, "libtorch's qnnpack gives quint8 y only, "
                              "like x (y is s8)");
    if (p->rank == 3)
        return iohw_error_set(err, "libtorch 1.13's qnnpack "
                              "conv_transpose3d computes a wrong output "
                              "shape (docs/CONFORMANCE.md, libtorch "
                              "quantized); rank 3 is not claimed");
    if (p->per_channel && p->groups > 1)
        return iohw_error_set(err, "qnnpack reads C_out per-channel scales "
                              "where a grouped ConvTranspose weight has "
                              "C_out/G along its axis 1: per-channel M with "
                              "groups (G = %lld) is not claimed",
                              (long long)p->groups);
    return 0;
}

/* What the s8 path (libtorch's XNNPACK, qs8) does not compute. */
static int refuse_s8(const iohw_problem *p, iohw_error *err)
{
    const char *e = "libtorch's XNNPACK path (qint8 x)";
    if (iohw_problem_y_dtype(p) != IOHW_S8)
        return iohw_error_set(err, "%s gives qint8 y only, like x (y is u8)",
                              e);
    if (p->zp_w != 0)
        return iohw_error_set(err, "%s has no weight zero point (zp_w is %d)",
                              e, (int)p->zp_w);
    if (p->per_channel)
        return iohw_error_set(err, "%s has no per-channel M", e);
    if (p->rank == 3)
        return iohw_error_set(err, "%s has no conv_transpose3d", e);
    for (uint32_t a = 0; a < p->rank; a++) {
        int64_t P, A;
        torch_pads(p, (int)a, &P, &A);
        if (A >= p->stride[a])
            return iohw_error_set(err, "%s needs output_padding below the "
                                  "stride (axis %u: %lld after symmetric "
                                  "padding, stride %lld)", e, (unsigned)a,
                                  (long long)A, (long long)p->stride[a]);
    }
    return 0;
}

int iohw__torch_quant_refuse(const iohw_problem *p, iohw_error *err)
{
    if (!has_qnnpack())
        return iohw_error_set(err, "this libtorch has no qnnpack engine");
    if (iohw_problem_w_dtype(p) != IOHW_S8)
        return iohw_error_set(err, "libtorch's quantized ConvTranspose takes "
                              "qint8 weights only (w is u8)");
    if (iohw_problem_y_dtype(p) == IOHW_S32)
        return iohw_error_set(err, "libtorch's quantized ConvTranspose has "
                              "no s32 output (it requantizes to x's type)");
    if (p->m_form != IOHW_QM_SCALES)
        return iohw_error_set(err, "libtorch takes float scales; the fixed "
                              "form's 31-bit multiplier does not fit a "
                              "binary32 in general (m_form %s)",
                              iohw_quant_m_form_name(p->m_form));
    if (p->rounding != IOHW_ROUND_HALF_EVEN)
        return iohw_error_set(err, "libtorch's quantized kernels (qnnpack, "
                              "XNNPACK) round to nearest even and have no "
                              "other rounding (rounding %s)",
                              iohw_quant_rounding_name(p->rounding));
    return p->dtype == IOHW_U8 ? refuse_u8(p, err) : refuse_s8(p, err);
}

int iohw__torch_quant_compute(const iohw_problem *p, const void *x,
                              const void *w, const int32_t *bias,
                              const float *s_w, void *y, iohw_error *err)
{
    const int R = (int)p->rank;
    const bool u8 = p->dtype == IOHW_U8;
    const at::ScalarType st = u8 ? at::kByte : at::kChar;
    iohw_layout_map xm, ym;
    if (iohw_layout_data_map(p, 0, &xm, err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, err) != 0)
        throw std::runtime_error(err->msg);
    /* XNNPACK refuses M >= 256 when it creates the operator. */
    if (!u8 && p->s_x * s_w[0] / p->s_y >= 256.0f) {
        iohw_error_set(err, "libtorch's XNNPACK path: its requantization "
                       "scale s_x * s_w / s_y must be below 256 (it is %g)",
                       (double)(p->s_x * s_w[0] / p->s_y));
        return IOHW_UNSUPPORTED;
    }
    at::globalContext().setQEngine(at::QEngine::QNNPACK);

    /* The quantized tensors and the float bias. */
    at::Tensor xq = at::_make_per_tensor_quantized_tensor(
        dense(x, xm, 2 + R, st), (double)p->s_x, p->zp_x);
    at::Tensor wq = quant_weight(p, w, s_w);
    c10::IValue b;
    if (p->has_bias)
        b = float_bias(p, bias, s_w, wq);

    /* Symmetric padding, the output_padding it needs, the crop's start. */
    std::vector<int64_t> S(R), P(R), A(R), D(R), start(R);
    for (int a = 0; a < R; a++) {
        S[a] = p->stride[a];
        D[a] = p->dilation[a];
        torch_pads(p, a, &P[a], &A[a]);
        start[a] = p->pad_begin[a] - P[a];
    }
    const bool one = R == 1;
    c10::IValue packed = call(
        one ? "quantized::conv_transpose1d_prepack"
            : "quantized::conv_transpose2d_prepack",
        {wq, b, S, P, A, D, p->groups});
    at::Tensor out = call(one ? "quantized::conv_transpose1d"
                              : "quantized::conv_transpose2d",
                          {xq, packed, (double)p->s_y, (int64_t)p->zp_y})
                         .toTensor();

    /* The shape PyTorch documents, then the crop into y. */
    std::vector<int64_t> want{p->batch, p->out_channels};
    for (int a = 0; a < R; a++)
        want.push_back((p->in_size[a] - 1) * S[a] - 2 * P[a] +
                       D[a] * (p->kernel[a] - 1) + A[a] + 1);
    if (out.sizes() != at::IntArrayRef(want) ||
        out.scalar_type() != (u8 ? at::kQUInt8 : at::kQInt8))
        throw std::runtime_error("libtorch returned a tensor of another "
                                 "shape or type than PyTorch documents");
    at::Tensor src = out.int_repr();
    std::vector<int64_t> ysizes(ym.canon_shape, ym.canon_shape + 2 + R);
    std::vector<int64_t> ystrides(ym.canon_stride, ym.canon_stride + 2 + R);
    at::Tensor dst = at::from_blob(y, ysizes, ystrides,
                                   at::TensorOptions().dtype(st));
    for (int a = 0; a < R; a++)
        src = src.narrow(2 + a, start[a], p->out_size[a]);
    dst.copy_(src);
    return IOHW_OK;
}
