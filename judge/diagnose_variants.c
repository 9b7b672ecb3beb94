/*
 * judge/diagnose_variants.c - the classic misinterpretations of a
 * transposed convolution (PITFALLS.md), each as a small change of the
 * correct computation (see diagnose_internal.h for what a variant holds).
 *
 * With Cg = C_in/G, Mg = C_out/G, canonical tensors, F_a = (L-1)S + (K-1)D + 1
 * the uncropped output size and "bias only" meaning no product placed:
 *   weight I and O exchanged   w's memory read with I and O swapped in the
 *                              weight layout string (same memory, other
 *                              shape when C_in != Mg)
 *   kernel flipped             w'[i][m][k] = w[i][m][K-1-k], every axis
 *   spatial axes H and W ...   w's memory read with H and W swapped in the
 *                              weight layout string
 *   input groups interleaved   x'[n][g*Cg+c] = x[n][c*G+g]
 *   output groups interleaved  the product of channel g*Mg+m written at
 *                              channel m*G+g, with the bias of channel
 *                              m*G+g, or ("bias included") with its own
 *   bias indexed per group     bias'[g*Mg+m] = bias[m]
 *   SAME_LOWER where SAME_UPPER, VALID where SAME, output_shape's split:
 *                              a stated convention misread, diagnose_conv.c
 *   pad begin and end exch.    the crop starts at pad_end
 *   pads averaged              the crop starts at floor((P- + P+) / 2)
 *   pad_begin ignored          the crop starts at 0 (a 1x1 GEMM path)
 *   pad_begin on both sides    positions >= F - 2 P- + A: bias only
 *   padding applied to input   the crop starts at -P- * S (nothing cropped,
 *                              the input padded instead)
 *   output_padding dropped     positions >= O - A: bias only
 *   output_padding at the beg. the crop starts at P- - A (output shifted)
 *   dilation ignored           D' = 1
 *   dilation 0-based           D' = D - 1; D = 1 gives taps 0 apart: the
 *                              kernel summed along the axis
 *   dilation off by one        D' = D + 1
 *   effective kernel k + d - 1 the uncropped output sized with extent
 *                              K + D - 1: full positions >= (L-1)S + K + D - 1
 *                              lost (bias only)
 *   size-1 input axes squeezed on an axis with L = 1: the first tap only,
 *                              broadcast to every output position
 *   data layout read as ...    x read and y written in NC+spatial or
 *                              N+spatial+C order whatever the case's layout
 *   subnormals flushed, output rounded by truncation or half away,
 *   overflow saturated, zero products skipped, x or w rounded to bf16:
 *                              the numeric faults, diagnose_numeric.c
 *   sum accumulated in 16 bits every product and partial sum rounded to
 *                              f16 or bf16, diagnose_accum.c
 *   all products dropped       only the bias (or zeros) everywhere
 */
#include "judge/diagnose_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

/* --- reading memory in another layout -------------------------------- */

static double *read_as(const iohw_layout_map *m, iohw_dtype dt, const void *src)
{
    size_t es = iohw_dtype_size(dt);
    void *tmp = malloc((size_t)m->count * es);
    double *out = malloc((size_t)m->count * sizeof *out);

    if (tmp == NULL || out == NULL || src == NULL) {
        free(tmp);
        free(out);
        return NULL;
    }
    iohw_layout_to_canonical(m, es, src, tmp);
    iohw_dtype_to_double(dt, tmp, out, (size_t)m->count);
    free(tmp);
    return out;
}

double *iohw__dg_read_x(const iohw_case *c, const char *layout)
{
    iohw_layout_map m;
    if (iohw_layout_data_map_as(&c->p, 0, layout, &m, NULL) != 0)
        return NULL;
    return read_as(&m, c->p.dtype, c->x);
}

double *iohw__dg_read_w(const iohw_case *c, const char *layout)
{
    iohw_layout_map m;
    if (iohw_layout_weight_map_as(&c->p, layout, &m, NULL) != 0)
        return NULL;
    return read_as(&m, c->p.dtype, c->w);
}

/* --- helpers ------------------------------------------------------------ */

static void swap_letters(char *s, char a, char b)
{
    for (; *s != '\0'; s++) {
        if (*s == a)
            *s = b;
        else if (*s == b)
            *s = a;
    }
}

static int weight_read_as(const iohw__dg_base *b, iohw__dg_variant *v, char l1,
                          char l2)
{
    char wl[16];
    memcpy(wl, b->p->weight_layout, sizeof wl);
    wl[sizeof wl - 1] = '\0';
    swap_letters(wl, l1, l2);
    v->owned[1] = iohw__dg_read_w(b->c, wl);
    v->w = v->owned[1];
    return v->w != NULL ? 1 : -1;
}

static int data_read_as(const iohw__dg_base *b, iohw__dg_variant *v,
                        const char *layout)
{
    if (strcmp(layout, b->p->data_layout) == 0)
        return 0;
    v->owned[0] = iohw__dg_read_x(b->c, layout);
    v->x = v->owned[0];
    memcpy(v->out_layout, layout, strlen(layout) + 1);
    return v->x != NULL ? 1 : -1;
}

/* w with the kernel axes A (padded index) where mask[A] reduced to one tap:
 * the sum of the taps (sum = 1) or the first tap (sum = 0). */
static double *kernel_reduced(const iohw__dg_base *b, const int *mask, int sum)
{
    const int64_t KD = b->K3[0], KH = b->K3[1], KW = b->K3[2];
    const int64_t RD = mask[0] ? 1 : KD, RH = mask[1] ? 1 : KH, RW = mask[2] ? 1 : KW;
    const int64_t rows = b->C_in * b->Mg;
    double *w = calloc((size_t)(rows * RD * RH * RW), sizeof *w);

    if (w == NULL)
        return NULL;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t kd = 0; kd < KD; kd++)
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++) {
                    const int64_t k3[3] = {kd, kh, kw};
                    int keep = 1;
                    for (int A = 0; A < 3; A++)
                        keep = keep && (sum || !mask[A] || k3[A] == 0);
                    if (!keep)
                        continue;
                    w[((r * RD + (mask[0] ? 0 : kd)) * RH + (mask[1] ? 0 : kh)) * RW +
                      (mask[2] ? 0 : kw)] += b->w[((r * KD + kd) * KH + kh) * KW + kw];
                }
    return w;
}

/* 1 when some axis has a kernel of more than one tap. */
static int kernel_wide(const iohw__dg_base *b)
{
    return b->K > 1;
}

static int dilated(const iohw__dg_base *b, int64_t above)
{
    for (int a = 0; a < b->rank; a++)
        if (b->p->dilation[a] > above && b->p->kernel[a] > 1)
            return 1;
    return 0;
}

/* --- the variants --------------------------------------------------- */

static int weight_io(const iohw__dg_base *b, iohw__dg_variant *v)
{
    return weight_read_as(b, v, 'I', 'O');
}

static int kernel_flipped(const iohw__dg_base *b, iohw__dg_variant *v)
{
    const int64_t KD = b->K3[0], KH = b->K3[1], KW = b->K3[2];
    double *w;

    if (!kernel_wide(b))
        return 0;
    w = malloc((size_t)b->nw * sizeof *w);
    if (w == NULL)
        return -1;
    for (int64_t r = 0; r < b->C_in * b->Mg; r++)
        for (int64_t kd = 0; kd < KD; kd++)
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++)
                    w[((r * KD + kd) * KH + kh) * KW + kw] =
                        b->w[((r * KD + KD - 1 - kd) * KH + KH - 1 - kh) * KW +
                             KW - 1 - kw];
    v->owned[1] = w;
    v->w = w;
    return 1;
}

static int weight_hw(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->rank < 2 || (b->K3[1] == 1 && b->K3[2] == 1))
        return 0;
    return weight_read_as(b, v, 'H', 'W');
}

static int interleave_x(const iohw__dg_base *b, iohw__dg_variant *v)
{
    double *x = malloc((size_t)b->nx * sizeof *x);
    if (x == NULL)
        return -1;
    for (int64_t n = 0; n < b->N; n++)
        for (int64_t g = 0; g < b->G; g++)
            for (int64_t c = 0; c < b->Cg; c++)
                memcpy(&x[(n * b->C_in + g * b->Cg + c) * b->L],
                       &b->x[(n * b->C_in + c * b->G + g) * b->L],
                       (size_t)b->L * sizeof *x);
    v->owned[0] = x;
    v->x = x;
    return 1;
}

static int groups_in(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->G == 1 || b->Cg == 1)
        return 0;
    return interleave_x(b, v);
}

static int groups_out(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->G == 1 || b->Mg == 1)
        return 0;
    v->out_interleaved = 1;
    return 1;
}

static int groups_out_bias(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->bias == NULL || groups_out(b, v) != 1)
        return 0;
    v->out_interleaved = 2;
    return 1;
}

static int groups_both(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->G == 1 || b->Cg == 1 || b->Mg == 1)
        return 0;
    v->out_interleaved = 1;
    return interleave_x(b, v);
}

static int groups_both_bias(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (b->bias == NULL || b->G == 1 || b->Cg == 1 || b->Mg == 1)
        return 0;
    v->out_interleaved = 2;
    return interleave_x(b, v);
}

static int bias_per_group(const iohw__dg_base *b, iohw__dg_variant *v)
{
    double *bias;

    if (b->bias == NULL || b->G == 1)
        return 0;
    bias = malloc((size_t)b->nb * sizeof *bias);
    if (bias == NULL)
        return -1;
    for (int64_t g = 0; g < b->G; g++)
        for (int64_t m = 0; m < b->Mg; m++)
            bias[g * b->Mg + m] = b->bias[m];
    v->owned[2] = bias;
    v->bias = bias;
    return 1;
}

int iohw__dg_pads_exchanged(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        v->begin[a] = b->p->pad_end[a];
        differs |= v->begin[a] != b->p->pad_begin[a];
    }
    return differs;
}

static int pads_averaged(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        v->begin[a] = (b->p->pad_begin[a] + b->p->pad_end[a]) / 2;
        differs |= v->begin[a] != b->p->pad_begin[a];
    }
    return differs;
}

/* Nothing cropped at the beginning: output position o shows full position
 * o (a 1x1 GEMM fast path that forgets the crop, OpenCV 4.6).  Tried only
 * where no other crop-start misreading puts the same start on every axis
 * (pads exchanged: pad_end; averaged; output_padding at the beginning;
 * VALID under SAME), so that one output is not given two names for one
 * placement. */
static int pad_begin_ignored(const iohw__dg_base *b, iohw__dg_variant *v)
{
    const iohw_problem *p = b->p;
    int differs = 0, as_exchanged = 1, as_averaged = 1, as_op = 1;
    if (p->auto_pad == IOHW_AUTO_PAD_SAME_UPPER || p->auto_pad == IOHW_AUTO_PAD_SAME_LOWER)
        return 0;
    for (int a = 0; a < b->rank; a++) {
        v->begin[a] = 0;
        differs |= p->pad_begin[a] > 0;
        as_exchanged &= p->pad_end[a] == 0;
        as_averaged &= (p->pad_begin[a] + p->pad_end[a]) / 2 == 0;
        as_op &= p->pad_begin[a] == p->output_padding[a];
    }
    return differs && !as_exchanged && !as_averaged && !as_op;
}

static int op_dropped(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        v->hi[a] = b->p->out_size[a] - b->p->output_padding[a];
        differs |= b->p->output_padding[a] > 0;
    }
    return differs;
}

static int op_at_begin(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        v->begin[a] = b->p->pad_begin[a] - b->p->output_padding[a];
        differs |= b->p->output_padding[a] > 0;
    }
    return differs;
}

static int dilation_ignored(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (!dilated(b, 1))
        return 0;
    for (int a = 0; a < b->rank; a++)
        v->p.dilation[a] = 1;
    return 1;
}

static int dilation_0_based(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int mask[3] = {0, 0, 0};
    int collapse = 0;

    if (!kernel_wide(b))
        return 0;
    /* d - 1 apart; d = 1 gives 0 apart: the axis's taps all land on one
     * position, which is the kernel summed along the axis. */
    for (int a = 0; a < b->rank; a++) {
        if (b->p->dilation[a] > 1) {
            v->p.dilation[a] = b->p->dilation[a] - 1;
        } else if (b->p->kernel[a] > 1) {
            mask[3 - b->rank + a] = 1;
            v->p.kernel[a] = 1;
            collapse = 1;
        }
    }
    if (!collapse)
        return 1;
    v->owned[1] = kernel_reduced(b, mask, 1);
    v->w = v->owned[1];
    return v->w != NULL ? 1 : -1;
}

static int dilation_plus_one(const iohw__dg_base *b, iohw__dg_variant *v)
{
    if (!kernel_wide(b))
        return 0;
    for (int a = 0; a < b->rank; a++)
        v->p.dilation[a] = b->p->dilation[a] + 1;
    return 1;
}

static int extent_k_plus_d(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        const int64_t k = b->p->kernel[a], d = b->p->dilation[a];
        const int64_t wrong = (b->p->in_size[a] - 1) * b->p->stride[a] + k + d - 1;
        v->hi[a] = wrong - b->p->pad_begin[a];
        differs |= v->hi[a] < b->p->out_size[a];
    }
    return differs;
}

static int pad_begin_both_sides(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        const int64_t full = (b->p->in_size[a] - 1) * b->p->stride[a] +
                             b->p->dilation[a] * (b->p->kernel[a] - 1) + 1;
        v->hi[a] = full - 2 * b->p->pad_begin[a] + b->p->output_padding[a];
        differs |= v->hi[a] < b->p->out_size[a];
    }
    return differs;
}

static int pad_as_input(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        v->begin[a] = -b->p->pad_begin[a] * b->p->stride[a];
        differs |= b->p->pad_begin[a] > 0;
    }
    return differs;
}

static int size1_squeezed(const iohw__dg_base *b, iohw__dg_variant *v)
{
    int mask[3] = {0, 0, 0};
    int differs = 0;
    for (int a = 0; a < b->rank; a++) {
        if (b->p->in_size[a] != 1 || (b->p->kernel[a] == 1 && b->p->out_size[a] == 1))
            continue;
        mask[3 - b->rank + a] = 1;
        v->p.kernel[a] = 1;
        v->bcast[a] = 1;
        differs = 1;
    }
    if (!differs)
        return 0;
    v->owned[1] = kernel_reduced(b, mask, 0);
    v->w = v->owned[1];
    return v->w != NULL ? 1 : -1;
}

static int layout_channels_first(const iohw__dg_base *b, iohw__dg_variant *v)
{
    char layout[16];
    iohw_layout_default_data(b->rank, layout);
    return data_read_as(b, v, layout);
}

static int layout_channels_last(const iohw__dg_base *b, iohw__dg_variant *v)
{
    char layout[16];
    snprintf(layout, sizeof layout, "N%sC", iohw_spatial_letters(b->rank));
    return data_read_as(b, v, layout);
}

static int products_dropped(const iohw__dg_base *b, iohw__dg_variant *v)
{
    for (int a = 0; a < b->rank; a++)
        v->hi[a] = 0;
    return 1;
}

/* Name, builder and the meaning for a backend author, one line that the
 * reports print next to the group of failures the name explains (a new
 * misinterpretation gets its meaning here, in the same row). */
const iohw__dg_entry iohw__dg_table[] = {
    {"outputs left unwritten", NULL,
     "your kernel never stores some output elements (a loop bound or tail skipped)"},
    {"weight I and O exchanged", weight_io,
     "your kernel reads the weight as OIHW: index w[m][c] where the definition has w[c][m]"},
    {"kernel flipped", kernel_flipped,
     "your kernel reads the taps in reverse (w[K-1-k]): that is the gradient-of-convolution view, not the definition"},
    {"spatial axes H and W of the weight exchanged", weight_hw,
     "your kernel indexes the weight taps as [w][h] where the definition has [h][w]"},
    {"input channels of the groups interleaved", groups_in,
     "your kernel takes group g's input channel c at c*G+g where the definition has g*Cg+c"},
    {"output channels of the groups interleaved", groups_out,
     "your kernel writes group g's output channel m at m*G+g where the definition has g*Mg+m"},
    {"output channels of the groups interleaved, bias included", groups_out_bias,
     "your kernel writes group g's output channel m, with its bias, at m*G+g where the definition has g*Mg+m"},
    {"input and output channels of the groups interleaved", groups_both,
     "your kernel lays out both the input and the output channels of the groups as c*G+g instead of g*Cg+c"},
    {"input and output channels of the groups interleaved, bias included", groups_both_bias,
     "your kernel lays out the input and output channels (bias too) of the groups as c*G+g instead of g*Cg+c"},
    {"bias indexed per group", bias_per_group,
     "your kernel adds bias[m] to channel g*Mg+m: index the bias by the output channel, bias[g*Mg+m]"},
    {"SAME_LOWER where SAME_UPPER was asked", iohw__dg_same_lower_for_upper,
     "your kernel puts the odd SAME_UPPER padding at the beginning; SAME_UPPER puts it at the end"},
    {"SAME_UPPER where SAME_LOWER was asked", iohw__dg_same_upper_for_lower,
     "your kernel puts the odd SAME_LOWER padding at the end; SAME_LOWER puts it at the beginning"},
    {"VALID (no padding) where SAME was asked", iohw__dg_valid_for_same,
     "your kernel crops nothing at the beginning under auto_pad SAME: it computes VALID"},
    {"output_shape's odd padding at the end where ONNX puts it at the beginning",
     iohw__dg_onnx_out_split_at_end,
     "your kernel pads more at the end for ONNX output_shape (ONNX Runtime < 1.13); ONNX pads more at the beginning"},
    {"pad begin and end exchanged", iohw__dg_pads_exchanged,
     "your kernel crops pad_end at the beginning and pad_begin at the end of each axis"},
    {"pads averaged", pads_averaged,
     "your kernel crops (pad_begin+pad_end)/2 at the beginning: asymmetric pads must be kept apart"},
    {"pad_begin used on both sides", pad_begin_both_sides,
     "your kernel sizes the output with 2*pad_begin, ignoring pad_end"},
    {"padding applied to the input instead of cropping the output", pad_as_input,
     "your kernel pads the input by pad; a transposed convolution crops pad from its output instead"},
    {"output_padding dropped", op_dropped,
     "your kernel leaves the output_padding positions at the end with the bias only: they get products too"},
    {"output_padding at the beginning", op_at_begin,
     "your kernel adds output_padding at the beginning of the axis; the definition adds it at the end"},
    {"dilation ignored", dilation_ignored,
     "your kernel places the taps 1 apart; the definition places them d apart"},
    {"dilation 0-based (d - 1 used)", dilation_0_based,
     "your kernel places the taps d-1 apart (dilation read as 0-based); the definition places them d apart"},
    {"dilation off by one (d + 1 used)", dilation_plus_one,
     "your kernel places the taps d+1 apart; the definition places them d apart"},
    {"effective kernel k + d - 1", extent_k_plus_d,
     "your kernel sizes the full output with extent k+d-1; the dilated extent is (k-1)*d+1"},
    {"size-1 input axes squeezed", size1_squeezed,
     "your kernel drops an input axis of size 1 and broadcasts the first tap: the axis still spreads over k outputs"},
    {"data layout read as channels-first (NCHW)", layout_channels_first,
     "your kernel reads x and writes y as NC+spatial whatever the case's data layout says"},
    {"data layout read as channels-last (NHWC)", layout_channels_last,
     "your kernel reads x and writes y as N+spatial+C whatever the case's data layout says"},
    {"subnormal inputs and results flushed to zero", iohw__dg_subnormals_flushed,
     "your kernel runs with FTZ/DAZ on: declare it with --subnormals flush, or clear MXCSR"},
    {"output rounded toward zero (truncated) instead of to nearest even", iohw__dg_truncated,
     "your kernel converts its sum to the dtype by truncation; round to nearest even"},
    {"output rounded half away from zero instead of half to even", iohw__dg_half_away,
     "your kernel rounds ties away from zero when it converts to the dtype; round ties to even"},
    {"overflow saturated at the largest finite value instead of +-Inf", iohw__dg_saturated,
     "your kernel clamps overflow to the largest finite value; IEEE rounding gives +-Inf"},
    {"products whose x is zero skipped (0 x Inf and 0 x NaN gave no NaN)", iohw__dg_zero_x_skipped,
     "your kernel skips zero inputs, so 0 x Inf and 0 x NaN never produce NaN"},
    {"products whose w is zero skipped (0 x Inf and 0 x NaN gave no NaN)", iohw__dg_zero_w_skipped,
     "your kernel skips zero weights, so 0 x Inf and 0 x NaN never produce NaN"},
    {"products with a zero factor skipped (0 x Inf and 0 x NaN gave no NaN)", iohw__dg_zero_skipped,
     "your kernel skips products with a zero factor, so 0 x Inf and 0 x NaN never produce NaN"},
    {"weights rounded to bf16 before an f32 reduction", iohw__dg_w_bf16,
     "your kernel rounds the f32 weights to bf16 (AMX/AVX-512-BF16 path) before it multiplies"},
    {"x rounded to bf16 before an f32 reduction", iohw__dg_x_bf16,
     "your kernel rounds the f32 input to bf16 (AMX/AVX-512-BF16 path) before it multiplies"},
    {"x and weights rounded to bf16 before an f32 reduction", iohw__dg_xw_bf16,
     "your kernel rounds f32 inputs and weights to bf16 (AMX/AVX-512-BF16 path) before it multiplies"},
    {"all products dropped (bias only or zeros)", products_dropped,
     "your kernel computes no product at all: the output is the bias (or zeros)"},
    {"pad_begin ignored (nothing cropped at the beginning)", pad_begin_ignored,
     "your kernel stores output position o from full position o, not o+pad_begin (a 1x1 GEMM path that forgets the crop)"},
    {"sum accumulated in the 16-bit type (f16 or bf16)", iohw__dg_accum16,
     "your kernel keeps its running sum in f16 or bf16, losing small products: accumulate in f32"},
};

const int iohw__dg_table_count = (int)(sizeof iohw__dg_table / sizeof iohw__dg_table[0]);
