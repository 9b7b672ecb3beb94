/*
 * generators/fill_qdesign.c - designed data for quantized problems: the
 * fills of fill_qdesign.h, each choosing the zero points, the tensors and M
 * together.
 *
 * Method, for every fill:
 *   1. zero points (zp_x, zp_w inside their types, or at their ends);
 *   2. x_q and w_q (w's output channels scaled down by 2^d(oc) for the
 *      per-channel fills; small multiples of 2^(k-1) for ties);
 *   3. the accumulators without bias, exactly, from the oracle (s32 output);
 *      then the bias, chosen from them, and the accumulators with it;
 *   4. M[oc] = m * 2^-k[oc] and zp_y from the accumulators' range;
 *   5. M written in the case's form (scales or fixed);
 *   6. the oracle run once on the result, so that a case this returns is
 *      valid (the gemmlowp mode refuses an accumulator out of int32).
 */
#include "generators/fill_qdesign.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_internal.h"
#include "oracle/problem.h"

/* The stream of the parameters (zero points, M); x, w and bias use the
 * float fills' tags. */
#define STREAM_PARAMS 16

static const char *const NAMES[IOHW__QFILL_COUNT] = {
    "qunsat", "qsaturate", "qzp-extreme", "qchannels", "qties", "qio-trap", "qgroup-trap",
    "qdeploy", "qwide", "qshift"};

const char *iohw__qfill_name(int kind)
{
    return kind >= 0 && kind < IOHW__QFILL_COUNT ? NAMES[kind] : NULL;
}

int iohw__qfill_kind(const char *name)
{
    for (int i = 0; name != NULL && i < IOHW__QFILL_COUNT; i++)
        if (strcmp(name, NAMES[i]) == 0)
            return i;
    return -1;
}

typedef struct qf {
    iohw_problem p;          /* the problem as the oracle takes it */
    int kind;
    int64_t C_out, G, Cg, Mg, K, nx, nw, ny, OV, nm;
    int64_t lo_x, hi_x, lo_w, hi_w, lo_y, hi_y;
    int tie_k, tie_m;        /* ties: w multiples of 2^(k-1), M = m/2^k */
    int64_t *acc;            /* [ny] with the bias */
    int64_t *mk;             /* [nm] k of M = m * 2^-k */
    int64_t m;               /* the odd m, one for the tensor */
    iohw_rng rp;             /* the parameters' stream */
    iohw__qdata *d;
} qf;

void iohw__qrange(int32_t t, int64_t *lo, int64_t *hi)
{
    *lo = t == IOHW_U8 ? 0 : t == IOHW_S8 ? -128 : INT32_MIN;
    *hi = t == IOHW_U8 ? 255 : t == IOHW_S8 ? 127 : INT32_MAX;
}

int64_t iohw__qclamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void iohw__qstore8(void *t, int32_t dt, int64_t i, int64_t v)
{
    if (dt == IOHW_S8)
        ((int8_t *)t)[i] = (int8_t)v;
    else
        ((uint8_t *)t)[i] = (uint8_t)v;
}

/* --- 1. zero points ------------------------------------------------- */

static int64_t end_of(iohw_rng *r, int64_t lo, int64_t hi)
{
    return iohw_rng_next(r) >> 63 ? hi : lo;
}

static void zero_points(qf *f)
{
    iohw_quant *q = &f->d->q;
    if (f->kind == IOHW__QFILL_ZP_EXTREME) {
        q->zp_x = (int32_t)end_of(&f->rp, f->lo_x, f->hi_x);
        q->zp_w = (int32_t)end_of(&f->rp, f->lo_w, f->hi_w);
        return;
    }
    /* Inside the type, never 0: a zero point not subtracted must show.
     * Ties keep room for w - zp_w = +-4. */
    const int64_t mx = (f->lo_x + f->hi_x + 1) / 2, mw = (f->lo_w + f->hi_w + 1) / 2;
    q->zp_x = (int32_t)(mx + iohw_rng_range(&f->rp, 1, 40) * (iohw_rng_next(&f->rp) >> 63 ? 1 : -1));
    q->zp_w = (int32_t)(mw + iohw_rng_range(&f->rp, 1, 40) * (iohw_rng_next(&f->rp) >> 63 ? 1 : -1));
}

/* --- 2. x and w -------------------------------------------------------- */

/* d(oc): channel oc's weights are 2^d(oc) smaller (per-channel fills). */
static int channel_shrink(const qf *f, int64_t oc)
{
    if (f->kind != IOHW__QFILL_CHANNELS && f->kind != IOHW__QFILL_GROUP_TRAP)
        return 0;
    return (int)((oc * 3 + oc / 2 + (int64_t)(f->d->q.zp_x & 3)) % 6);
}

static void fill_x(qf *f, uint64_t seed)
{
    iohw_rng r;
    const iohw_quant *q = &f->d->q;
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_X));
    for (int64_t i = 0; i < f->nx; i++) {
        /* ties: x - zp_x in {-2, -1, 1, 2}, so acc's parity is random */
        const int64_t t = iohw_rng_range(&r, -2, 1);
        int64_t v = f->kind == IOHW__QFILL_TIES ? q->zp_x + (t < 0 ? t : t + 1)
                                                : iohw_rng_range(&r, f->lo_x, f->hi_x);
        iohw__qstore8(f->d->x, q->x_dtype, i, iohw__qclamp(v, f->lo_x, f->hi_x));
    }
}

static void fill_w(qf *f, uint64_t seed)
{
    iohw_rng r;
    const iohw_quant *q = &f->d->q;
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_W));
    for (int64_t ci = 0; ci < f->p.in_channels; ci++)
        for (int64_t m = 0; m < f->Mg; m++) {
            const int64_t oc = (ci / f->Cg) * f->Mg + m;
            const int64_t half = 128 >> channel_shrink(f, oc);
            for (int64_t k = 0; k < f->K; k++) {
                int64_t v;
                if (f->kind == IOHW__QFILL_TIES)
                    v = q->zp_w + (iohw_rng_next(&r) >> 63 ? 1 : -1) * ((int64_t)1 << (f->tie_k - 1));
                else if (half < 128)
                    v = q->zp_w + iohw_rng_range(&r, -half, half - 1);
                else
                    v = iohw_rng_range(&r, f->lo_w, f->hi_w);
                iohw__qstore8(f->d->w, q->w_dtype, (ci * f->Mg + m) * f->K + k,
                       iohw__qclamp(v, f->lo_w, f->hi_w));
            }
        }
}

/* --- 3. accumulators and bias ------------------------------------------ */

/* acc without the bias, exactly (the oracle, s32 output). */
static int accumulate(qf *f, iohw_error *err)
{
    iohw_quant q = f->d->q;
    iohw_problem p = f->p;
    int32_t *y = malloc((size_t)f->ny * sizeof *y);
    if (y == NULL)
        return iohw_error_set(err, "quantized fill: out of memory");
    q.y_dtype = IOHW_S32;
    q.zp_y = 0;
    p.has_bias = 0;
    const int rc = iohw_quant_conv_transpose(&p, &q, f->d->x, f->d->w, NULL, y, err);
    for (int64_t i = 0; rc == 0 && i < f->ny; i++)
        f->acc[i] = y[i];
    free(y);
    return rc;
}

static int64_t channel_of(const qf *f, int64_t i)
{
    return (i / f->OV) % f->C_out;
}

/* The smallest and largest acc of channel oc (oc < 0: of all). */
static void acc_range(const qf *f, int64_t oc, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int64_t i = 0; i < f->ny; i++) {
        if (oc >= 0 && channel_of(f, i) != oc)
            continue;
        *lo = f->acc[i] < *lo ? f->acc[i] : *lo;
        *hi = f->acc[i] > *hi ? f->acc[i] : *hi;
    }
    if (*lo > *hi)
        *lo = *hi = 0;
}

static void choose_bias(qf *f, uint64_t seed, int zp_y_low)
{
    iohw_rng r;
    int32_t *b = f->d->bias;
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_BIAS));
    for (int64_t oc = 0; oc < f->C_out; oc++) {
        int64_t lo, hi;
        acc_range(f, oc, &lo, &hi);
        const int64_t a = (hi > -lo ? hi : -lo) / 2;
        if (f->kind == IOHW__QFILL_TIES)
            b[oc] = (int32_t)(iohw_rng_range(&r, -2, 2) * ((int64_t)1 << (f->tie_k - 1)));
        else if (f->kind == IOHW__QFILL_ZP_EXTREME) /* to zp_y's free side */
            b[oc] = (int32_t)iohw__qclamp(zp_y_low ? -lo : -hi, -(1 << 30), 1 << 30);
        else
            b[oc] = (int32_t)iohw__qclamp(iohw_rng_range(&r, -a, a), -(1 << 30), 1 << 30);
    }
    for (int64_t i = 0; i < f->ny; i++)
        f->acc[i] += b[channel_of(f, i)];
}

/* --- 4. M and zp_y ------------------------------------------------------ */

/* The smallest k with m * r * 2^-k <= room (r >= 0, room >= 1). */
static int64_t fit_k(int64_t m, int64_t r, int64_t room)
{
    int64_t k = -12;
    while (k < 40 && ldexp((double)(m * (r > 0 ? r : 1)), (int)-k) > (double)room)
        k++;
    return k;
}

static void choose_m(qf *f)
{
    iohw_quant *q = &f->d->q;
    const int64_t span = f->hi_y - f->lo_y, mid = (f->lo_y + f->hi_y + 1) / 2;
    int64_t lo, hi;
    static const int64_t ODD[4] = {1, 3, 5, 7};

    f->m = ODD[iohw_rng_range(&f->rp, 0, 3)];
    acc_range(f, -1, &lo, &hi);
    switch (f->kind) {
    case IOHW__QFILL_TIES:
        f->m = f->tie_m; /* gemmlowp: M = 1/4, ties and quarter points */
        f->mk[0] = q->rounding == IOHW_ROUND_GEMMLOWP ? 2 : f->tie_k;
        /* odd: a tie then shows zp_y added before rounding (half_even) */
        q->zp_y = (int32_t)(mid + iohw_rng_range(&f->rp, -9, 9)) | 1;
        break;
    case IOHW__QFILL_ZP_EXTREME:
        q->zp_y = (int32_t)(f->d->bias != NULL && hi <= 0 ? f->hi_y
                            : f->d->bias != NULL && lo >= 0 ? f->lo_y
                                                            : end_of(&f->rp, f->lo_y, f->hi_y));
        f->mk[0] = fit_k(f->m, hi > -lo ? hi : -lo, span - 1);
        break;
    case IOHW__QFILL_CHANNELS:
    case IOHW__QFILL_GROUP_TRAP:
        q->zp_y = (int32_t)(mid + iohw_rng_range(&f->rp, -5, 5));
        for (int64_t oc = 0; oc < f->nm; oc++) {
            acc_range(f, oc, &lo, &hi);
            f->mk[oc] = fit_k(f->m, hi > -lo ? hi : -lo, span / 2 - 6);
        }
        break;
    default: { /* unsat, saturate, io-trap: the range onto the type */
        f->mk[0] = fit_k(f->m, hi - lo, span - 1) - (f->kind == IOHW__QFILL_SATURATE ? 2 : 0);
        const double c = ldexp((double)f->m * ((double)hi + (double)lo) / 2.0, (int)-f->mk[0]);
        q->zp_y = (int32_t)iohw__qclamp((int64_t)llround((double)mid - 0.5 - c), f->lo_y, f->hi_y);
    }
    }
    const int own = f->kind == IOHW__QFILL_CHANNELS || f->kind == IOHW__QFILL_GROUP_TRAP;
    for (int64_t j = 1; !own && j < f->nm; j++) /* per channel, the same M */
        f->mk[j] = f->mk[0];
}

/* --- 5. the form of M --------------------------------------------------- */

static void write_m(qf *f)
{
    iohw_quant *q = &f->d->q;
    const int t = f->m == 1 ? 30 : f->m == 3 ? 29 : 28; /* m * 2^t in [2^30, 2^31) */
    const int ax = (int)iohw_rng_range(&f->rp, -9, -5), ay = (int)iohw_rng_range(&f->rp, -6, -2);
    q->s_x = ldexpf(1.0f, ax);
    q->s_y = ldexpf(1.0f, ay);
    for (int64_t j = 0; j < f->nm; j++) {
        /* scales: s_x * s_w / s_y = m * 2^-k */
        f->d->s_w[j] = ldexpf((float)f->m, (int)(ay - ax - f->mk[j]));
        f->d->multiplier[j] = (int32_t)(f->m << t);
        f->d->shift[j] = (int32_t)iohw__qclamp(31 - t - f->mk[j], -31, 30);
    }
    q->s_w = f->d->s_w;
    q->multiplier = f->d->multiplier;
    q->shift = f->d->shift;
}

/* --- the driver ------------------------------------------------------- */

void iohw__qdata_free(iohw__qdata *d)
{
    free(d->s_w);
    free(d->multiplier);
    free(d->shift);
    free(d->x);
    free(d->w);
    free(d->bias);
    memset(d, 0, sizeof *d);
}

static int setup(qf *f, const iohw_problem *p, int kind, const iohw__qwant *want,
                 iohw__qdata *d, iohw_error *err)
{
    memset(f, 0, sizeof *f);
    memset(d, 0, sizeof *d);
    const size_t at = offsetof(iohw_problem, w_dtype);
    f->p = *p; /* float-coded: the oracle reads the parameters from q */
    memset((char *)&f->p + at, 0, IOHW_MEMBER_END(iohw_problem, s_y) - at);
    f->p.dtype = IOHW_F32;
    f->kind = kind;
    f->d = d;
    if (iohw__qfill_name(kind) == NULL)
        return iohw_error_set(err, "quantized fill: unknown kind %d", kind);
    if (iohw_problem_validate(&f->p, err) != 0)
        return iohw_error_prefix(err, "quantized fill %s", NAMES[kind]);
    f->C_out = p->out_channels;
    f->G = p->groups;
    f->Cg = p->in_channels / f->G;
    f->Mg = f->C_out / f->G;
    if (kind == IOHW__QFILL_IO_TRAP && f->Cg * f->G == f->Mg)
        return iohw_error_set(err, "quantized fill qio-trap: needs C_in != C_out/G "
                              "(the problem has C_in = C_out/G = %lld)", (long long)f->Mg);
    if (kind == IOHW__QFILL_GROUP_TRAP && f->G < 2)
        return iohw_error_set(err, "quantized fill qgroup-trap: needs groups > 1");
    f->nx = iohw_problem_x_count(p);
    f->nw = iohw_problem_w_count(p);
    f->ny = iohw_problem_y_count(p);
    f->K = f->nw / (p->in_channels * f->Mg);
    f->OV = f->ny / (p->batch * f->C_out);
    d->q.x_dtype = want->x_dtype;
    d->q.w_dtype = want->w_dtype;
    d->q.y_dtype = want->y_dtype;
    d->q.rounding = want->rounding;
    d->q.m_form = want->rounding == IOHW_ROUND_GEMMLOWP ? IOHW_QM_FIXED : want->m_form;
    d->q.per_channel = kind == IOHW__QFILL_CHANNELS || kind == IOHW__QFILL_GROUP_TRAP
                           ? 1 : want->per_channel != 0;
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
    f->mk = malloc((size_t)f->nm * sizeof *f->mk);
    if (d->x == NULL || d->w == NULL || (p->has_bias && d->bias == NULL) || d->s_w == NULL ||
        d->multiplier == NULL || d->shift == NULL || f->acc == NULL || f->mk == NULL)
        return iohw_error_set(err, "quantized fill %s: out of memory", NAMES[kind]);
    return 0;
}

/* Step 6: the oracle accepts the case. */
static int check_case(const qf *f, iohw_error *err)
{
    const size_t es = f->d->q.y_dtype == IOHW_S32 ? 4 : 1;
    void *y = malloc((size_t)f->ny * es);
    if (y == NULL)
        return iohw_error_set(err, "quantized fill: out of memory");
    const int rc = iohw_quant_conv_transpose(&f->p, &f->d->q, f->d->x, f->d->w,
                                             f->d->bias, y, err);
    free(y);
    return rc != 0 ? iohw_error_prefix(err, "quantized fill %s", NAMES[f->kind]) : 0;
}

int iohw__qfill(const iohw_problem *p, int kind, const iohw__qwant *want,
                uint64_t seed, iohw__qdata *d, iohw_error *err)
{
    qf f;
    int rc = -1;

    if (p == NULL || want == NULL || d == NULL)
        return iohw_error_set(err, "quantized fill: a NULL argument");
    if (kind >= IOHW__QFILL_DEPLOY && kind < IOHW__QFILL_COUNT)
        return iohw__qfill_deploy(p, kind, want, seed, d, err);
    if (setup(&f, p, kind, want, d, err) != 0)
        goto done;
    iohw_rng_seed(&f.rp, iohw__fill_stream_seed(seed, STREAM_PARAMS));
    zero_points(&f);
    f.tie_m = d->q.rounding == IOHW_ROUND_GEMMLOWP ? 1 : (int)(1 + 2 * iohw_rng_range(&f.rp, 0, 1));
    f.tie_k = d->q.rounding == IOHW_ROUND_GEMMLOWP ? 1 : (int)iohw_rng_range(&f.rp, 1, 3);
    fill_x(&f, seed);
    fill_w(&f, seed);
    if (accumulate(&f, err) != 0)
        goto done;
    const int zp_y_low = (int)(iohw_rng_next(&f.rp) >> 63);
    if (d->bias != NULL)
        choose_bias(&f, seed, zp_y_low);
    if (d->q.y_dtype == IOHW_S32) {
        for (int64_t j = 0; j < f.nm; j++)
            f.mk[j] = 0;
        f.m = 1;
    } else {
        choose_m(&f);
    }
    write_m(&f);
    rc = check_case(&f, err);
done:
    free(f.acc);
    free(f.mk);
    if (rc != 0)
        iohw__qdata_free(d);
    return rc;
}
