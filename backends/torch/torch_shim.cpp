/*
 * backends/torch/torch_shim.cpp - libtorch's conv_transpose behind the iohw
 * backend ABI (libiohw_torch.so; C++ inside, a C entry point outside).
 *
 * Correspondence (at::conv_transpose1d/2d/3d, PyTorch semantics):
 *   input   x viewed as [N][C_in][spatial] (torch::from_blob with the
 *           strides of the case's data layout: no copy)
 *   weight  [C_in][Mg][K...] = the semantic w ("IO" + spatial).  A weight
 *           layout without a G axis is a strided view of it; one with a G
 *           axis is viewed as [G][Cg][Mg][K...] and reshaped (a copy when
 *           the strides do not merge)
 *   bias    [C_out] or none
 *   stride, dilation, groups as they are.
 * PyTorch pads symmetrically and limits output_padding to below
 * max(stride, dilation).  Per axis, with p = min(pad_begin, pad_end):
 *   native:   padding p, output_padding A' = max(0, A - (pad_end - p));
 *             torch's output then starts pad_begin - p elements before ours
 *             and is at least as long as needed, so y is the crop starting
 *             there (exact: cropping an output never changes its values);
 *   beyond:   when A' >= max(S, dilation), padding 0 and output_padding 0
 *             give the full output F (every position any (i, k) reaches);
 *             y[o] = F[o + pad_begin] where that exists, and bias (or 0)
 *             where it does not - exactly the definition, since no term
 *             reaches those positions.
 * y is written through a strided view in the case's data layout.
 *
 * What it claims: every valid problem whose rank and dtype libtorch
 * computes on this machine, which supports() finds out once per (rank,
 * dtype) by running a tiny conv_transpose (this build: f32 and f64; its
 * own CPU kernels have no bf16 or f16 transposed convolution); quantized
 * problems as torch_quant.cpp says (run_quant, the qnnpack engine).  Every C++
 * exception becomes IOHW_BACKEND_ERROR with its text in last_error.
 * libtorch runs on one thread (at::set_num_threads(1)).
 *
 * The tensor libtorch returns must have the shape PyTorch documents for
 * ConvTranspose (N, C_out, (in - 1) * S - 2 P + D (K - 1) + A + 1 per axis,
 * for the arguments passed): anything else is IOHW_BACKEND_ERROR "libtorch
 * returned [..] where [..] is right", never cropped into y.  On CPUs with
 * AVX-512 (BW, VL, DQ) libtorch 1.13 sends bf16 conv_transpose to mkldnn's
 * forward convolution (fixed by pytorch/pytorch#92530, PyTorch 2.0), which
 * reads the weight as OIHW and errors or returns such a shape.
 *
 * IOHW_TORCH_MKLDNN=0 in the environment turns libtorch's mkldnn paths off
 * (at::globalContext().setUserEnabledMkldnn(false)) so that libtorch picks
 * the same kernels on every x86-64 CPU; the adapter's tests set it, users'
 * runs leave libtorch as it ships.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include "backends/skeleton_check.h"
#include "iohw/backend.h"
extern "C" {
#include "oracle/error.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
}
#include "backends/torch/torch_bwd.h"
#include "backends/torch/torch_quant.h"

#define TORCH_SHIM_STR_(x) #x
#define TORCH_SHIM_STR(x) TORCH_SHIM_STR_(x)
#ifndef IOHW_TORCH_PACKAGE
#define IOHW_TORCH_PACKAGE ""
#endif

namespace {

struct torch_ctx {
    iohw_error err;
    /* Per rank (1..3) and dtype (1..4): 0 not asked, 1 computed, -1 not. */
    signed char usable[4][5];
    char why[4][5][200];
    /* The same for the backward directions, [direction][rank][dtype]. */
    signed char usable_bwd[3][4][5];
    char why_bwd[3][4][5][200];
};

at::ScalarType scalar_type(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F64: return at::kDouble;
    case IOHW_F16: return at::kHalf;
    case IOHW_BF16: return at::kBFloat16;
    default: return at::kFloat;
    }
}

at::Tensor conv(int rank, const at::Tensor &x, const at::Tensor &w,
                const at::Tensor &b, at::IntArrayRef stride,
                at::IntArrayRef padding, at::IntArrayRef output_padding,
                int64_t groups, at::IntArrayRef dilation)
{
    switch (rank) {
    case 1:
        return at::conv_transpose1d(x, w, b, stride, padding, output_padding,
                                    groups, dilation);
    case 2:
        return at::conv_transpose2d(x, w, b, stride, padding, output_padding,
                                    groups, dilation);
    default:
        return at::conv_transpose3d(x, w, b, stride, padding, output_padding,
                                    groups, dilation);
    }
}

/* A tensor of the wrong shape from libtorch (the message says which). */
struct shape_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/* "[1,4,7,9,10]" */
std::string shape_text(at::IntArrayRef s)
{
    std::string t = "[";
    for (size_t i = 0; i < s.size(); i++)
        t += (i > 0 ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

/* Throws shape_error unless out has the shape PyTorch's documented
 * ConvTranspose formula gives for these arguments. */
void check_shape(const at::Tensor &out, int64_t n, int64_t c_out,
                 at::IntArrayRef in, at::IntArrayRef k, at::IntArrayRef S,
                 at::IntArrayRef P, at::IntArrayRef A, at::IntArrayRef D)
{
    std::vector<int64_t> want{n, c_out};
    for (size_t a = 0; a < in.size(); a++)
        want.push_back((in[a] - 1) * S[a] - 2 * P[a] + D[a] * (k[a] - 1) +
                       A[a] + 1);
    if (out.sizes() != at::IntArrayRef(want))
        throw shape_error("libtorch returned " + shape_text(out.sizes()) +
                          " where " + shape_text(want) + " is right");
}

/* The first line of an exception's text (c10 errors carry a backtrace). */
void record(iohw_error *err, const char *what, const char *prefix)
{
    const char *nl = std::strchr(what, '\n');
    int len = nl != nullptr ? (int)(nl - what) : (int)std::strlen(what);
    iohw_error_set(err, "%s%.*s", prefix, len, what);
}

/* A strided view of one of the harness's tensors (not copied; inputs are
 * only read through it). */
at::Tensor view(const void *buf, const iohw_layout_map &m, int first,
                int n, at::ScalarType st)
{
    std::vector<int64_t> sizes(m.canon_shape + first,
                               m.canon_shape + first + n);
    std::vector<int64_t> strides(m.canon_stride + first,
                                 m.canon_stride + first + n);
    return at::from_blob(const_cast<void *>(buf), sizes, strides,
                         at::TensorOptions().dtype(st));
}

/* 1 when libtorch computes a transposed convolution of this rank and
 * dtype here; asked once with a tiny problem. */
int usable(torch_ctx *c, int rank, iohw_dtype dt)
{
    signed char &u = c->usable[rank][dt];
    if (u != 0)
        return u > 0;
    try {
        std::vector<int64_t> xs{1, 1}, ws{1, 1}, ones(rank, 1), zeros(rank, 0);
        for (int a = 0; a < rank; a++) {
            xs.push_back(2);
            ws.push_back(2);
        }
        auto opt = at::TensorOptions().dtype(scalar_type(dt));
        at::Tensor y = conv(rank, at::ones(xs, opt), at::ones(ws, opt),
                            at::ones({1}, opt), ones, zeros, zeros, 1, ones);
        u = y.dim() == rank + 2 ? 1 : -1;
        std::snprintf(c->why[rank][dt], sizeof c->why[rank][dt],
                      "libtorch returned a tensor of %d dimensions",
                      (int)y.dim());
    } catch (const c10::Error &e) {
        u = -1;
        std::snprintf(c->why[rank][dt], sizeof c->why[rank][dt],
                      "libtorch does not compute this dtype: %.160s",
                      e.what_without_backtrace());
    } catch (const std::exception &e) {
        u = -1;
        std::snprintf(c->why[rank][dt], sizeof c->why[rank][dt],
                      "libtorch does not compute this dtype: %.160s",
                      e.what());
    }
    if (char *nl = std::strchr(c->why[rank][dt], '\n'))
        *nl = '\0';
    return u > 0;
}

/* 0 when the problem is complete and valid. */
int check(const iohw_problem *p, iohw_error *err)
{
    if (skeleton_check(p, err) != 0)
        return -1;
    /* The float types or a quantized problem (usable() indexes its table
     * by the float types only). */
    if ((p->dtype < IOHW_F32 || p->dtype > IOHW_BF16) &&
        !iohw_problem_is_quant(p))
        return iohw_error_set(err, "dtype %d is not a float type",
                              (int)p->dtype);
    return 0;
}

/* The computation (may throw). */
void compute(const iohw_problem *p, const void *x, const void *w,
             const void *bias, void *y)
{
    const int R = (int)p->rank;
    const int64_t G = p->groups;
    const int64_t Mg = p->out_channels / G;
    const at::ScalarType st = scalar_type(p->dtype);
    iohw_layout_map xm, wm, ym;
    iohw_error err;

    if (iohw_layout_data_map(p, 0, &xm, &err) != 0 ||
        iohw_layout_weight_map(p, &wm, &err) != 0 ||
        iohw_layout_data_map(p, 1, &ym, &err) != 0)
        throw std::runtime_error(err.msg);

    /* Tensors: x and y as [N][C][spatial]; w as [C_in][Mg][K...]. */
    at::Tensor tx = view(x, xm, 0, 2 + R, st);
    at::Tensor ty = view(y, ym, 0, 2 + R, st);
    std::vector<int64_t> wsizes{p->in_channels, Mg};
    for (int a = 0; a < R; a++)
        wsizes.push_back(p->kernel[a]);
    at::Tensor tw = view(w, wm, 0, 3 + R, st).reshape(wsizes);
    at::Tensor tb = p->has_bias ? at::from_blob(const_cast<void *>(bias),
                                                {p->out_channels},
                                                at::TensorOptions().dtype(st))
                                : at::Tensor();

    /* Symmetric padding and an output_padding torch accepts, per axis. */
    std::vector<int64_t> S(R), D(R), P(R), A(R), start(R), count(R);
    for (int a = 0; a < R; a++) {
        const int64_t pb = p->pad_begin[a], pe = p->pad_end[a];
        S[a] = p->stride[a];
        D[a] = p->dilation[a];
        P[a] = std::min(pb, pe);
        A[a] = std::max<int64_t>(0, p->output_padding[a] - (pe - P[a]));
        if (A[a] >= std::max(S[a], D[a])) {
            P[a] = 0;
            A[a] = 0;
        }
        start[a] = pb - P[a];
    }
    at::Tensor full = conv(R, tx, tw, tb, S, P, A, G, D);
    check_shape(full, p->batch, p->out_channels,
                at::IntArrayRef(tx.sizes()).slice(2),
                at::IntArrayRef(tw.sizes()).slice(2), S, P, A, D);

    /* Crop (and, beyond torch's limit, extend with bias) into y. */
    bool whole = true;
    for (int a = 0; a < R; a++) {
        const int64_t avail = full.size(2 + a) - start[a];
        count[a] = std::max<int64_t>(0, std::min(p->out_size[a], avail));
        whole = whole && count[a] == p->out_size[a];
    }
    if (!whole) {
        if (p->has_bias) {
            std::vector<int64_t> bshape(2 + R, 1);
            bshape[1] = p->out_channels;
            ty.copy_(tb.view(bshape).expand_as(ty));
        } else {
            ty.zero_();
        }
    }
    at::Tensor src = full, dst = ty;
    for (int a = 0; a < R; a++) {
        if (count[a] == 0)
            return;
        src = src.narrow(2 + a, start[a], count[a]);
        dst = dst.narrow(2 + a, 0, count[a]);
    }
    dst.copy_(src);
}

/* Runs f (which returns a status); every exception is an error of the
 * backend, with its text in err.  The message is cleared on IOHW_OK. */
template <typename F> int guarded(iohw_error *err, F &&f)
{
    int st;
    try {
        st = f();
    } catch (const shape_error &e) {
        iohw_error_set(err, "%s", e.what());
        return IOHW_BACKEND_ERROR;
    } catch (const c10::Error &e) {
        record(err, e.what_without_backtrace(), "libtorch: ");
        return IOHW_BACKEND_ERROR;
    } catch (const std::bad_alloc &) {
        iohw_error_set(err, "libtorch: out of memory");
        return IOHW_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        record(err, e.what(), "libtorch: ");
        return IOHW_BACKEND_ERROR;
    } catch (...) {
        iohw_error_set(err, "libtorch: an exception of unknown type");
        return IOHW_BACKEND_ERROR;
    }
    if (st == IOHW_OK)
        err->msg[0] = '\0';
    return st;
}

} /* namespace */

extern "C" {

static int torch_init(void **ctx)
{
    torch_ctx *c = static_cast<torch_ctx *>(std::calloc(1, sizeof *c));
    if (c == nullptr)
        return IOHW_OUT_OF_MEMORY;
    try {
        at::set_num_threads(1);
        const char *mkldnn = std::getenv("IOHW_TORCH_MKLDNN");
        if (mkldnn != nullptr && std::strcmp(mkldnn, "0") == 0)
            at::globalContext().setUserEnabledMkldnn(false);
    } catch (...) {
        /* keep libtorch's defaults */
    }
    *ctx = c;
    return IOHW_OK;
}

static void torch_fini(void *ctx)
{
    std::free(ctx);
}

SKELETON_LAST_ERROR(torch, torch_ctx)

/* A backward problem (specification section 13): claimed when libtorch
 * computes its direction for this rank and dtype (asked once). */
static int supports_bwd(torch_ctx *c, const iohw_problem *p)
{
    const int d = p->direction, r = (int)p->rank, t = p->dtype;
    signed char &u = c->usable_bwd[d][r][t];
    if (u == 0)
        u = iohw__torch_bwd_probe(d, r, t, c->why_bwd[d][r][t],
                                  sizeof c->why_bwd[d][r][t]) ? 1 : -1;
    if (u < 0) {
        iohw_error_set(&c->err, "%s", c->why_bwd[d][r][t]);
        return IOHW_UNSUPPORTED;
    }
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

static int torch_supports(void *ctx, const iohw_problem *p)
{
    torch_ctx *c = static_cast<torch_ctx *>(ctx);
    if (c == nullptr || check(p, &c->err) != 0)
        return IOHW_UNSUPPORTED;
    if (iohw_problem_is_backward(p))
        return supports_bwd(c, p);
    if (iohw_problem_is_quant(p)) {
        int rc = IOHW_UNSUPPORTED;
        try {
            rc = iohw__torch_quant_refuse(p, &c->err) == 0 ? IOHW_OK
                                                           : IOHW_UNSUPPORTED;
        } catch (const std::exception &e) {
            record(&c->err, e.what(), "libtorch: ");
        }
        if (rc == IOHW_OK)
            c->err.msg[0] = '\0';
        return rc;
    }
    if (!usable(c, (int)p->rank, p->dtype)) {
        iohw_error_set(&c->err, "%s", c->why[p->rank][p->dtype]);
        return IOHW_UNSUPPORTED;
    }
    c->err.msg[0] = '\0';
    return IOHW_OK;
}

/* run() and run_quant() (requant_call): the arguments, then the
 * computation; every exception is an error of the backend. */
static int torch_call(void *ctx, const iohw_problem *p, const void *x,
                      const void *w, const void *bias, const void *requant,
                      void *y, bool requant_call)
{
    torch_ctx *c = static_cast<torch_ctx *>(ctx);

    /* Test the arguments. */
    if (c == nullptr)
        return IOHW_BACKEND_ERROR;
    if (check(p, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (iohw_problem_is_backward(p)) {
        iohw_error_set(&c->err, "run: the problem is %s (run_bwd_data or "
                       "run_bwd_weights computes it)",
                       iohw_direction_name(p));
        return IOHW_INVALID_PROBLEM;
    }
    const bool quant = iohw_problem_is_quant(p) != 0;
    if (quant != requant_call) {
        iohw_error_set(&c->err, quant ? "run: the problem is quantized "
                                        "(run_quant computes it)"
                                      : "run_quant: the problem is not "
                                        "quantized");
        return IOHW_INVALID_PROBLEM;
    }
    if (x == nullptr || w == nullptr || y == nullptr ||
        (p->has_bias && bias == nullptr) || (quant && requant == nullptr)) {
        iohw_error_set(&c->err, "run: %s is NULL",
                       x == nullptr   ? "x"
                       : w == nullptr ? "w"
                       : y == nullptr ? "y"
                       : requant == nullptr && quant ? "requant"
                                      : "bias");
        return IOHW_INVALID_PROBLEM;
    }
    if (quant && iohw__torch_quant_refuse(p, &c->err) != 0)
        return IOHW_UNSUPPORTED;

    /* Compute. */
    return guarded(&c->err, [&]() -> int {
        if (quant)
            return iohw__torch_quant_compute(
                p, x, w, static_cast<const int32_t *>(bias),
                static_cast<const float *>(requant), y, &c->err);
        compute(p, x, w, bias, y);
        return IOHW_OK;
    });
}

static int torch_run(void *ctx, const iohw_problem *p, const void *x,
                     const void *w, const void *bias, void *y)
{
    return torch_call(ctx, p, x, w, bias, nullptr, y, false);
}

static int torch_run_quant(void *ctx, const iohw_problem *p, const void *x,
                           const void *w, const void *bias,
                           const void *requant, void *y)
{
    return torch_call(ctx, p, x, w, bias, requant, y, true);
}

/* The backward directions (specification section 13, torch_bwd.cpp). */
static int bwd_args(torch_ctx *c, const iohw_problem *p, int dir,
                    const char *fn)
{
    if (c == nullptr)
        return IOHW_BACKEND_ERROR;
    if (check(p, &c->err) != 0)
        return IOHW_INVALID_PROBLEM;
    if (p->direction != dir) {
        iohw_error_set(&c->err, "%s: the problem's direction is %s", fn,
                       iohw_direction_name(p));
        return IOHW_INVALID_PROBLEM;
    }
    return IOHW_OK;
}

static int torch_run_bwd_data(void *ctx, const iohw_problem *p,
                              const void *dy, const void *w, void *dx)
{
    torch_ctx *c = static_cast<torch_ctx *>(ctx);
    int st = bwd_args(c, p, IOHW_DIR_BWD_D, "run_bwd_data");
    if (st != IOHW_OK)
        return st;
    if (dy == nullptr || w == nullptr || dx == nullptr) {
        iohw_error_set(&c->err, "run_bwd_data: %s is NULL",
                       dy == nullptr ? "dy" : w == nullptr ? "w" : "dx");
        return IOHW_INVALID_PROBLEM;
    }
    return guarded(&c->err, [&]() -> int {
        iohw__torch_bwd_data(p, dy, w, dx);
        return IOHW_OK;
    });
}

static int torch_run_bwd_weights(void *ctx, const iohw_problem *p,
                                 const void *x, const void *dy, void *dw,
                                 void *db)
{
    torch_ctx *c = static_cast<torch_ctx *>(ctx);
    int st = bwd_args(c, p, IOHW_DIR_BWD_W, "run_bwd_weights");
    if (st != IOHW_OK)
        return st;
    if (x == nullptr || dy == nullptr || dw == nullptr ||
        (p->has_bias && db == nullptr)) {
        iohw_error_set(&c->err, "run_bwd_weights: %s is NULL",
                       x == nullptr    ? "x"
                       : dy == nullptr ? "dy"
                       : dw == nullptr ? "dw"
                                       : "db");
        return IOHW_INVALID_PROBLEM;
    }
    return guarded(&c->err, [&]() -> int {
        iohw__torch_bwd_weights(p, x, dy, dw, db);
        return IOHW_OK;
    });
}

static const iohw_backend torch_table = {
    IOHW_ABI_VERSION,
    sizeof(iohw_backend),
    "torch",
    "libtorch " TORCH_SHIM_STR(TORCH_VERSION_MAJOR) "." TORCH_SHIM_STR(
        TORCH_VERSION_MINOR) "." TORCH_SHIM_STR(TORCH_VERSION_PATCH)
        IOHW_TORCH_PACKAGE " (at::conv_transpose1d/2d/3d; "
        "quantized::conv_transpose1d/2d, qnnpack; "
        "at::convolution_backward, transposed)",
    torch_init,
    torch_fini,
    torch_supports,
    torch_run,
    torch_last_error,
    torch_run_quant,
    torch_run_bwd_data,
    torch_run_bwd_weights,
};

SKELETON_ENTRY(torch_table)

} /* extern "C" */
