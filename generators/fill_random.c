/*
 * generators/fill_random.c - the random fills: normal, uniform, range,
 * cancel and special.
 *
 * Definition (every value rounded to nearest in the dtype):
 *   normal   x, w, bias ~ N(0, 1);
 *   uniform  x, w, bias ~ U(-1, 1);
 *   range    N(0, 1) * 2^e with e a uniform integer in a range the dtype
 *            holds with room for sums: f16 [-8, 6], bf16 and f32 [-20, 20],
 *            f64 [-40, 40];
 *   cancel   input channels are paired within each group (local channels
 *            2j and 2j+1): x of channel 2j+1 repeats x of channel 2j, and
 *            w[2j+1][m][k] = -w[2j][m][k] * (1 + delta) with delta in
 *            [2^-h-1, 2^-h), h = p_bits / 2, drawn per element.  Each pair
 *            contributes -x*w*delta: the terms of an output element nearly
 *            cancel and the result is about 2^-h of err_bound.  The bias is
 *            N(0, 1) * 2^-h so it does not swamp the residue.  With one
 *            channel per group there is nothing to pair and the numbers are
 *            those of normal; an odd last channel of a group stays unpaired;
 *   special  normal, then in x and in w about 2% of the positions (at least
 *            one) replaced, in random places, by NaN, +Inf, -Inf, -0 and
 *            +-(the dtype's smallest subnormal), those five kinds in turn,
 *            so a tensor with five or more replacements holds every kind.
 *
 * Weights: the K values of each (I, O) kernel are redrawn (at most 16 times)
 * while equal, after rounding, to an earlier value of the same kernel, so
 * flipped or exchanged kernels change the result even in bf16.  Kernels of
 * more than DISTINCT_MAX positions are not checked (the rounded values of
 * that many normal draws collide only in f16 and bf16, and rarely).
 */
#include "generators/fill_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"

#define DISTINCT_MAX 256
#define DISTINCT_TRIES 16

enum { DRAW_NORMAL, DRAW_UNIFORM, DRAW_RANGE };

static double draw(int kind, iohw_dtype dt, iohw_rng *r)
{
    double v;
    int lo = -20, hi = 20;

    switch (kind) {
    case DRAW_UNIFORM:
        v = 2.0 * iohw_rng_uniform(r) - 1.0;
        break;
    case DRAW_RANGE:
        if (dt == IOHW_F16) {
            lo = -8;
            hi = 6;
        } else if (dt == IOHW_F64) {
            lo = -40;
            hi = 40;
        }
        v = iohw_rng_normal(r);
        v = ldexp(v, (int)iohw_rng_range(r, lo, hi));
        break;
    default:
        v = iohw_rng_normal(r);
        break;
    }
    return iohw_dtype_round(dt, v);
}

static void fill_plain(iohw_rng *r, int kind, iohw_dtype dt, double *a,
                       int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        a[j] = draw(kind, dt, r);
}

/* One bit of 64 chosen by the bits of v, the same for -0 and +0 (which
 * compare equal). */
static uint64_t value_bit(double v)
{
    uint64_t b;
    v += 0.0;  /* -0 becomes +0 */
    memcpy(&b, &v, sizeof b);
    return UINT64_C(1) << ((b * UINT64_C(0x9E3779B97F4A7C15)) >> 58);
}

/* 1 when v equals one of wk[0..k-1], whose value bits are in `seen`: most
 * values find their bit unset and need no scan. */
static int repeats(const double *wk, int64_t k, uint64_t seen, double v)
{
    if ((seen & value_bit(v)) == 0)
        return 0;
    int64_t j = 0;
    while (j < k && wk[j] != v)
        j++;
    return j < k;
}

/* One kernel of K values, distinct where possible. */
static void fill_kernel(iohw_rng *r, int kind, iohw_dtype dt, double *wk,
                        int64_t K)
{
    uint64_t seen = 0;
    for (int64_t k = 0; k < K; k++) {
        double v = draw(kind, dt, r);
        for (int tries = 0; K <= DISTINCT_MAX && tries < DISTINCT_TRIES &&
                            repeats(wk, k, seen, v); tries++)
            v = draw(kind, dt, r);
        wk[k] = v;
        seen |= value_bit(v);
    }
}

/* x, with channel pairs repeated for cancel. */
static void fill_x(iohw__fill *f, int kind, int cancel)
{
    iohw_rng r;

    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_X));
    for (int64_t n = 0; n < f->N; n++) {
        for (int64_t c = 0; c < f->C_in; c++) {
            double *row = f->x + (n * f->C_in + c) * f->L;
            int64_t cl = c % f->Cg;
            if (cancel && cl % 2 == 1)
                memcpy(row, row - f->L, (size_t)f->L * sizeof(double));
            else
                fill_plain(&r, kind, f->dt, row, f->L);
        }
    }
}

/* w, kernel by kernel, with the negated partner kernels for cancel. */
static void fill_w(iohw__fill *f, int kind, int cancel)
{
    iohw_rng r;
    const int h = iohw__fill_precision(f->dt) / 2;

    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_W));
    for (int64_t c = 0; c < f->C_in; c++) {
        int64_t cl = c % f->Cg;
        for (int64_t m = 0; m < f->Mg; m++) {
            double *wk = f->w + (c * f->Mg + m) * f->K;
            if (!(cancel && cl % 2 == 1)) {
                fill_kernel(&r, kind, f->dt, wk, f->K);
                continue;
            }
            const double *partner = wk - f->Mg * f->K;
            for (int64_t k = 0; k < f->K; k++) {
                double delta = ldexp(1.0 + iohw_rng_uniform(&r), -h - 1);
                wk[k] = iohw_dtype_round(f->dt, -partner[k] * (1.0 + delta));
            }
        }
    }
}

double iohw__fill_smallest_subnormal(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F64:
        return 0x1p-1074;
    case IOHW_F16:
        return 0x1p-24;
    case IOHW_BF16:
        return 0x1p-133;
    default:
        return 0x1p-149;
    }
}

/* Replaces about 2% of a (at least one position) by special values. */
static int replace_specials(iohw__fill *f, int tag, double *a, int64_t n,
                            iohw_error *err)
{
    iohw_rng r;
    int64_t k = n / 50;
    int64_t *pos;

    if (k < 1)
        k = 1;
    pos = malloc((size_t)k * sizeof *pos);
    if (pos == NULL)
        return iohw_error_set(err, "fill special: out of memory for %lld positions",
                              (long long)k);
    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, tag));

    /* Choose k positions (selection sampling), then shuffle them so the
     * kinds, given in turn, land in random places. */
    int64_t chosen = 0;
    for (int64_t j = 0; j < n && chosen < k; j++) {
        if (iohw_rng_range(&r, 0, n - j - 1) < k - chosen)
            pos[chosen++] = j;
    }
    for (int64_t j = k - 1; j > 0; j--) {
        int64_t i = iohw_rng_range(&r, 0, j);
        int64_t t = pos[i];
        pos[i] = pos[j];
        pos[j] = t;
    }
    for (int64_t j = 0; j < k; j++) {
        double v;
        switch (j % 5) {
        case 0:
            v = NAN;
            break;
        case 1:
            v = INFINITY;
            break;
        case 2:
            v = -INFINITY;
            break;
        case 3:
            v = -0.0;
            break;
        default:
            v = iohw__fill_smallest_subnormal(f->dt);
            if (iohw_rng_next(&r) >> 63)
                v = -v;
            break;
        }
        a[pos[j]] = v;
    }
    free(pos);
    return 0;
}

int iohw__fill_random(iohw__fill *f, const char *fill, iohw_error *err)
{
    int kind = DRAW_NORMAL;
    int cancel = 0;
    int special = 0;

    if (strcmp(fill, "uniform") == 0)
        kind = DRAW_UNIFORM;
    else if (strcmp(fill, "range") == 0)
        kind = DRAW_RANGE;
    else if (strcmp(fill, "cancel") == 0)
        cancel = 1;
    else if (strcmp(fill, "special") == 0)
        special = 1;
    else if (strcmp(fill, "normal") != 0)
        return iohw_error_set(err, "fill: no generator for fill '%s'", fill);

    /* Base values, one stream per tensor. */
    fill_x(f, kind, cancel);
    fill_w(f, kind, cancel);
    if (f->nb > 0) {
        iohw_rng r;
        iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_BIAS));
        fill_plain(&r, kind, f->dt, f->bias, f->nb);
        if (cancel) {
            const int h = iohw__fill_precision(f->dt) / 2;
            for (int64_t j = 0; j < f->nb; j++)
                f->bias[j] = iohw_dtype_round(f->dt, ldexp(f->bias[j], -h));
        }
    }

    /* Special values. */
    if (special) {
        if (replace_specials(f, IOHW__STREAM_SPECIAL_X, f->x, f->nx, err) != 0)
            return -1;
        if (replace_specials(f, IOHW__STREAM_SPECIAL_W, f->w, f->nw, err) != 0)
            return -1;
    }
    return 0;
}
