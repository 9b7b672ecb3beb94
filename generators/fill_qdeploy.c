/*
 * generators/fill_qdeploy.c - the quantized fills of the scales and sizes
 * people deploy (fill_qdesign.h: qdeploy, qwide, qshift), which leave the
 * binary32-exact zone of specification section 11.2 on purpose.
 *
 * Method, for every fill:
 *   1. zero points and x_q, w_q (small deviations for qdeploy and qshift;
 *      for qwide x at the far end of its type from zp_x, w at the ends of
 *      its type around a centred zp_w, of one sign per output channel, so
 *      that accumulators pass 2^31 of both signs and a wrapped one lands
 *      inside the others' range);
 *   2. the accumulators, exactly in int64 (iohw_quant_accumulate), then a
 *      small bias, and the accumulators with it;
 *   3. M: qdeploy   calibrated-looking scales with the exact M just below
 *                   1/2 and M computed in binary32 equal to 1/2;
 *         qwide     M = m * 2^-k fitting the accumulators' range;
 *         qshift    a multiplier in [2^30, 2^31) and a shift in 1..7;
 *      zp_y centres the outputs in the output type;
 *   4. in the gemmlowp mode the oracle run once on the result (a case this
 *      returns is valid; the other modes accept every accumulator).
 */
#include "generators/fill_qdesign.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_internal.h"
#include "oracle/problem.h"

#define STREAM_PARAMS 17

typedef struct qd {
    iohw_problem p;
    int kind;
    int64_t C_out, Mg, Cg, K, nx, nw, ny, OV, nm;
    int64_t lo_x, hi_x, lo_w, hi_w, lo_y, hi_y;
    int64_t *acc;
    iohw_rng rp;
    iohw__qdata *d;
} qd;

/* --- 1. zero points, x and w -------------------------------------------- */

static void zero_points(qd *f)
{
    iohw_quant *q = &f->d->q;
    if (f->kind == IOHW__QFILL_WIDE) { /* x's far from its values; w's centred */
        q->zp_x = (int32_t)f->hi_x;
        q->zp_w = (int32_t)((f->lo_w + f->hi_w + 1) / 2);
        return;
    }
    const int64_t mx = (f->lo_x + f->hi_x + 1) / 2, mw = (f->lo_w + f->hi_w + 1) / 2;
    q->zp_x = (int32_t)(mx + iohw_rng_range(&f->rp, 4, 40) * (iohw_rng_next(&f->rp) >> 63 ? 1 : -1));
    q->zp_w = (int32_t)(mw + iohw_rng_range(&f->rp, 4, 40) * (iohw_rng_next(&f->rp) >> 63 ? 1 : -1));
}

/* The deviation from the zero point: qdeploy [-3, 3], qshift [-s, s]. */
static int64_t spread(const qd *f)
{
    return f->kind == IOHW__QFILL_SHIFT ? 1 + (int64_t)(f->d->q.zp_x & 1) : 3;
}

static void fill_x(qd *f, uint64_t seed)
{
    iohw_rng r;
    const iohw_quant *q = &f->d->q;
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_X));
    for (int64_t i = 0; i < f->nx; i++) {
        const int64_t v = f->kind == IOHW__QFILL_WIDE ? f->lo_x + iohw_rng_range(&r, 0, 4)
                                                      : q->zp_x + iohw_rng_range(&r, -spread(f), spread(f));
        iohw__qstore8(f->d->x, q->x_dtype, i, iohw__qclamp(v, f->lo_x, f->hi_x));
    }
}

static void fill_w(qd *f, uint64_t seed)
{
    iohw_rng r;
    const iohw_quant *q = &f->d->q;
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_W));
    for (int64_t i = 0; i < f->nw; i++) {
        const int64_t m = (i / f->K) % f->Mg; /* w[ci][m][k] */
        int64_t v;
        if (f->kind != IOHW__QFILL_WIDE)
            v = q->zp_w + iohw_rng_range(&r, -spread(f), spread(f));
        else if (m % 2 == 0) /* terms near +255 * 128 */
            v = f->lo_w + iohw_rng_range(&r, 0, 4);
        else /* terms near -255 * 127 */
            v = f->hi_w - iohw_rng_range(&r, 0, 4);
        iohw__qstore8(f->d->w, q->w_dtype, i, iohw__qclamp(v, f->lo_w, f->hi_w));
    }
}

/* --- 2. accumulators and bias ------------------------------------------- */

static int64_t channel_of(const qd *f, int64_t i)
{
    return (i / f->OV) % f->C_out;
}

static void acc_range(const qd *f, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int64_t i = 0; i < f->ny; i++) {
        *lo = f->acc[i] < *lo ? f->acc[i] : *lo;
        *hi = f->acc[i] > *hi ? f->acc[i] : *hi;
    }
    if (*lo > *hi)
        *lo = *hi = 0;
}

static int accumulate(qd *f, uint64_t seed, iohw_error *err)
{
    iohw_problem p = f->p;
    p.has_bias = 0;
    if (iohw_quant_accumulate(&p, &f->d->q, f->d->x, f->d->w, NULL, f->acc, err) != 0)
        return iohw_error_prefix(err, "quantized fill %s", iohw__qfill_name(f->kind));
    if (f->d->bias == NULL)
        return 0;
    iohw_rng r;
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_BIAS));
    for (int64_t oc = 0; oc < f->C_out; oc++) /* even: odd accumulators stay odd */
        f->d->bias[oc] = (int32_t)(2 * iohw_rng_range(&r, -4, 4));
    for (int64_t i = 0; i < f->ny; i++)
        f->acc[i] += f->d->bias[channel_of(f, i)];
    return 0;
}

/* --- 3. M ----------------------------------------------------------------- */

/* 1 when s_x * s_w / s_y is just below 1/2 exactly while binary32 computes
 * fl(fl(s_x * s_w) / s_y) = 1/2 (the products are exact in binary64). */
static int near_half(float sx, float sw, float sy)
{
    volatile float prod = sx * sw;
    volatile float m = prod / sy;
    return (double)sx * (double)sw < 0.5 * (double)sy && m == 0.5f;
}

/* s_w for channel j: the binary32 values around 0.5 * s_y / s_x. */
static int deploy_sw(float sx, float sy, float *sw)
{
    float c = (float)(0.5 * (double)sy / (double)sx);
    for (int t = 0; t < 4; t++, c = nextafterf(c, 0.0f))
        if (near_half(sx, c, sy)) {
            *sw = c;
            return 0;
        }
    return -1;
}

/* A calibrated-looking scale in [lo, hi), or 1/255, 1/127. */
static float calibrated(iohw_rng *r, double lo, double hi)
{
    const int64_t form = iohw_rng_range(r, 0, 3);
    if (form == 0)
        return 1.0f / 255.0f;
    if (form == 1)
        return 1.0f / 127.0f;
    return (float)(lo + (hi - lo) * iohw_rng_uniform(r));
}

static int choose_deploy(qd *f, iohw_error *err)
{
    iohw__qdata *d = f->d;
    for (int tries = 0; tries < 64; tries++) {
        d->q.s_x = calibrated(&f->rp, 0.002, 0.05);
        d->q.s_y = (float)(0.01 + 0.2 * iohw_rng_uniform(&f->rp));
        int ok = 1;
        for (int64_t j = 0; ok && j < f->nm; j++) {
            ok = deploy_sw(d->q.s_x, d->q.s_y, &d->s_w[j]) == 0;
            d->multiplier[j] = (int32_t)((1 << 30) - 1 - iohw_rng_range(&f->rp, 0, 31));
            d->shift[j] = 0;
        }
        if (ok)
            return 0;
    }
    return iohw_error_set(err, "quantized fill qdeploy: no near-half scales found");
}

/* M = m * 2^-k (scales: s_x = 2^-7, s_y = 2^-3, s_w = m * 2^(4-k); fixed:
 * multiplier m * 2^t, shift 31 - t - k) with m * range <= 255 * 2^k. */
static void choose_wide(qd *f, int64_t lo, int64_t hi)
{
    iohw__qdata *d = f->d;
    static const int64_t ODD[3] = {3, 5, 7};
    const int64_t m = ODD[iohw_rng_range(&f->rp, 0, 2)];
    const int t = m == 3 ? 29 : 28;
    int k = 0;
    while (ldexp((double)m * (double)(hi - lo), -k) > (double)(f->hi_y - f->lo_y - 1))
        k++;
    d->q.s_x = ldexpf(1.0f, -7);
    d->q.s_y = ldexpf(1.0f, -3);
    for (int64_t j = 0; j < f->nm; j++) {
        d->s_w[j] = ldexpf((float)m, 4 - k);
        d->multiplier[j] = (int32_t)(m << t);
        d->shift[j] = (int32_t)iohw__qclamp(31 - t - k, -31, 30);
    }
    const double c = ldexp((double)m * ((double)hi + (double)lo) / 2.0, -k);
    d->q.zp_y = (int32_t)iohw__qclamp(llround((double)(f->lo_y + f->hi_y + 1) / 2.0 - 0.5 - c),
                                 f->lo_y, f->hi_y);
}

/* multiplier in [2^30, 2^31), the largest shift in 1..7 with M * range
 * <= 255. */
static void choose_shift(qd *f, int64_t lo, int64_t hi)
{
    iohw__qdata *d = f->d;
    const int64_t r = hi - lo > 0 ? hi - lo : 1;
    int sh = 7;
    while (sh > 1 && ldexp((double)r, sh) > (double)(f->hi_y - f->lo_y))
        sh--;
    for (int64_t j = 0; j < f->nm; j++) {
        d->multiplier[j] = (int32_t)iohw_rng_range(&f->rp, (int64_t)1 << 30, INT32_MAX);
        d->shift[j] = sh;
        d->s_w[j] = 1.0f;
    }
    d->q.s_x = d->q.s_y = 1.0f;
    const double c = (double)d->multiplier[0] * ldexp(((double)hi + (double)lo) / 2.0, sh - 31);
    d->q.zp_y = (int32_t)iohw__qclamp(llround((double)(f->lo_y + f->hi_y + 1) / 2.0 - 0.5 - c),
                                 f->lo_y, f->hi_y);
}

/* --- the driver ---------------------------------------------------------- */

static int setup(qd *f, const iohw_problem *p, int kind, const iohw__qwant *want,
                 iohw__qdata *d, iohw_error *err)
{
    const char *name = iohw__qfill_name(kind);
    const size_t at = offsetof(iohw_problem, w_dtype);
    memset(f, 0, sizeof *f);
    memset(d, 0, sizeof *d);
    f->p = *p;
    memset((char *)&f->p + at, 0, IOHW_MEMBER_END(iohw_problem, s_y) - at);
    f->p.dtype = IOHW_F32;
    f->kind = kind;
    f->d = d;
    if (iohw_problem_validate(&f->p, err) != 0)
        return iohw_error_prefix(err, "quantized fill %s", name);
    d->q.x_dtype = want->x_dtype;
    d->q.w_dtype = want->w_dtype;
    d->q.y_dtype = want->y_dtype;
    d->q.rounding = want->rounding;
    d->q.m_form = kind == IOHW__QFILL_SHIFT || want->rounding == IOHW_ROUND_GEMMLOWP
                      ? IOHW_QM_FIXED : want->m_form;
    d->q.per_channel = want->per_channel != 0;
    if (kind == IOHW__QFILL_WIDE && d->q.rounding == IOHW_ROUND_GEMMLOWP &&
        d->q.y_dtype != IOHW_S32)
        return iohw_error_set(err, "quantized fill qwide: gemmlowp takes int32 "
                              "accumulators only (specification section 11.3)");
    f->C_out = p->out_channels;
    f->Mg = f->C_out / p->groups;
    f->nx = iohw_problem_x_count(p);
    f->nw = iohw_problem_w_count(p);
    f->ny = iohw_problem_y_count(p);
    f->K = f->nw / (p->in_channels * f->Mg);
    f->OV = f->ny / (p->batch * f->C_out);
    f->nm = d->q.per_channel ? f->C_out : 1;
    iohw__qrange(want->x_dtype, &f->lo_x, &f->hi_x);
    iohw__qrange(want->w_dtype, &f->lo_w, &f->hi_w);
    iohw__qrange(want->y_dtype, &f->lo_y, &f->hi_y);
    d->x = malloc((size_t)f->nx);
    d->w = malloc((size_t)f->nw);
    d->bias = p->has_bias ? malloc((size_t)f->C_out * sizeof *d->bias) : NULL;
    d->s_w = malloc((size_t)f->nm * sizeof *d->s_w);
    d->multiplier = malloc((size_t)f->nm * sizeof *d->multiplier);
    d->shift = malloc((size_t)f->nm * sizeof *d->shift);
    f->acc = malloc((size_t)f->ny * sizeof *f->acc);
    if (d->x == NULL || d->w == NULL || (p->has_bias && d->bias == NULL) || d->s_w == NULL ||
        d->multiplier == NULL || d->shift == NULL || f->acc == NULL)
        return iohw_error_set(err, "quantized fill %s: out of memory", name);
    return 0;
}

static int check_case(const qd *f, iohw_error *err)
{
    const size_t es = f->d->q.y_dtype == IOHW_S32 ? 4 : 1;
    void *y = malloc((size_t)f->ny * es);
    if (y == NULL)
        return iohw_error_set(err, "quantized fill: out of memory");
    const int rc = iohw_quant_conv_transpose(&f->p, &f->d->q, f->d->x, f->d->w,
                                             f->d->bias, y, err);
    free(y);
    return rc != 0 ? iohw_error_prefix(err, "quantized fill %s", iohw__qfill_name(f->kind)) : 0;
}

static int choose_m(qd *f, iohw_error *err)
{
    iohw__qdata *d = f->d;
    int64_t lo, hi;
    acc_range(f, &lo, &hi);
    if (d->q.y_dtype == IOHW_S32) { /* not requantized: M unused */
        for (int64_t j = 0; j < f->nm; j++) {
            d->s_w[j] = 1.0f;
            d->multiplier[j] = 1 << 30;
            d->shift[j] = 0;
        }
        d->q.s_x = d->q.s_y = 1.0f;
        return 0;
    }
    if (f->kind == IOHW__QFILL_WIDE) {
        choose_wide(f, lo, hi);
    } else if (f->kind == IOHW__QFILL_SHIFT) {
        choose_shift(f, lo, hi);
    } else {
        d->q.zp_y = (int32_t)iohw__qclamp((f->lo_y + f->hi_y + 1) / 2 - (lo + hi) / 4 +
                                     iohw_rng_range(&f->rp, -5, 5), f->lo_y, f->hi_y);
        return choose_deploy(f, err);
    }
    return 0;
}

int iohw__qfill_deploy(const iohw_problem *p, int kind, const iohw__qwant *want,
                       uint64_t seed, iohw__qdata *d, iohw_error *err)
{
    qd f;
    int rc = -1;
    if (setup(&f, p, kind, want, d, err) != 0)
        goto done;
    iohw_rng_seed(&f.rp, iohw__fill_stream_seed(seed, STREAM_PARAMS));
    zero_points(&f);
    fill_x(&f, seed);
    fill_w(&f, seed);
    if (accumulate(&f, seed, err) != 0 || choose_m(&f, err) != 0)
        goto done;
    d->q.s_w = d->s_w;
    d->q.multiplier = d->multiplier;
    d->q.shift = d->shift;
    /* Only gemmlowp can refuse a filled case (acc * 2^shift out of int32). */
    rc = d->q.rounding == IOHW_ROUND_GEMMLOWP ? check_case(&f, err) : 0;
done:
    free(f.acc);
    if (rc != 0)
        iohw__qdata_free(d);
    return rc;
}
