/*
 * backends/opencv/opencv_shim.cpp - OpenCV DNN's ConvTranspose behind the
 * iohw backend ABI (libiohw_opencv.so; C++ inside, a C entry point outside).
 *
 * How a user of OpenCV runs a transposed convolution: an ONNX model read
 * by cv::dnn::readNetFromONNX.  run() builds that model in memory for the
 * problem (one ConvTranspose node, opset 11, opencv_onnx.cpp), with
 *   X  [N][C_in][H][W]      the case's x (NCHW), copied into a cv::Mat
 *   W  [C_in][Mg][KH][KW]   the case's w (IOHW: ONNX's own weight layout)
 *   B  [C_out]              the bias, when the problem has one
 *   strides, dilations, group, output_padding as they are, pads
 *   [pad_begin..., pad_end...]
 * reads it, runs it on OpenCV's own backend and CPU target with one
 * thread, and copies the output into y (NCHW) after checking its shape.
 *
 * What it claims (specification section 5: claim only what is computed):
 * rank 2, f32, NCHW with IOHW (iohw run --adapt-layout re-expresses the
 * other layouts), symmetric pads, output_padding below the stride and
 * dense kernels.  OpenCV 4.6 refuses the rest while reading the model
 * (ranks 1 and 3, asymmetric pads, output_padding >= stride), has no f16
 * path on the CPU (its FP16 targets are OpenCL, CUDA and Myriad), and
 * ignores ConvTranspose's dilations (it computes the dense kernel's output,
 * of the dense kernel's shape: docs/CONFORMANCE.md V1), so supports()
 * refuses each of those with the reason.  Every cv::Exception becomes
 * IOHW_BACKEND_ERROR with its whole text in last_error; an output of the
 * wrong shape is IOHW_BACKEND_ERROR naming both shapes, never cropped.
 * OpenCV's blobs get slack (opencv_alloc.h) so that V2's write past the
 * output blob stays inside it: the case FAILs on OpenCV's values instead
 * of corrupting the heap of the worker, which runs later cases too.
 */
#include <climits>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/core/version.hpp>
#include <opencv2/dnn.hpp>

#include "backends/opencv/opencv_alloc.h"
#include "backends/opencv/opencv_onnx.h"
#include "backends/skeleton_check.h"
#include "iohw/backend.h"
extern "C" {
#include "oracle/error.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
}

#ifndef IOHW_OPENCV_PACKAGE
#define IOHW_OPENCV_PACKAGE ""
#endif

namespace {

struct opencv_ctx {
    std::string msg; /* last_error(): never cut */
};

/* Why OpenCV cannot compute p's kind (direction, dtype, rank), or "". */
std::string refuse_kind(const iohw_problem *p)
{
    if (iohw_problem_is_backward(p))
        return std::string("OpenCV DNN has no ") + iohw_direction_name(p) +
               " for ConvTranspose";
    if (iohw_problem_is_quant(p))
        return "OpenCV DNN reads no quantized ConvTranspose from ONNX";
    if (p->dtype == IOHW_F16)
        return "OpenCV 4.6 computes no f16 on the CPU (its FP16 targets are "
               "OpenCL, CUDA and Myriad)";
    if (p->dtype != IOHW_F32)
        return "OpenCV DNN computes f32 only (dtype " +
               std::to_string(p->dtype) + ")";
    if (p->rank != 2)
        return "OpenCV 4.6's Deconvolution layer computes rank 2 only (rank " +
               std::to_string(p->rank) + ": " +
               (p->rank == 1 ? "'inputs[0].dims == outputs[0].dims' fails"
                             : "\"unsupported on OpenCV backend\"") +
               ")";
    return "";
}

/* Why OpenCV cannot compute axis a (0: H, 1: W) of p, or "". */
std::string refuse_axis(const iohw_problem *p, int a)
{
    const std::string axis = a == 0 ? "H" : "W";
    if (p->pad_begin[a] != p->pad_end[a])
        return "OpenCV 4.6 refuses asymmetric pads (" + axis + ": " +
               std::to_string(p->pad_begin[a]) + " and " +
               std::to_string(p->pad_end[a]) + "): \"Unsupported "
               "asymmetric padding in convolution layer\"";
    if (p->output_padding[a] >= p->stride[a])
        return "OpenCV 4.6 refuses output_padding >= stride (" + axis + ": " +
               std::to_string(p->output_padding[a]) + " >= " +
               std::to_string(p->stride[a]) + "): 'adjust_pads[i] < "
               "strides[i]' fails";
    /* A dilation on an axis of kernel extent 1 changes nothing. */
    if (p->dilation[a] != 1 && p->kernel[a] > 1)
        return "OpenCV 4.6 ignores ConvTranspose's dilations (" + axis + ": " +
               std::to_string(p->dilation[a]) + "): it computes the dense "
               "kernel (docs/CONFORMANCE.md V1)";
    return "";
}

/* The reason OpenCV cannot compute p, or "" when it can. */
std::string refusal(const iohw_problem *p)
{
    std::string why = refuse_kind(p);
    for (int a = 0; a < 2 && why.empty() && p->rank == 2; a++)
        why = refuse_axis(p, a);
    if (!why.empty())
        return why;
    /* Last, so that a problem OpenCV cannot compute in any layout says
     * why (iohw run --adapt-layout re-expresses the others). */
    if (std::strcmp(p->data_layout, "NCHW") != 0 ||
        std::strcmp(p->weight_layout, "IOHW") != 0)
        return std::string("ONNX states NCHW with IOHW (not ") +
               p->data_layout + " with " + p->weight_layout + ")";
    const int64_t dims[] = {p->batch, p->in_channels, p->out_channels,
                            p->in_size[0], p->in_size[1], p->out_size[0],
                            p->out_size[1], p->kernel[0], p->kernel[1]};
    for (int64_t d : dims)
        if (d > INT_MAX)
            return "OpenCV's shapes are int: an extent of " +
                   std::to_string(d) + " does not fit";
    return "";
}

/* "[1,4,7,9]" */
std::string shape_text(const std::vector<int64_t> &s)
{
    std::string t = "[";
    for (size_t i = 0; i < s.size(); i++)
        t += (i > 0 ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

/* OpenCV's multi-line exception text on one line, whole. */
std::string one_line(const char *what)
{
    std::string s = what;
    for (char &ch : s)
        if (ch == '\n')
            ch = ' ';
    while (!s.empty() && (s.back() == ' ' || s.back() == '>'))
        s.pop_back();
    return s;
}

/* The computation (may throw cv::Exception or std::exception); "" when y
 * was written, else why not. */
std::string compute(const iohw_problem *p, const float *x, const float *w,
                    const float *bias, float *y)
{
    const int64_t G = p->groups, Mg = p->out_channels / G;
    iohw_opencv_node n;
    n.x_shape = {p->batch, p->in_channels, p->in_size[0], p->in_size[1]};
    n.y_shape = {p->batch, p->out_channels, p->out_size[0], p->out_size[1]};
    n.w_shape = {p->in_channels, Mg, p->kernel[0], p->kernel[1]};
    n.kernel = {p->kernel[0], p->kernel[1]};
    n.strides = {p->stride[0], p->stride[1]};
    n.dilations = {p->dilation[0], p->dilation[1]};
    n.output_padding = {p->output_padding[0], p->output_padding[1]};
    n.pads = {p->pad_begin[0], p->pad_begin[1], p->pad_end[0], p->pad_end[1]};
    n.group = G;
    n.w = w;
    n.bias = p->has_bias ? bias : nullptr;
    const std::string model = iohw__opencv_onnx_model(n);
    /* Every blob gets room for the whole uncropped output of a 1x1 kernel:
     * OpenCV 4.6 writes that much into a cropped one (V2), and then
     * damages only its own slack, not the memory of later cases. */
    iohw_opencv_slack_scope slack(static_cast<size_t>(
        (p->batch * p->out_channels * p->in_size[0] * p->in_size[1] + 1024) *
        (int64_t)sizeof(float)));

    cv::dnn::Net net = cv::dnn::readNetFromONNX(model.data(), model.size());
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    /* A copy: x is the host's (read-only), and setInput keeps the Mat. */
    const int xs[4] = {(int)p->batch, (int)p->in_channels, (int)p->in_size[0],
                       (int)p->in_size[1]};
    cv::Mat in = cv::Mat(4, xs, CV_32F, const_cast<float *>(x)).clone();
    net.setInput(in, "X");
    cv::Mat out = net.forward();

    std::vector<int64_t> got;
    for (int i = 0; i < out.dims; i++)
        got.push_back(out.size[i]);
    if (got != n.y_shape || out.type() != CV_32F)
        return "OpenCV returned " + shape_text(got) + " where " +
               shape_text(n.y_shape) + " is right";
    if (!out.isContinuous())
        out = out.clone();
    std::memcpy(y, out.ptr<float>(), out.total() * sizeof(float));
    return "";
}

} /* namespace */

extern "C" {

static int opencv_init(void **ctx)
{
    opencv_ctx *c = new (std::nothrow) opencv_ctx;
    if (c == nullptr)
        return IOHW_OUT_OF_MEMORY;
    try {
        cv::setNumThreads(1);
        cv::utils::logging::setLogLevel(
            cv::utils::logging::LOG_LEVEL_SILENT);
    } catch (...) {
        /* keep OpenCV's defaults */
    }
    *ctx = c;
    return IOHW_OK;
}

static void opencv_fini(void *ctx)
{
    delete static_cast<opencv_ctx *>(ctx);
}

static const char *opencv_last_error(void *ctx)
{
    const opencv_ctx *c = static_cast<const opencv_ctx *>(ctx);
    return c != nullptr ? c->msg.c_str() : "";
}

/* 0 when p is valid and OpenCV computes it; else the status, with the
 * reason in c->msg. */
static int claim(opencv_ctx *c, const iohw_problem *p, int invalid)
{
    iohw_error err;
    if (skeleton_check(p, &err) != 0) {
        c->msg = err.msg;
        return invalid;
    }
    c->msg = refusal(p);
    return c->msg.empty() ? IOHW_OK : IOHW_UNSUPPORTED;
}

static int opencv_supports(void *ctx, const iohw_problem *p)
{
    opencv_ctx *c = static_cast<opencv_ctx *>(ctx);
    if (c == nullptr)
        return IOHW_UNSUPPORTED;
    return claim(c, p, IOHW_UNSUPPORTED);
}

static int opencv_run(void *ctx, const iohw_problem *p, const void *x,
                      const void *w, const void *bias, void *y)
{
    opencv_ctx *c = static_cast<opencv_ctx *>(ctx);
    if (c == nullptr)
        return IOHW_BACKEND_ERROR;
    int st = claim(c, p, IOHW_INVALID_PROBLEM);
    if (st != IOHW_OK)
        return st;
    if (const char *null = skeleton_null_tensor(p, x, w, bias, y)) {
        c->msg = std::string("run: ") + null + " is NULL";
        return IOHW_INVALID_PROBLEM;
    }
    try {
        c->msg = compute(p, static_cast<const float *>(x),
                         static_cast<const float *>(w),
                         static_cast<const float *>(bias),
                         static_cast<float *>(y));
    } catch (const cv::Exception &e) {
        c->msg = "OpenCV: " + one_line(e.what());
    } catch (const std::bad_alloc &) {
        c->msg = "OpenCV: out of memory";
        return IOHW_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        c->msg = std::string("OpenCV: ") + one_line(e.what());
    } catch (...) {
        c->msg = "OpenCV: an exception of unknown type";
    }
    return c->msg.empty() ? IOHW_OK : IOHW_BACKEND_ERROR;
}

static const iohw_backend opencv_table = {
    IOHW_ABI_VERSION,
    sizeof(iohw_backend),
    "opencv",
    "OpenCV " CV_VERSION IOHW_OPENCV_PACKAGE " (readNetFromONNX, "
    "ConvTranspose; OpenCV backend, CPU target, 1 thread)",
    opencv_init,
    opencv_fini,
    opencv_supports,
    opencv_run,
    opencv_last_error,
    nullptr,
    nullptr,
    nullptr,
};

SKELETON_ENTRY(opencv_table)

} /* extern "C" */
