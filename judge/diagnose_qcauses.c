/*
 * judge/diagnose_qcauses.c - the misreadings of judge/diagnose_qcauses.h
 * (specification section 11.5), computed on the canonical case
 * x_q[N][C_in][L...], w_q[C_in][Mg][K...], y[N][C_out][O...] with the
 * definition's geometry (specification section 11.1): input position i and
 * tap k reach output o = i*S - P + k*D on every axis.  Accumulators are
 * int64 sums, exact.
 */
#include "judge/diagnose_qcauses.h"

#include <stdlib.h>
#include <string.h>

/* One real tap: input channel ci at position li (flat), weight (ci, m)
 * at tap ki (flat), reaching output yi (flat over N, C_out, O). */
typedef void (*tap_fn)(void *ctx, const iohw__dgq_canon *c, int64_t n, int64_t ci,
                       int64_t li, int64_t m, int64_t ki, int64_t yi);

typedef struct geom {
    int64_t L[3], K[3], O[3], S[3], D[3], P[3];
    int64_t nL, nK, nO, Cg, Mg;
} geom;

static void geom_of(const iohw_problem *p, geom *g)
{
    const int r = (int)p->rank;
    g->nL = g->nK = g->nO = 1;
    for (int a = 0; a < 3; a++) {
        const int s = a - (3 - r); /* leading axes of extent 1 */
        g->L[a] = s >= 0 ? p->in_size[s] : 1;
        g->K[a] = s >= 0 ? p->kernel[s] : 1;
        g->O[a] = s >= 0 ? p->out_size[s] : 1;
        g->S[a] = s >= 0 ? p->stride[s] : 1;
        g->D[a] = s >= 0 ? p->dilation[s] : 1;
        g->P[a] = s >= 0 ? p->pad_begin[s] : 0;
        g->nL *= g->L[a];
        g->nK *= g->K[a];
        g->nO *= g->O[a];
    }
    g->Cg = p->in_channels / p->groups;
    g->Mg = p->out_channels / p->groups;
}

/* Calls fn for every (n, ci, input position, m, tap) that reaches an
 * output. */
static void each_tap(const iohw__dgq_canon *c, tap_fn fn, void *ctx)
{
    const iohw_problem *p = c->p;
    geom g;
    geom_of(p, &g);
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t ci = 0; ci < p->in_channels; ci++)
            for (int64_t li = 0; li < g.nL; li++)
                for (int64_t ki = 0; ki < g.nK; ki++) {
                    const int64_t i[3] = {li / (g.L[1] * g.L[2]), li / g.L[2] % g.L[1],
                                          li % g.L[2]};
                    const int64_t k[3] = {ki / (g.K[1] * g.K[2]), ki / g.K[2] % g.K[1],
                                          ki % g.K[2]};
                    int64_t oi = 0, ok = 1;
                    for (int a = 0; a < 3; a++) {
                        const int64_t o = i[a] * g.S[a] - g.P[a] + k[a] * g.D[a];
                        ok &= o >= 0 && o < g.O[a];
                        oi = oi * g.O[a] + o;
                    }
                    for (int64_t m = 0; ok && m < g.Mg; m++) {
                        const int64_t oc = (ci / g.Cg) * g.Mg + m;
                        fn(ctx, c, n, ci, li, m, ki, (n * p->out_channels + oc) * g.nO + oi);
                    }
                }
}

static int64_t val8(int32_t t, const uint8_t *b, int64_t i)
{
    return t == IOHW_S8 ? (int64_t)(int8_t)b[i] : (int64_t)b[i];
}

typedef struct accs {
    geom g;
    int64_t *acc, *wsum; /* wsum: sum of (w - zp_w) over the real taps */
} accs;

static int64_t x_at(const iohw__dgq_canon *c, const geom *g, int64_t n, int64_t ci, int64_t li)
{
    return val8(c->q->x_dtype, c->x, (n * c->p->in_channels + ci) * g->nL + li);
}

static int64_t w_at(const iohw__dgq_canon *c, const geom *g, int64_t ci, int64_t m, int64_t ki)
{
    return val8(c->q->w_dtype, c->w, (ci * g->Mg + m) * g->nK + ki);
}

/* The definition's term, and the tap's weight for the border sums. */
static void exact_tap(void *ctx, const iohw__dgq_canon *c, int64_t n, int64_t ci, int64_t li,
                      int64_t m, int64_t ki, int64_t yi)
{
    accs *a = ctx;
    const int64_t w = w_at(c, &a->g, ci, m, ki) - c->q->zp_w;
    a->acc[yi] += (x_at(c, &a->g, n, ci, li) - c->q->zp_x) * w;
    if (a->wsum != NULL)
        a->wsum[yi] += w;
}

static void add_bias(const iohw__dgq_canon *c, int64_t *acc)
{
    for (int64_t i = 0; c->bias != NULL && i < c->ny; i++)
        acc[i] += c->bias[(i / c->OV) % c->p->out_channels];
}

int iohw__dgq_pad_zero_acc(const iohw__dgq_canon *c, int64_t *acc)
{
    accs a;
    memset(&a, 0, sizeof a);
    geom_of(c->p, &a.g);
    a.acc = acc;
    a.wsum = calloc((size_t)c->ny, sizeof *a.wsum);
    int64_t *total = calloc((size_t)c->p->out_channels, sizeof *total);
    if (a.wsum == NULL || total == NULL) {
        free(a.wsum);
        free(total);
        return -1;
    }
    memset(acc, 0, (size_t)c->ny * sizeof *acc);
    each_tap(c, exact_tap, &a);
    /* every output sees all Cg * K taps of its channel: the ones not on a
     * real input read 0 where the definition has zp_x */
    for (int64_t ci = 0; ci < c->p->in_channels; ci++)
        for (int64_t m = 0; m < a.g.Mg; m++)
            for (int64_t ki = 0; ki < a.g.nK; ki++)
                total[(ci / a.g.Cg) * a.g.Mg + m] += w_at(c, &a.g, ci, m, ki) - c->q->zp_w;
    for (int64_t i = 0; i < c->ny; i++)
        acc[i] -= (int64_t)c->q->zp_x * (total[(i / c->OV) % c->p->out_channels] - a.wsum[i]);
    add_bias(c, acc);
    free(a.wsum);
    free(total);
    return 0;
}

static int64_t sat16(int64_t v)
{
    return v < -32768 ? -32768 : v > 32767 ? 32767 : v;
}

/* The pair of input channels ci (even within its group) and ci + 1: the
 * raw u8 * s8 products summed, saturated to int16; the error added. */
static void pair_tap(void *ctx, const iohw__dgq_canon *c, int64_t n, int64_t ci, int64_t li,
                     int64_t m, int64_t ki, int64_t yi)
{
    accs *a = ctx;
    exact_tap(ctx, c, n, ci, li, m, ki, yi);
    if ((ci % a->g.Cg) % 2 != 0 || ci % a->g.Cg + 1 >= a->g.Cg)
        return;
    const int64_t xs = c->q->x_dtype == IOHW_S8 ? 128 : 0;
    const int64_t ws = c->q->w_dtype == IOHW_U8 ? -128 : 0;
    const int64_t raw = (x_at(c, &a->g, n, ci, li) + xs) * (w_at(c, &a->g, ci, m, ki) + ws) +
                        (x_at(c, &a->g, n, ci + 1, li) + xs) *
                            (w_at(c, &a->g, ci + 1, m, ki) + ws);
    a->acc[yi] += sat16(raw) - raw;
}

int iohw__dgq_sat16_acc(const iohw__dgq_canon *c, int64_t *acc)
{
    accs a;
    memset(&a, 0, sizeof a);
    geom_of(c->p, &a.g);
    a.acc = acc;
    memset(acc, 0, (size_t)c->ny * sizeof *acc);
    each_tap(c, pair_tap, &a);
    add_bias(c, acc);
    return 0;
}

/* The definition's term with x's byte of the other signedness. */
static void x_sign_tap(void *ctx, const iohw__dgq_canon *c, int64_t n, int64_t ci, int64_t li,
                       int64_t m, int64_t ki, int64_t yi)
{
    accs *a = ctx;
    const int32_t other = c->q->x_dtype == IOHW_U8 ? IOHW_S8 : IOHW_U8;
    const int64_t x = val8(other, c->x, (n * c->p->in_channels + ci) * a->g.nL + li);
    a->acc[yi] += (x - c->q->zp_x) * (w_at(c, &a->g, ci, m, ki) - c->q->zp_w);
}

int iohw__dgq_x_sign_acc(const iohw__dgq_canon *c, int64_t *acc)
{
    accs a;
    memset(&a, 0, sizeof a);
    geom_of(c->p, &a.g);
    a.acc = acc;
    memset(acc, 0, (size_t)c->ny * sizeof *acc);
    each_tap(c, x_sign_tap, &a);
    add_bias(c, acc);
    return 0;
}

/* --- finishing ------------------------------------------------------- */

static void range_of(int32_t t, int64_t *lo, int64_t *hi)
{
    *lo = t == IOHW_S8 ? -128 : t == IOHW_U8 ? 0 : INT32_MIN;
    *hi = t == IOHW_S8 ? 127 : t == IOHW_U8 ? 255 : INT32_MAX;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int iohw__dgq_pc_group_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc,
                              int64_t *out)
{
    const int64_t Mg = c->p->out_channels / c->p->groups;
    int64_t r, lo, hi;
    if (iohw_quant_requantize(c->q, c->q->per_channel ? oc % Mg : 0, acc, &r, NULL) != 0)
        return -1;
    range_of(c->q->y_dtype, &lo, &hi);
    *out = clamp(c->q->zp_y + r, lo, hi);
    return 0;
}

int iohw__dgq_narrow_clamp_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc,
                                  int64_t *out)
{
    int64_t r, lo, hi;
    if (iohw_quant_requantize(c->q, oc, acc, &r, NULL) != 0)
        return -1;
    range_of(c->q->y_dtype, &lo, &hi);
    *out = clamp(c->q->zp_y + r, lo + 1, hi);
    return 0;
}

int iohw__dgq_clamp_first_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc,
                                 int64_t *out)
{
    int64_t r, lo, hi;
    if (iohw_quant_requantize(c->q, oc, acc, &r, NULL) != 0)
        return -1;
    range_of(c->q->y_dtype, &lo, &hi);
    *out = clamp(c->q->zp_y + clamp(r, lo, hi), lo, hi);
    return 0;
}
