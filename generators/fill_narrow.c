/*
 * generators/fill_narrow.c - the fills that corner narrow bugs: zeros,
 * subnormal, ties, huge and accum16.
 *
 * Definition (canonical tensors x[N][C_in][L...], w[C_in][Mg][K...],
 * bias[C_out]; "group g" means its input channels g*Cg .. g*Cg+Cg-1):
 *   zeros      normal, then in every group a zero-x channel and a zero-w
 *              channel (two distinct random local channels; with one
 *              channel per group, groups alternate between the two kinds):
 *              the zero-x channel's x is +-0 everywhere and each of its
 *              (I, O) kernels holds one +Inf, -Inf or NaN at a random tap;
 *              the zero-w channel's w is +-0 everywhere and its x holds
 *              +Inf, -Inf or NaN at one or two random positions per image.
 *              Every product that meets a special value is 0 * Inf or
 *              0 * NaN, so the output elements it reaches are NaN (and only
 *              through such a product), while a backend that skips zero
 *              operands leaves them finite;
 *   subnormal  the exact fill with x and bias multiplied by the dtype's
 *              smallest subnormal s: every product and every partial sum is
 *              an integer multiple of s below 2^p * s, so exact in the
 *              dtype, and most results lie in the subnormal range;
 *   ties       in every (image, group) block one random input channel holds
 *              x = +-3, 5, ..., 13 on a grid of positions spaced farther
 *              apart, along each axis a, than the kernel reaches
 *              (ceil(((K_a - 1) * D_a + 1) / S_a) positions) and zeros
 *              elsewhere; w = +-(integers of exactly p bits), bias = 0.
 *              Every output element holds at most one nonzero product,
 *              which is exact in f32 (f16, bf16) or formed with one
 *              rounding (f32, f64) and usually not a number of the dtype
 *              (a tie in about a quarter of the elements): every backend
 *              that rounds each operation to at least the dtype's precision
 *              returns it rounded to nearest even, bit for bit;
 *   huge       x = (1 + U) * 2^hx > 0, w = tau * (1 + U) * 2^hw and bias =
 *              tau * (1 + U) * 2^(emax - 2), U uniform in [0, 1), tau = +1
 *              for even output channels and -1 for odd ones, hx = emax / 2,
 *              hw = emax - 1 - hx (emax = 15, 127, 127, 1023): products lie
 *              in [2^(emax-1), 2^(emax+1)), the terms of an element share
 *              one sign, and elements of two or more terms overflow the
 *              dtype in every summation order (to +Inf or -Inf);
 *   accum16    with s the smallest subnormal of f16 (of bf16 for a bf16 case)
 *              and ex + ew = log2(s) - 3 (f16: -14 and -13; bf16: -68 and
 *              -68): x = X * 2^ex with X drawn from {11, 19} (3 mod 8),
 *              w = +-2^ew and bias = +-(1 to 4) * s, the sign that of the
 *              output channel (+ for even ones, odd ones with an odd seed).  Every product is (X/8) * s,
 *              a whole multiple of s plus 3/8 of s, and the terms of an
 *              element share one sign.  Inputs are normal numbers and every
 *              sum is exact in f32 and f64, so a correct backend returns
 *              the sum rounded once; an accumulator of the 16-bit type holds
 *              only multiples of s down there and loses 3/8 of s on every
 *              product, in every order and with or without fused
 *              multiply-adds.  An element of T products is off by 3T/8 * s
 *              where specification section 3.3 allows about s/2 + (T+2) u eb
 *              (bug-f16-accum: 5 to 10 times the tolerance for T of 8 to 32
 *              in f16, 2 to 3 times in bf16).
 */
#include "generators/fill_internal.h"

#include <math.h>
#include <string.h>

#include "oracle/dtype.h"

static const char *const NARROW[] = {"zeros", "subnormal", "ties", "huge", "accum16", NULL};

int iohw__fill_is_narrow(const char *fill)
{
    for (int i = 0; fill != NULL && NARROW[i] != NULL; i++)
        if (strcmp(fill, NARROW[i]) == 0)
            return 1;
    return 0;
}

static double random_sign(iohw_rng *r, double v)
{
    return iohw_rng_next(r) >> 63 ? -v : v;
}

/* +Inf, -Inf, NaN in turn. */
static double special(int64_t j)
{
    return j % 3 == 0 ? INFINITY : j % 3 == 1 ? -INFINITY : NAN;
}

/* The zero-x channel c: x = +-0, one special weight per kernel. */
static void zero_x_channel(iohw__fill *f, iohw_rng *r, int64_t c)
{
    for (int64_t n = 0; n < f->N; n++)
        for (int64_t i = 0; i < f->L; i++)
            f->x[(n * f->C_in + c) * f->L + i] = random_sign(r, 0.0);
    for (int64_t m = 0; m < f->Mg; m++)
        f->w[(c * f->Mg + m) * f->K + iohw_rng_range(r, 0, f->K - 1)] = special(m + c);
}

/* The zero-w channel c: w = +-0, special x at one or two positions. */
static void zero_w_channel(iohw__fill *f, iohw_rng *r, int64_t c)
{
    for (int64_t j = 0; j < f->Mg * f->K; j++)
        f->w[c * f->Mg * f->K + j] = random_sign(r, 0.0);
    for (int64_t n = 0; n < f->N; n++) {
        double *xc = f->x + (n * f->C_in + c) * f->L;
        xc[iohw_rng_range(r, 0, f->L - 1)] = special(n + c);
        xc[iohw_rng_range(r, 0, f->L - 1)] = special(n + c + 1);
    }
}

static int fill_zeros(iohw__fill *f, iohw_error *err)
{
    iohw_rng r;

    if (iohw__fill_random(f, "normal", err) != 0)
        return -1;
    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_SPECIAL_X));
    for (int64_t g = 0; g < f->G; g++) {
        if (f->Cg == 1) {
            if ((g + (int64_t)(f->seed & 1)) % 2 == 0)
                zero_x_channel(f, &r, g);
            else
                zero_w_channel(f, &r, g);
            continue;
        }
        const int64_t cz = iohw_rng_range(&r, 0, f->Cg - 1);
        const int64_t cw = (cz + 1 + iohw_rng_range(&r, 0, f->Cg - 2)) % f->Cg;
        zero_x_channel(f, &r, g * f->Cg + cz);
        zero_w_channel(f, &r, g * f->Cg + cw);
    }
    return 0;
}

static int fill_subnormal(iohw__fill *f, iohw_error *err)
{
    const double s = iohw__fill_smallest_subnormal(f->dt);

    if (iohw__fill_exact(f, err) != 0)
        return -1;
    for (int64_t j = 0; j < f->nx; j++)
        f->x[j] *= s;
    for (int64_t j = 0; j < f->nb; j++)
        f->bias[j] *= s;
    return 0;
}

/* 1 when input position i (row-major over in_size) is on the ties grid. */
static int on_grid(const iohw_problem *p, int64_t i)
{
    for (int a = (int)p->rank - 1; a >= 0; a--) {
        const int64_t reach = (p->kernel[a] - 1) * p->dilation[a] + 1;
        const int64_t step = (reach + p->stride[a] - 1) / p->stride[a];
        if (i % p->in_size[a] % step != 0)
            return 0;
        i /= p->in_size[a];
    }
    return 1;
}

static void fill_ties(iohw__fill *f)
{
    iohw_rng r;
    const int pbits = iohw__fill_precision(f->dt);
    const int64_t low = (int64_t)1 << (pbits - 1);

    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_X));
    memset(f->x, 0, (size_t)f->nx * sizeof *f->x);
    for (int64_t n = 0; n < f->N; n++)
        for (int64_t g = 0; g < f->G; g++) {
            const int64_t c = g * f->Cg + iohw_rng_range(&r, 0, f->Cg - 1);
            double *xc = f->x + (n * f->C_in + c) * f->L;
            for (int64_t i = 0; i < f->L; i++)
                if (on_grid(f->p, i))
                    xc[i] = random_sign(&r, (double)(2 * iohw_rng_range(&r, 1, 6) + 1));
        }
    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_W));
    for (int64_t j = 0; j < f->nw; j++)
        f->w[j] = random_sign(&r, (double)(low + iohw_rng_range(&r, 0, low - 1)));
    for (int64_t j = 0; j < f->nb; j++)
        f->bias[j] = 0.0;
}

/* The output channel of canonical weight index j (w[C_in][Mg][K...]). */
static int64_t weight_out_channel(const iohw__fill *f, int64_t j)
{
    return j / (f->Mg * f->K) / f->Cg * f->Mg + j / f->K % f->Mg;
}

static void fill_huge(iohw__fill *f)
{
    iohw_rng r;
    const int emax = f->dt == IOHW_F16 ? 15 : f->dt == IOHW_F64 ? 1023 : 127;
    const int hx = emax / 2, hw = emax - 1 - hx;

    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_X));
    for (int64_t j = 0; j < f->nx; j++)
        f->x[j] = iohw_dtype_round(f->dt, ldexp(1.0 + iohw_rng_uniform(&r), hx));
    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_W));
    for (int64_t j = 0; j < f->nw; j++) {
        const int64_t co = weight_out_channel(f, j);
        const double v = iohw_dtype_round(f->dt, ldexp(1.0 + iohw_rng_uniform(&r), hw));
        f->w[j] = co % 2 == 0 ? v : -v;
    }
    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_BIAS));
    for (int64_t j = 0; j < f->nb; j++) {
        const double v = iohw_dtype_round(f->dt, ldexp(1.0 + iohw_rng_uniform(&r), emax - 2));
        f->bias[j] = j % 2 == 0 ? v : -v;
    }
}

static void fill_accum16(iohw__fill *f)
{
    iohw_rng r;
    const iohw_dtype grid = f->dt == IOHW_BF16 ? IOHW_BF16 : IOHW_F16;
    const double s = iohw__fill_smallest_subnormal(grid);
    int e2;
    frexp(s, &e2);                          /* s = 2^(e2 - 1) */
    const int sum = e2 - 1 - 3;
    const int ex = sum % 2 == 0 ? sum / 2 : (sum - 1) / 2, ew = sum - ex;
    const int64_t odd = (int64_t)(f->seed & 1);

    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_X));
    for (int64_t j = 0; j < f->nx; j++)
        f->x[j] = ldexp(iohw_rng_range(&r, 0, 1) == 0 ? 11.0 : 19.0, ex);
    for (int64_t j = 0; j < f->nw; j++)
        f->w[j] = (weight_out_channel(f, j) + odd) % 2 == 0 ? ldexp(1.0, ew) : -ldexp(1.0, ew);
    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_BIAS));
    for (int64_t j = 0; j < f->nb; j++) {
        const double v = (double)iohw_rng_range(&r, 1, 4) * s;
        f->bias[j] = (j + odd) % 2 == 0 ? v : -v;
    }
}

int iohw__fill_narrow(iohw__fill *f, const char *fill, iohw_error *err)
{
    if (strcmp(fill, "zeros") == 0)
        return fill_zeros(f, err);
    if (strcmp(fill, "subnormal") == 0)
        return fill_subnormal(f, err);
    if (strcmp(fill, "ties") == 0) {
        fill_ties(f);
        return 0;
    }
    if (strcmp(fill, "huge") == 0) {
        fill_huge(f);
        return 0;
    }
    if (strcmp(fill, "accum16") == 0) {
        fill_accum16(f);
        return 0;
    }
    return iohw_error_set(err, "fill: no generator for fill '%s'", fill);
}
