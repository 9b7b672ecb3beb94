/*
 * backends/armnn/armnn_shim.cpp - Arm NN's TransposeConvolution2d layer on
 * its CpuRef backend behind the iohw backend ABI (libiohw_armnn.so; C++
 * inside, a C entry point outside).
 *
 * Correspondence (Arm NN 20.08, armnn::INetwork::AddTransposeConvolution2d-
 * Layer; TensorFlow Lite's TRANSPOSE_CONV semantics, the kernel not flipped):
 *   data     NCHW or NHWC (m_DataLayout); x and y are handed over as they are
 *   weight   [O][I][H][W] with NCHW data and [O][H][W][I] with NHWC data: the
 *            layer reads the kernel's H and W at the data layout's indices
 *            and its output channels at index 0 (TransposeConvolution2dLayer::
 *            InferOutputShapes), so the adapter claims exactly OIHW with
 *            NCHW and OHWI with NHWC (iohw run --adapt-layout re-expresses
 *            other cases).  The weight is a constant of the layer.
 *   bias     [C_out] of the data's type (m_BiasEnabled)
 *   stride   m_StrideY, m_StrideX
 *   pads     m_PadTop, m_PadBottom, m_PadLeft, m_PadRight (asymmetric)
 *   output_padding: the layer infers (in - 1) * S + K - pads per axis; a
 *            longer output is stated by m_OutputShapeEnabled / m_OutputShape
 *            (the descriptor's output shape, TensorFlow Lite's output_shape
 *            input), set only when output_padding is not zero.
 * Refused with the reason (UNSUPPORTED): ranks 1 and 3 (the layer is 2-D),
 * groups (no such member), dilation (none either), f64 (no 64-bit float
 * tensors), layouts other than the two above, and whatever the CpuRef
 * backend's ILayerSupport::IsTransposeConvolution2dSupported refuses (its
 * text is the reason).
 *
 * run() builds a one-layer network per problem (the weight is a constant of
 * the layer, so a network serves one problem), optimizes it for CpuRef, and
 * loads, runs and unloads it.  The output shape of the loaded network must be
 * the problem's: anything else is IOHW_BACKEND_ERROR "Arm NN infers [..]
 * where [..] is right", never cropped into y.  Every C++ exception becomes
 * IOHW_BACKEND_ERROR with its text in last_error.
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <armnn/ArmNN.hpp>
#include <armnn/BackendHelper.hpp>
#include <armnn/Version.hpp>

#include "backends/skeleton_check.h"
#include "iohw/backend.h"
extern "C" {
#include "oracle/error.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
}

#ifndef IOHW_ARMNN_PACKAGE
#define IOHW_ARMNN_PACKAGE ""
#endif

/* Arm NN's release name: libarmnn's ABI major 22 is release 20.08. */
#if ARMNN_MAJOR_VERSION == 22
#define IOHW_ARMNN_RELEASE "20.08"
#else
#define IOHW_ARMNN_RELEASE "(libarmnn " ARMNN_VERSION ")"
#endif

namespace {

const char *const CPU_REF = "CpuRef";

struct armnn_ctx {
    iohw_error err;
    armnn::IRuntimePtr rt{nullptr, &armnn::IRuntime::Destroy};
    std::shared_ptr<armnn::ILayerSupport> support;
    /* Per class (dtype, data layout, bias): "" when CpuRef claims it, else
     * its reason. */
    std::map<std::string, std::string> verdicts;
};

/* An error of the backend whose text is the whole message. */
struct backend_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

armnn::DataType data_type(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F16: return armnn::DataType::Float16;
    case IOHW_BF16: return armnn::DataType::BFloat16;
    default: return armnn::DataType::Float32;
    }
}

bool nhwc(const iohw_problem *p)
{
    return std::strcmp(p->data_layout, "NHWC") == 0;
}

/* "[1,4,7,9]" */
std::string shape_text(const armnn::TensorShape &s)
{
    std::string t = "[";
    for (unsigned i = 0; i < s.GetNumDimensions(); i++)
        t += (i > 0 ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

/* A tensor's extents in its memory order, as Arm NN takes them. */
armnn::TensorShape memory_shape(const iohw_layout_map &m)
{
    std::vector<unsigned> d;
    for (int i = 0; i < m.ndim; i++)
        d.push_back(static_cast<unsigned>(m.shape[i]));
    return armnn::TensorShape(static_cast<unsigned>(d.size()), d.data());
}

struct shapes {
    armnn::TensorInfo x, y, w, b;
};

shapes tensor_infos(const iohw_problem *p)
{
    iohw_layout_map xm, wm, ym;
    iohw_error err;
    if (iohw_layout_data_map(p, 0, &xm, &err) != 0 ||
        iohw_layout_weight_map(p, &wm, &err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, &err) != 0)
        throw backend_error(err.msg);
    const armnn::DataType t = data_type(p->dtype);
    unsigned co = static_cast<unsigned>(p->out_channels);
    /* A BFloat16 layer takes a Float32 bias (TransposeConvolution2d-
     * QueueDescriptor::Validate). */
    const armnn::DataType bt = t == armnn::DataType::BFloat16
                                   ? armnn::DataType::Float32
                                   : t;
    return {armnn::TensorInfo(memory_shape(xm), t),
            armnn::TensorInfo(memory_shape(ym), t),
            armnn::TensorInfo(memory_shape(wm), t),
            armnn::TensorInfo(armnn::TensorShape(1, &co), bt)};
}

bool has_output_padding(const iohw_problem *p)
{
    return p->output_padding[0] != 0 || p->output_padding[1] != 0;
}

armnn::TransposeConvolution2dDescriptor descriptor(const iohw_problem *p,
                                                   const shapes &s)
{
    armnn::TransposeConvolution2dDescriptor d;
    d.m_PadTop = static_cast<uint32_t>(p->pad_begin[0]);
    d.m_PadBottom = static_cast<uint32_t>(p->pad_end[0]);
    d.m_PadLeft = static_cast<uint32_t>(p->pad_begin[1]);
    d.m_PadRight = static_cast<uint32_t>(p->pad_end[1]);
    d.m_StrideY = static_cast<uint32_t>(p->stride[0]);
    d.m_StrideX = static_cast<uint32_t>(p->stride[1]);
    d.m_BiasEnabled = p->has_bias != 0;
    d.m_DataLayout = nhwc(p) ? armnn::DataLayout::NHWC
                             : armnn::DataLayout::NCHW;
    if (has_output_padding(p)) {
        const armnn::TensorShape &y = s.y.GetShape();
        d.m_OutputShapeEnabled = true;
        for (unsigned i = 0; i < y.GetNumDimensions(); i++)
            d.m_OutputShape.push_back(y[i]);
    }
    return d;
}

/* 0 when the problem is complete and valid. */
int check(const iohw_problem *p, iohw_error *err)
{
    return skeleton_check(p, err);
}

/* The reason Arm NN's layer cannot state the problem, or "". */
std::string cannot_express(const iohw_problem *p)
{
    if (p->rank != 2)
        return "Arm NN's TransposeConvolution2d is 2-D only (rank " +
               std::to_string(p->rank) + ")";
    if (p->dtype == IOHW_F64)
        return "Arm NN has no 64-bit float tensors (f64)";
    if (p->dtype != IOHW_F32 && p->dtype != IOHW_F16 && p->dtype != IOHW_BF16)
        return "the Arm NN adapter computes float problems only";
    if (p->groups != 1)
        return "Arm NN's TransposeConvolution2dDescriptor has no groups";
    if (p->dilation[0] != 1 || p->dilation[1] != 1)
        return "Arm NN's TransposeConvolution2dDescriptor has no dilation";
    const bool hwc = nhwc(p);
    if (!hwc && std::strcmp(p->data_layout, "NCHW") != 0)
        return "Arm NN takes data in NCHW or NHWC only";
    if (std::strcmp(p->weight_layout, hwc ? "OHWI" : "OIHW") != 0)
        return hwc ? "Arm NN takes the weight as OHWI with NHWC data"
                   : "Arm NN takes the weight as OIHW with NCHW data";
    for (int a = 0; a < 2; a++)
        if (p->pad_begin[a] > UINT32_MAX || p->pad_end[a] > UINT32_MAX ||
            p->stride[a] > UINT32_MAX)
            return "Arm NN's strides and pads are 32-bit";
    return "";
}

/* What CpuRef says of the problem's class ("" when it claims it). */
std::string cpu_ref_verdict(armnn_ctx *c, const iohw_problem *p)
{
    const std::string key = std::to_string(p->dtype) + p->data_layout +
                            (p->has_bias ? "+bias" : "");
    auto it = c->verdicts.find(key);
    if (it != c->verdicts.end())
        return it->second;
    const shapes s = tensor_infos(p);
    std::string why;
    bool ok = c->support->IsTransposeConvolution2dSupported(
        s.x, s.y, descriptor(p, s), s.w,
        p->has_bias ? armnn::Optional<armnn::TensorInfo>(s.b)
                    : armnn::EmptyOptional(),
        armnn::Optional<std::string &>(why));
    if (!ok && why.empty())
        why = "Arm NN's CpuRef backend does not support it";
    else if (!ok)
        why = "Arm NN's CpuRef backend: " + why;
    else
        why.clear();
    c->verdicts[key] = why;
    return why;
}

/* The bias as the layer takes it: bf16 widened to f32 (exact), else as it
 * is. */
const void *layer_bias(const iohw_problem *p, const void *bias,
                       std::vector<float> &wide)
{
    if (p->dtype != IOHW_BF16)
        return bias;
    const uint16_t *b = static_cast<const uint16_t *>(bias);
    wide.resize(static_cast<size_t>(p->out_channels));
    for (size_t i = 0; i < wide.size(); i++) {
        const uint32_t bits = static_cast<uint32_t>(b[i]) << 16;
        std::memcpy(&wide[i], &bits, sizeof bits);
    }
    return wide.data();
}

/* Builds, loads and runs the one-layer network (may throw). */
void compute(armnn_ctx *c, const iohw_problem *p, const void *x,
             const void *w, const void *bias, void *y)
{
    const shapes s = tensor_infos(p);
    std::vector<float> wide;
    if (p->has_bias)
        bias = layer_bias(p, bias, wide);
    const armnn::TransposeConvolution2dDescriptor d = descriptor(p, s);
    armnn::INetworkPtr net = armnn::INetwork::Create();
    armnn::IConnectableLayer *in = net->AddInputLayer(0);
    armnn::IConnectableLayer *tc = net->AddTransposeConvolution2dLayer(
        d, armnn::ConstTensor(s.w, w),
        p->has_bias ? armnn::Optional<armnn::ConstTensor>(
                          armnn::ConstTensor(s.b, bias))
                    : armnn::EmptyOptional());
    armnn::IConnectableLayer *out = net->AddOutputLayer(0);
    in->GetOutputSlot(0).Connect(tc->GetInputSlot(0));
    tc->GetOutputSlot(0).Connect(out->GetInputSlot(0));
    in->GetOutputSlot(0).SetTensorInfo(s.x);

    /* Without output_padding the shape Arm NN infers must be the problem's;
     * with it, the descriptor's output shape states it. */
    if (!d.m_OutputShapeEnabled) {
        armnn::TensorShape got =
            tc->InferOutputShapes({s.x.GetShape(), s.w.GetShape()}).at(0);
        if (got != s.y.GetShape())
            throw backend_error("Arm NN infers " + shape_text(got) +
                                " where " + shape_text(s.y.GetShape()) +
                                " is right");
    }
    tc->GetOutputSlot(0).SetTensorInfo(s.y);

    std::vector<std::string> messages;
    armnn::IOptimizedNetworkPtr opt = armnn::Optimize(
        *net, {armnn::BackendId(CPU_REF)}, c->rt->GetDeviceSpec(),
        armnn::OptimizerOptions(),
        armnn::Optional<std::vector<std::string> &>(messages));
    if (!opt) {
        std::string t = "Arm NN's optimizer failed";
        for (const std::string &m : messages)
            t += ": " + m;
        throw backend_error(t);
    }
    armnn::NetworkId id;
    std::string why;
    if (c->rt->LoadNetwork(id, std::move(opt), why,
                           armnn::INetworkProperties()) !=
        armnn::Status::Success)
        throw backend_error("Arm NN could not load the network: " + why);
    struct unload {
        armnn::IRuntime *rt;
        armnn::NetworkId id;
        ~unload() { rt->UnloadNetwork(id); }
    } guard{c->rt.get(), id};

    const armnn::TensorInfo yi = c->rt->GetOutputTensorInfo(id, 0);
    if (yi.GetShape() != s.y.GetShape())
        throw backend_error("Arm NN infers " + shape_text(yi.GetShape()) +
                            " where " + shape_text(s.y.GetShape()) +
                            " is right");
    armnn::InputTensors inputs{
        {0, armnn::ConstTensor(c->rt->GetInputTensorInfo(id, 0), x)}};
    armnn::OutputTensors outputs{{0, armnn::Tensor(yi, y)}};
    if (c->rt->EnqueueWorkload(id, inputs, outputs) != armnn::Status::Success)
        throw backend_error("Arm NN's EnqueueWorkload failed");
}

/* The first line of an exception's text. */
void record(iohw_error *err, const char *what)
{
    const char *nl = std::strchr(what, '\n');
    int len = nl != nullptr ? (int)(nl - what) : (int)std::strlen(what);
    iohw_error_set(err, "Arm NN: %.*s", len, what);
}

/* Calls f(); every exception becomes IOHW_BACKEND_ERROR (or
 * IOHW_OUT_OF_MEMORY) with its text in c->err. */
template <typename F> int guarded(armnn_ctx *c, F f)
{
    try {
        return f();
    } catch (const backend_error &e) {
        iohw_error_set(&c->err, "%s", e.what());
    } catch (const std::bad_alloc &) {
        iohw_error_set(&c->err, "Arm NN: out of memory");
        return IOHW_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        record(&c->err, e.what());
    } catch (...) {
        iohw_error_set(&c->err, "Arm NN: an exception of unknown type");
    }
    return IOHW_BACKEND_ERROR;
}

int supports(armnn_ctx *c, const iohw_problem *p)
{
    if (check(p, &c->err) != 0)
        return IOHW_UNSUPPORTED;
    const std::string why = cannot_express(p);
    if (!why.empty()) {
        iohw_error_set(&c->err, "%s", why.c_str());
        return IOHW_UNSUPPORTED;
    }
    if (!c->support) {
        iohw_error_set(&c->err, "Arm NN has no CpuRef backend here (Debian: "
                       "libarmnn-cpuref-backend22)");
        return IOHW_UNSUPPORTED;
    }
    const std::string verdict = cpu_ref_verdict(c, p);
    if (!verdict.empty()) {
        iohw_error_set(&c->err, "%s", verdict.c_str());
        return IOHW_UNSUPPORTED;
    }
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

} /* namespace */

extern "C" {

static int armnn_init(void **ctx)
{
    armnn_ctx *c = new (std::nothrow) armnn_ctx();
    if (c == nullptr)
        return IOHW_OUT_OF_MEMORY;
    c->err.msg[0] = '\0';
    try {
        armnn::ConfigureLogging(false, false, armnn::LogSeverity::Fatal);
        c->rt = armnn::IRuntime::Create(armnn::IRuntime::CreationOptions());
        /* Dynamic backends register when the runtime is created. */
        for (const armnn::BackendId &b :
             c->rt->GetDeviceSpec().GetSupportedBackends())
            if (b.Get() == CPU_REF)
                c->support = armnn::GetILayerSupportByBackendId(b);
    } catch (...) {
        delete c;
        return IOHW_BACKEND_ERROR;
    }
    *ctx = c;
    return IOHW_OK;
}

static void armnn_fini(void *ctx)
{
    delete static_cast<armnn_ctx *>(ctx);
}

SKELETON_LAST_ERROR(armnn, armnn_ctx)

static int armnn_supports(void *ctx, const iohw_problem *p)
{
    armnn_ctx *c = static_cast<armnn_ctx *>(ctx);
    if (c == nullptr)
        return IOHW_UNSUPPORTED;
    int st = guarded(c, [&] { return supports(c, p); });
    return st == IOHW_OK ? IOHW_OK : IOHW_UNSUPPORTED;
}

static int armnn_run(void *ctx, const iohw_problem *p, const void *x,
                     const void *w, const void *bias, void *y)
{
    armnn_ctx *c = static_cast<armnn_ctx *>(ctx);
    if (c == nullptr)
        return IOHW_BACKEND_ERROR;
    if (check(p, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (x == nullptr || w == nullptr || y == nullptr ||
        (p->has_bias && bias == nullptr)) {
        iohw_error_set(&c->err, "run: %s is NULL",
                       x == nullptr   ? "x"
                       : w == nullptr ? "w"
                       : y == nullptr ? "y"
                                      : "bias");
        return IOHW_INVALID_PROBLEM;
    }
    return guarded(c, [&] {
        int st = supports(c, p);
        if (st != IOHW_OK)
            return st;
        compute(c, p, x, w, bias, y);
        c->err.msg[0] = '\0';
        return static_cast<int>(IOHW_OK);
    });
}

static const iohw_backend armnn_table = {
    IOHW_ABI_VERSION,
    sizeof(iohw_backend),
    "armnn",
    "Arm NN " IOHW_ARMNN_RELEASE " (libarmnn " ARMNN_VERSION
    IOHW_ARMNN_PACKAGE "), TransposeConvolution2d on the CpuRef backend",
    armnn_init,
    armnn_fini,
    armnn_supports,
    armnn_run,
    armnn_last_error,
    nullptr,
    nullptr,
    nullptr,
};

SKELETON_ENTRY(armnn_table)

} /* extern "C" */
