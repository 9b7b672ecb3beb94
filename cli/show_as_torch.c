/*
 * cli/show_as_torch.c - `iohw show --as torch FILE:CASE`: a self-contained
 * PyTorch snippet that computes the case with
 * torch.nn.functional.conv_transpose1d/2d/3d and checks every element
 * against the oracle's y_f64 within the tolerance of specification section
 * 3.3.  Tensors of at most INLINE_MAX elements are written inline in the
 * canonical orders of section 1 (x[N][C_in][L...], w[C_in][Mg][K...], ONNX's
 * and PyTorch's own); larger f32 and f64 cases without a G axis are read
 * from the case file with h5py and permuted from their layouts.  Equal
 * pads and output_padding < max(stride, dilation) are PyTorch's padding=
 * and output_padding=; other problems are computed uncropped and cropped
 * as section 1 defines (pad_begin, pad_end cropped; output_padding
 * positions at the end hold the bias only).
 */
#include <inttypes.h>
#include <string.h>

#include "cli/show_as.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"

#define INLINE_MAX 4096

static void tuple(FILE *o, const int64_t *v, int R)
{
    fputc('(', o);
    for (int a = 0; a < R; a++)
        fprintf(o, "%" PRId64 "%s", v[a], R == 1 || a + 1 < R ? ", " : "");
    fputc(')', o);
}

/* name = torch.tensor([...], float64).reshape(shape) */
static void inline_tensor(FILE *o, const char *name, const double *v, int64_t n,
                          const int64_t *shape, int nd)
{
    fprintf(o, "%s = torch.tensor([", name);
    for (int64_t i = 0; i < n; i++)
        fprintf(o, "%s%.17g", i == 0 ? "" : i % 8 == 0 ? ",\n    " : ", ", v[i]);
    fprintf(o, "], dtype=torch.float64).reshape");
    tuple(o, shape, nd);
    fputc('\n', o);
}

/* The permutation taking a layout's axes to the canonical data (N, C,
 * spatial) or weight (I, O, spatial) order, for np.transpose. */
static void perm(FILE *o, const char *layout, const char *canon)
{
    fputc('(', o);
    for (const char *c = canon; *c != '\0'; c++)
        fprintf(o, "%d, ", (int)(strchr(layout, *c) - layout));
    fputc(')', o);
}

static void from_h5(FILE *o, const iohw__show_as_case *k)
{
    const iohw_problem *p = &k->c->p;
    const int R = (int)p->rank;
    const char *sp = R == 1 ? "W" : R == 2 ? "HW" : "DHW";
    char dcan[8], wcan[8];
    snprintf(dcan, sizeof dcan, "NC%s", sp);
    snprintf(wcan, sizeof wcan, "IO%s", sp);
    fprintf(o, "import h5py\nimport numpy as np\n"
            "with h5py.File(%s%s%s, 'r') as f:\n"
            "    g = f['cases'][%s%s%s]\n"
            "    x = torch.from_numpy(np.transpose(np.asarray(g['x'], np.float64), ",
            "'", k->file, "'", "'", k->c->id, "'");
    perm(o, p->data_layout, dcan);
    fprintf(o, ").copy())\n    w = torch.from_numpy(np.transpose(np.asarray(g['w'], "
            "np.float64), ");
    perm(o, p->weight_layout, wcan);
    fprintf(o, ").copy())\n");
    if (p->has_bias)
        fprintf(o, "    b = torch.from_numpy(np.asarray(g['bias'], np.float64))\n");
    fprintf(o, "    y = np.asarray(g['y'])\n"
            "    expected = torch.from_numpy(np.transpose(np.asarray(g['y_f64']), ");
    perm(o, p->data_layout, dcan);
    fprintf(o, ").copy())\n    eb = np.transpose(np.asarray(g['err_bound']), ");
    perm(o, p->data_layout, dcan);
    fprintf(o, ")\n    y = np.transpose(y, ");
    perm(o, p->data_layout, dcan);
    fprintf(o, ")\n    # specification section 3.3: (T + 2)*u*err_bound + ulp(y)/2\n"
            "    tol = torch.from_numpy((%" PRId64 " + 2) * %.17g * eb + np.spacing(np.abs("
            "y)) / 2)\n", k->c->terms_max,
            iohw_dtype_unit_roundoff((iohw_dtype)p->dtype));
}

static void compute(FILE *o, const iohw_problem *p)
{
    const int R = (int)p->rank;
    int direct = 1;
    int64_t zero[3] = {0, 0, 0};
    for (int a = 0; a < R; a++)
        direct &= p->pad_begin[a] == p->pad_end[a] &&
                  p->output_padding[a] < (p->stride[a] > p->dilation[a] ? p->stride[a]
                                                                         : p->dilation[a]);
    fprintf(o, "y = F.conv_transpose%dd(x, w, %s, stride=", R,
            direct && p->has_bias ? "b" : "None");
    tuple(o, p->stride, R);
    fprintf(o, ", padding=");
    tuple(o, direct ? p->pad_begin : zero, R);
    fprintf(o, ", output_padding=");
    tuple(o, direct ? p->output_padding : zero, R);
    fprintf(o, ", groups=%" PRId64 ", dilation=", p->groups);
    tuple(o, p->dilation, R);
    fprintf(o, ")\n");
    if (direct)
        return;
    fprintf(o, "# section 1: output_padding adds positions at the end, pads crop\ny = F.pad(y, (");
    for (int a = R - 1; a >= 0; a--)
        fprintf(o, "0, %" PRId64 ", ", p->output_padding[a]);
    fprintf(o, "))[:, :");
    for (int a = 0; a < R; a++)
        fprintf(o, ", %" PRId64 ":%" PRId64, p->pad_begin[a], p->pad_begin[a] + p->out_size[a]);
    fprintf(o, "]\n");
    if (p->has_bias)
        fprintf(o, "y = y + b.reshape(1, -1%s)\n", R == 1 ? ", 1" : R == 2 ? ", 1, 1"
                                                                           : ", 1, 1, 1");
}

int iohw__show_as_torch(const iohw__show_as_case *k, FILE *o, iohw_error *err)
{
    const iohw_problem *p = &k->c->p;
    const int R = (int)p->rank;
    const iohw_dtype dt = (iohw_dtype)p->dtype;
    int64_t xs[5] = {p->batch, p->in_channels}, ws[5] = {p->in_channels,
                                                         p->out_channels / p->groups},
            ys[5] = {p->batch, p->out_channels};
    (void)err;
    for (int a = 0; a < R; a++) {
        xs[2 + a] = p->in_size[a];
        ws[2 + a] = p->kernel[a];
        ys[2 + a] = p->out_size[a];
    }
    const int big = k->nx > INLINE_MAX || k->nw > INLINE_MAX || k->ny > INLINE_MAX;
    const int h5 = big && (dt == IOHW_F32 || dt == IOHW_F64) &&
                   !iohw_layout_has_groups(p->weight_layout);
    fprintf(o, "# iohw case %s of %s\n# %s\n# The oracle's output, reproduced with PyTorch "
            "(specification sections 1 and 3.3).\nimport torch\nimport torch.nn.functional "
            "as F\n\ninf, nan = float('inf'), float('nan')\n", k->c->id, k->file,
            k->c->descriptor);
    if (h5) {
        from_h5(o, k);
    } else {
        inline_tensor(o, "x", k->x, k->nx, xs, R + 2);
        inline_tensor(o, "w", k->w, k->nw, ws, R + 2);
        if (p->has_bias)
            inline_tensor(o, "b", k->bias, p->out_channels, &p->out_channels, 1);
        fprintf(o, "# the oracle's y_f64 and each element's tolerance (section 3.3)\n");
        inline_tensor(o, "expected", k->y_f64, k->ny, ys, R + 2);
        inline_tensor(o, "tol", k->tol, k->ny, ys, R + 2);
    }
    /* f16 and bf16 values are computed in float32 (exact inputs; CPU
     * kernels for half types are not everywhere). */
    fprintf(o, "dtype = torch.%s\nx, w = x.to(dtype), w.to(dtype)\n%s",
            dt == IOHW_F64 ? "float64" : "float32", p->has_bias ? "b = b.to(dtype)\n" : "");
    compute(o, p);
    fprintf(o, "err = (y.double() - expected).abs()\n"
            "ok = (err <= tol) | (y.double() == expected) | (y.isnan() & expected.isnan())\n"
            "assert bool(ok.all()), 'differs at %%d of %%d elements, worst |y - expected| / "
            "tol %%g' %% (int((~ok).sum()), ok.numel(), float((err / tol).max()))\n"
            "print('reproduced: %s, %%d elements within the bound' %% ok.numel())\n",
            k->c->id);
    return 0;
}
