/*
 * backends/torch/torch_bwd.cpp - the backward directions of libtorch's
 * transposed convolution (specification section 13) through
 * at::convolution_backward(..., transposed=true, ...): the kernels autograd
 * runs for conv_transpose1d/2d/3d.
 *
 * The forward call of torch_shim.cpp is rebuilt per axis: symmetric
 * padding P = min(pad_begin, pad_end) with output_padding A' (or P = 0,
 * A' = 0 beyond torch's limit), torch's full output F, and our y as the
 * window of F starting at pad_begin - P.  Since y is a crop of F, dF (the
 * gradient of F) is dy placed at that window and zero elsewhere: positions
 * of F outside the window do not reach y, and positions of y outside F
 * (beyond the limit) are reached by no term.  The backward of F then is
 * exactly the backward of y, with torch's own symmetric arguments.
 *
 * Tensors are strided views of the harness's buffers in the problem's
 * layouts (no copy for the inputs; the outputs are written through views).
 * The results must have the shapes of x, w and bias; anything else is an
 * error, never cropped.
 */
#include "backends/torch/torch_bwd.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ATen.h>

extern "C" {
#include "oracle/error.h"
#include "oracle/layout.h"
}

namespace {

at::ScalarType bwd_scalar_type(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F64: return at::kDouble;
    case IOHW_F16: return at::kHalf;
    case IOHW_BF16: return at::kBFloat16;
    default: return at::kFloat;
    }
}

/* A strided view of a harness buffer over canonical axes [first, first+n). */
at::Tensor bwd_view(const void *buf, const iohw_layout_map &m, int first,
                    int n, at::ScalarType st)
{
    std::vector<int64_t> sizes(m.canon_shape + first,
                               m.canon_shape + first + n);
    std::vector<int64_t> strides(m.canon_stride + first,
                                 m.canon_stride + first + n);
    return at::from_blob(const_cast<void *>(buf), sizes, strides,
                         at::TensorOptions().dtype(st));
}

/* torch's arguments per axis and where y lies in torch's output F. */
struct plan {
    std::vector<int64_t> S, D, P, A, start, count, F;
};

plan make_plan(const iohw_problem *p)
{
    const int R = (int)p->rank;
    plan q;
    for (int a = 0; a < R; a++) {
        const int64_t pb = p->pad_begin[a], pe = p->pad_end[a];
        const int64_t S = p->stride[a], D = p->dilation[a];
        int64_t P = std::min(pb, pe);
        int64_t A = std::max<int64_t>(0, p->output_padding[a] - (pe - P));
        if (A >= std::max(S, D)) {
            P = 0;
            A = 0;
        }
        const int64_t F = (p->in_size[a] - 1) * S - 2 * P +
                          D * (p->kernel[a] - 1) + A + 1;
        q.S.push_back(S);
        q.D.push_back(D);
        q.P.push_back(P);
        q.A.push_back(A);
        q.start.push_back(pb - P);
        q.F.push_back(F);
        q.count.push_back(std::max<int64_t>(
            0, std::min(p->out_size[a], F - (pb - P))));
    }
    return q;
}

/* dF: dy at its window of F, zero elsewhere ([N][C_out][F...]). */
at::Tensor grad_full(const iohw_problem *p, const plan &q, const void *dy,
                     at::ScalarType st)
{
    const int R = (int)p->rank;
    iohw_layout_map ym;
    iohw_error err;
    if (iohw_layout_data_map(p, 1, &ym, &err) != 0)
        throw std::runtime_error(err.msg);
    at::Tensor tdy = bwd_view(dy, ym, 0, 2 + R, st);
    std::vector<int64_t> fs{p->batch, p->out_channels};
    fs.insert(fs.end(), q.F.begin(), q.F.end());
    at::Tensor dF = at::zeros(fs, at::TensorOptions().dtype(st));
    at::Tensor dst = dF, src = tdy;
    for (int a = 0; a < R; a++) {
        if (q.count[a] == 0)
            return dF;
        dst = dst.narrow(2 + a, q.start[a], q.count[a]);
        src = src.narrow(2 + a, 0, q.count[a]);
    }
    dst.copy_(src);
    return dF;
}

/* 1 when y lies inside torch's output F on every axis. */
bool whole(const iohw_problem *p, const plan &q)
{
    for (unsigned a = 0; a < p->rank; a++)
        if (q.count[a] != p->out_size[a])
            return false;
    return true;
}

/* w's semantic shape [C_in][Mg][K...]. */
std::vector<int64_t> weight_sizes(const iohw_problem *p)
{
    std::vector<int64_t> s{p->in_channels, p->out_channels / p->groups};
    for (unsigned a = 0; a < p->rank; a++)
        s.push_back(p->kernel[a]);
    return s;
}

std::string sizes_text(at::IntArrayRef s)
{
    std::string t = "[";
    for (size_t i = 0; i < s.size(); i++)
        t += (i > 0 ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

void expect_sizes(const char *what, const at::Tensor &t,
                  at::IntArrayRef want)
{
    if (t.sizes() != want)
        throw std::runtime_error(std::string("libtorch returned ") + what +
                                 " of shape " + sizes_text(t.sizes()) +
                                 " where " + sizes_text(want) + " is right");
}

} /* namespace */

void iohw__torch_bwd_data(const iohw_problem *p, const void *dy,
                          const void *w, void *dx)
{
    const int R = (int)p->rank;
    const at::ScalarType st = bwd_scalar_type(p->dtype);
    iohw_layout_map xm, wm;
    iohw_error err;
    if (iohw_layout_data_map(p, 0, &xm, &err) != 0 ||
        iohw_layout_weight_map(p, &wm, &err) != 0)
        throw std::runtime_error(err.msg);

    const plan q = make_plan(p);
    at::Tensor dF = grad_full(p, q, dy, st);
    at::Tensor tw = bwd_view(w, wm, 0, 3 + R, st).reshape(weight_sizes(p));
    at::Tensor tdx = bwd_view(dx, xm, 0, 2 + R, st);
    /* The input's values do not enter dx; only its shape does. */
    at::Tensor input = at::zeros(tdx.sizes(), at::TensorOptions().dtype(st));
    auto g = at::convolution_backward(dF, input, tw, c10::nullopt, q.S, q.P,
                                      q.D, true, q.A, p->groups,
                                      {true, false, false});
    expect_sizes("dx", std::get<0>(g), tdx.sizes());
    tdx.copy_(std::get<0>(g));
}

void iohw__torch_bwd_weights(const iohw_problem *p, const void *x,
                             const void *dy, void *dw, void *db)
{
    const int R = (int)p->rank;
    const at::ScalarType st = bwd_scalar_type(p->dtype);
    const auto opt = at::TensorOptions().dtype(st);
    iohw_layout_map xm, wm;
    iohw_error err;
    if (iohw_layout_data_map(p, 0, &xm, &err) != 0 ||
        iohw_layout_weight_map(p, &wm, &err) != 0)
        throw std::runtime_error(err.msg);

    const plan q = make_plan(p);
    at::Tensor dF = grad_full(p, q, dy, st);
    at::Tensor tx = bwd_view(x, xm, 0, 2 + R, st);
    const std::vector<int64_t> ws = weight_sizes(p);
    /* The weight's values do not enter dw or db; only its shape does. */
    at::Tensor weight = at::zeros(ws, opt);
    std::vector<int64_t> bias_sizes{p->out_channels};
    auto g = at::convolution_backward(
        dF, tx, weight,
        p->has_bias ? at::OptionalIntArrayRef(bias_sizes) : c10::nullopt,
        q.S, q.P, q.D, true, q.A, p->groups,
        {false, true, p->has_bias != 0});
    expect_sizes("dw", std::get<1>(g), ws);
    at::Tensor tdw = bwd_view(dw, wm, 0, 3 + R, st);
    tdw.copy_(std::get<1>(g).reshape(tdw.sizes()));
    if (p->has_bias) {
        expect_sizes("db", std::get<2>(g), bias_sizes);
        at::Tensor tdb = at::from_blob(db, {p->out_channels}, opt);
        if (whole(p, q)) {
            tdb.copy_(std::get<2>(g));
        } else {
            /* Beyond torch's limit y has positions outside F, which the
             * forward fills with the bias itself: their dy reaches db
             * only, so db sums all of dy (specification section 13). */
            iohw_layout_map ym;
            if (iohw_layout_data_map(p, 1, &ym, &err) != 0)
                throw std::runtime_error(err.msg);
            std::vector<int64_t> dims{0};
            for (int a = 0; a < R; a++)
                dims.push_back(2 + a);
            tdb.copy_(bwd_view(dy, ym, 0, 2 + R, st).sum(dims));
        }
    }
}

int iohw__torch_bwd_probe(int dir, int rank, iohw_dtype dt, char *why,
                          size_t n)
{
    iohw_problem p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.rank = (uint32_t)rank;
    p.batch = p.in_channels = p.out_channels = p.groups = 1;
    for (int a = 0; a < rank; a++) {
        p.in_size[a] = p.kernel[a] = 2;
        p.stride[a] = p.dilation[a] = 1;
        p.out_size[a] = 3;
    }
    const char *data[] = {"", "NCW", "NCHW", "NCDHW"};
    const char *weight[] = {"", "IOW", "IOHW", "IODHW"};
    std::strcpy(p.data_layout, data[rank]);
    std::strcpy(p.weight_layout, weight[rank]);
    p.dtype = dt;
    p.direction = dir;
    p.has_bias = dir == IOHW_DIR_BWD_W;
    /* Buffers large enough for any of the tiny tensors (27 elements). */
    std::vector<double> a(32, 1.0), b(32, 1.0), c(32), d(32);
    try {
        if (dir == IOHW_DIR_BWD_D)
            iohw__torch_bwd_data(&p, a.data(), b.data(), c.data());
        else
            iohw__torch_bwd_weights(&p, a.data(), b.data(), c.data(),
                                    d.data());
        return 1;
    } catch (const c10::Error &e) {
        std::snprintf(why, n, "libtorch has no %s kernel for this dtype: "
                      "%.160s", dir == IOHW_DIR_BWD_D ? "backward-data"
                                                      : "backward-weights",
                      e.what_without_backtrace());
    } catch (const std::exception &e) {
        std::snprintf(why, n, "libtorch has no %s kernel for this dtype: "
                      "%.160s", dir == IOHW_DIR_BWD_D ? "backward-data"
                                                      : "backward-weights",
                      e.what());
    }
    if (char *nl = std::strchr(why, '\n'))
        *nl = '\0';
    return 0;
}
