/*
 * generators/fill_exact.c - the `exact` fill: integers small enough that
 * every partial sum of every output element, in any order, is exactly
 * representable in the dtype, so any correct backend matches bit for bit.
 *
 * Definition: with T = iohw_oracle_terms_max(p) (at least 1), p_bits the
 * dtype's precision (24, 53, 11, 8) and B = 2^p_bits - 1, choose integer
 * bounds ax, aw >= 1 and ab such that
 *
 *     T * ax * aw + ab <= B
 *
 * and draw x from [-ax, ax], w from [-aw, aw], bias from [-ab, ab], zero
 * excluded (a zero hides the term it belongs to).  Every partial sum of an
 * output element is an integer of magnitude at most B, hence exact; every
 * product (at most ax * aw <= B) too.
 *
 * Choice of the bounds: Q = floor((B - 1) / T) is the largest allowed
 * ax * aw with one unit left for the bias.
 *   Q >= 64 * 64:  ax = aw = 64 (f32 and f64 cases of usual size);
 *   1 <= Q:        aw = max(ceil(K / 2), floor(sqrt(Q))), capped by 64 and Q,
 *                  so that the K positions of a kernel can get distinct
 *                  values when the budget allows; then ax = min(64, Q / aw);
 *   Q = 0:         (T >= B - 1: f16 or bf16 with very many terms) the
 *                  sparse fallback below;
 * and then ab = min(64, B - T * ax * aw), which is >= 1.
 * When 2 * aw >= K the weights of each (I, O) kernel are a random choice of
 * K distinct values of {-aw..-1, 1..aw} in random order; otherwise they are
 * drawn independently.
 *
 * Sparse fallback: each output element uses each x element at most once (for
 * a given input position i and output position o the kernel position k is
 * determined), so the number of nonzero terms of an output element is at
 * most the number of nonzero x values in its (batch, group) block.  The
 * fallback sets ax = 1, aw = max(1, min(ceil(K / 2), floor(sqrt(B - 1)), 64)),
 * keeps m = floor((B - 1) / aw) nonzero x values (+-1, at random positions)
 * per (n, g) block and zeros elsewhere, and ab = min(64, B - m * aw) >= 1:
 * |partial sum| <= m * aw + ab <= B.  It never fails, so every problem has
 * an exact case.
 */
#include "generators/fill_internal.h"

#include "oracle/dtype.h"
#include "oracle/oracle.h"

#define EXACT_CAP 64   /* largest bound used for any tensor */

/* floor(sqrt(v)) for v >= 0, in integers. */
static int64_t isqrt64(int64_t v)
{
    int64_t s = 0;
    while ((s + 1) * (s + 1) <= v && s < 3037000499LL)
        s++;
    return s;
}

/* A nonzero integer uniform in [-a, -1] U [1, a] (a >= 1). */
static double draw_nonzero(iohw_rng *r, int64_t a)
{
    int64_t v = iohw_rng_range(r, 1, 2 * a);
    return (double)(v <= a ? v - a - 1 : v - a);
}

/* Weights: distinct values per (I, O) kernel when 2 * aw >= K. */
static void exact_weights(iohw__fill *f, int64_t aw)
{
    iohw_rng r;
    int64_t pool[2 * EXACT_CAP];
    const int64_t npool = 2 * aw;
    const int64_t kernels = f->C_in * f->Mg;

    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_W));
    for (int64_t q = 0; q < kernels; q++) {
        double *wk = f->w + q * f->K;
        if (f->K > npool) {
            for (int64_t k = 0; k < f->K; k++)
                wk[k] = draw_nonzero(&r, aw);
            continue;
        }
        /* Partial Fisher-Yates over the pool: the first K entries are a
         * uniformly random arrangement of K distinct nonzero values. */
        for (int64_t j = 0; j < aw; j++) {
            pool[j] = -(j + 1);
            pool[aw + j] = j + 1;
        }
        for (int64_t k = 0; k < f->K; k++) {
            int64_t j = iohw_rng_range(&r, k, npool - 1);
            int64_t t = pool[k];
            pool[k] = pool[j];
            pool[j] = t;
            wk[k] = (double)pool[k];
        }
    }
}

/* Inputs: dense nonzero values in [-ax, ax], or, when m >= 0, at most m
 * nonzero +-1 values per (n, g) block chosen by selection sampling. */
void iohw__fill_exact_x(iohw__fill *f, int64_t ax, int64_t m)
{
    iohw_rng r;
    const int64_t block = f->Cg * f->L;     /* one (n, g) block of x */
    const int64_t nblocks = f->N * f->G;

    iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_X));
    for (int64_t b = 0; b < nblocks; b++) {
        double *xb = f->x + b * block;
        if (m < 0 || m >= block) {
            for (int64_t j = 0; j < block; j++)
                xb[j] = draw_nonzero(&r, ax);
            continue;
        }
        /* Knuth's selection sampling: exactly m of the block. */
        int64_t chosen = 0;
        for (int64_t j = 0; j < block; j++) {
            int64_t left = block - j;
            if (iohw_rng_range(&r, 0, left - 1) < m - chosen) {
                xb[j] = draw_nonzero(&r, 1);
                chosen++;
            } else {
                xb[j] = 0.0;
            }
        }
    }
}

int iohw__fill_exact(iohw__fill *f, iohw_error *err)
{
    const int pbits = iohw__fill_precision(f->dt);
    const int64_t B = ((int64_t)1 << pbits) - 1;
    const int64_t aw_need = (f->K + 1) / 2;
    int64_t T;
    int64_t ax, aw, ab, m = -1;

    if (pbits == 0)
        return iohw_error_set(err, "fill exact: unknown dtype %d", (int)f->dt);
    if (iohw_oracle_terms(f->p, &T, err) != 0)
        return iohw_error_prefix(err, "fill exact");
    if (T < 1)
        T = 1;

    /* Choose the bounds (see the definition above). */
    int64_t Q = (B - 1) / T;
    if (Q >= EXACT_CAP * EXACT_CAP) {
        ax = aw = EXACT_CAP;
    } else if (Q >= 1) {
        aw = isqrt64(Q);
        if (aw < aw_need)
            aw = aw_need;
        if (aw > EXACT_CAP)
            aw = EXACT_CAP;
        if (aw > Q)
            aw = Q;
        ax = Q / aw;
        if (ax > EXACT_CAP)
            ax = EXACT_CAP;
    } else {
        ax = 1;
        aw = isqrt64(B - 1);
        if (aw > aw_need)
            aw = aw_need;
        if (aw > EXACT_CAP)
            aw = EXACT_CAP;
        if (aw < 1)
            aw = 1;
        m = (B - 1) / aw;
    }
    /* What the products leave for the bias: >= 1 by the choice of Q or m. */
    ab = B - (m < 0 ? T : m) * ax * aw;
    if (ab > EXACT_CAP)
        ab = EXACT_CAP;

    /* Draw the tensors, each from its own stream. */
    f->exact_ax = ax;
    f->exact_aw = aw;
    f->exact_m = m;
    iohw__fill_exact_x(f, ax, m);
    exact_weights(f, aw);
    if (f->nb > 0) {
        iohw_rng r;
        iohw_rng_seed(&r, iohw__fill_stream_seed(f->seed, IOHW__STREAM_BIAS));
        for (int64_t j = 0; j < f->nb; j++)
            f->bias[j] = draw_nonzero(&r, ab);
    }
    return 0;
}
