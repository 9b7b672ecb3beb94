/*
 * generators/fill_quant.c - the inputs of a quantized case (specification
 * section 11.4): x, w, bias and the requant values, and the output's zero
 * point and scale (or multipliers) chosen from the accumulator's range.
 *
 * qrandom: x and w uniform over their types' ranges, bias uniform in
 * [-4096, 4096], each from its own stream of the seed; in the scales form
 * s_w[oc] = 2^-e with e in [0, 3] (per channel: drawn per channel, so the
 * channels' M differ by powers of two; per tensor: one).  Then
 * iohw__quant_fit_output chooses the rest from the accumulators, as
 * XNNPACK's deconvolution tester does, so that the outputs span the range
 * of y's type without most of them saturating:
 *   scales: s_y = s_x * 2^j, the smallest j with M[oc] * r[oc] <= 255 for
 *           every channel (r[oc] its accumulators' range), so every M is a
 *           power of two (float implementations are exact, section 11.2,
 *           and ties occur, so the rounding modes differ);
 *   fixed:  multiplier[oc] uniform in [2^30, 2^31 - 1] and the largest
 *           shift with M[oc] * r[oc] <= 255;
 * (per tensor, r and the middle are those of all channels together);
 *   zp_y:   the middle of y's range minus the mean of M[oc] times the
 *           middle of channel oc's accumulators, rounded and clamped.
 * An s32 y takes the accumulators as they are: nothing is chosen.  What the
 * descriptor states (sx, sy, sw, qmul, qshift: specification section 11.4)
 * is kept, and only the rest chosen; a stated multiplier without a stated
 * shift gets the largest shift with M[oc] * r[oc] <= 255.
 */
#include "generators/fill_quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_internal.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

/* Stream tag of the requant values (beyond fill_internal.h's tags). */
#define STREAM_REQUANT 11

/* Output levels a fitted channel spans at most: 2^8 - 1. */
#define LEVELS 255.0

static int64_t type_min(iohw_dtype dt)
{
    return dt == IOHW_S8 ? INT8_MIN : 0;
}

static void fill_bytes(iohw_rng *r, iohw_dtype dt, uint8_t *v, int64_t n)
{
    const int64_t lo = type_min(dt);
    for (int64_t i = 0; i < n; i++) {
        const int64_t q = iohw_rng_range(r, lo, lo + 255);
        v[i] = (uint8_t)(q & 0xFF); /* two's complement for s8 */
    }
}

void iohw__quant_keep_stated(iohw_problem *p, const iohw_desc *stated, void *requant)
{
    const iohw_desc *s = stated;
    if (s == NULL || iohw_problem_y_dtype(p) == IOHW_S32)
        return;
    const int64_t n = iohw_quant_requant_count(p);
    if (p->m_form == IOHW_QM_SCALES) {
        p->s_x = (s->stated & IOHW_STATED_SX) ? s->p.s_x : p->s_x;
        p->s_y = (s->stated & IOHW_STATED_SY) ? s->p.s_y : p->s_y;
        for (int64_t j = 0; j < n && s->n_sw > 0; j++)
            ((float *)requant)[j] = s->sw[s->n_sw == 1 ? 0 : j];
        return;
    }
    int32_t *q = requant;
    for (int64_t j = 0; j < n && s->n_qmul > 0; j++)
        q[j] = s->qmul[s->n_qmul == 1 ? 0 : j];
    for (int64_t j = 0; j < n && s->n_qshift > 0; j++)
        q[n + j] = s->qshift[s->n_qshift == 1 ? 0 : j];
}

int iohw__fill_qrandom(iohw_problem *p, const iohw_desc *stated, uint64_t seed, void *x,
                       void *w, int32_t *bias, void *requant, iohw_error *err)
{
    iohw_rng r;
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_X));
    fill_bytes(&r, p->dtype, x, iohw_problem_x_count(p));
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_W));
    fill_bytes(&r, iohw_problem_w_dtype(p), w, iohw_problem_w_count(p));
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, IOHW__STREAM_BIAS));
    for (int64_t i = 0; i < iohw_problem_bias_count(p); i++)
        bias[i] = (int32_t)iohw_rng_range(&r, -4096, 4096);
    const int64_t n = iohw_quant_requant_count(p);
    iohw_rng_seed(&r, iohw__fill_stream_seed(seed, STREAM_REQUANT));
    if (p->m_form == IOHW_QM_SCALES)
        for (int64_t j = 0; j < n; j++)
            ((float *)requant)[j] = ldexpf(1.0f, -(int)iohw_rng_range(&r, 0, 3));
    iohw__quant_keep_stated(p, stated, requant);
    return iohw__quant_fit_output(p, stated, x, w, bias, requant, &r, err);
}

/* The accumulators' range per output channel: lo[oc], hi[oc]. */
static int acc_ranges(const iohw_problem *p, const void *x, const void *w,
                      const int32_t *bias, int64_t *lo, int64_t *hi,
                      iohw_error *err)
{
    iohw_problem a = *p; /* the same problem with an s32 y: acc itself */
    a.y_dtype = IOHW_S32;
    a.zp_y = a.rounding = a.m_form = a.per_channel = 0;
    a.s_x = a.s_y = 0.0f;
    a.data_layout[0] = '\0';
    iohw_layout_default_data((int)a.rank, a.data_layout);
    const int64_t ny = iohw_problem_y_count(&a);
    int32_t *acc = malloc((size_t)(ny > 0 ? ny : 1) * sizeof *acc);
    if (acc == NULL)
        return iohw_error_set(err, "qrandom: out of memory");
    /* a's data layout is canonical, for y and so for x too. */
    iohw_layout_map xm;
    void *xc = malloc((size_t)iohw_problem_x_count(p) + 1);
    int rc = xc == NULL ? iohw_error_set(err, "qrandom: out of memory")
                        : iohw_layout_data_map(p, 0, &xm, err);
    if (rc == 0) {
        iohw_layout_to_canonical(&xm, 1, x, xc);
        rc = iohw_quant_run(&a, xc, w, bias, NULL, acc, err);
    }
    const int64_t C = p->out_channels, per = ny / (p->batch * C);
    for (int64_t oc = 0; rc == 0 && oc < C; oc++) {
        lo[oc] = INT64_MAX;
        hi[oc] = INT64_MIN;
        for (int64_t b = 0; b < p->batch; b++)
            for (int64_t o = 0; o < per; o++) {
                const int64_t v = acc[(b * C + oc) * per + o];
                lo[oc] = v < lo[oc] ? v : lo[oc];
                hi[oc] = v > hi[oc] ? v : hi[oc];
            }
    }
    free(xc);
    free(acc);
    return rc;
}

/* The largest e with 2^e <= t (t > 0), clamped to [lo, hi]. */
static int floor_log2(double t, int lo, int hi)
{
    const int e = (int)floor(log2(t));
    return e < lo ? lo : e > hi ? hi : e;
}

/* M[oc] as a double (for choosing only; the oracle never uses it). */
static double m_of(const iohw_problem *p, const void *requant, int64_t oc)
{
    const int64_t j = p->per_channel ? oc : 0;
    if (p->m_form == IOHW_QM_SCALES)
        return (double)p->s_x * ((const float *)requant)[j] / p->s_y;
    const int32_t *q = requant;
    const int64_t n = iohw_quant_requant_count(p);
    return ldexp((double)q[j], q[n + j] - 31);
}

/* The fixed form: multipliers and shifts for ranges r[oc]; stated ones
 * (already in requant) kept, a shift chosen for a stated multiplier q as the
 * largest with q * 2^(shift - 31) * r <= LEVELS. */
static void fit_fixed(const iohw_problem *p, const iohw_desc *s, const int64_t *r,
                      void *requant, iohw_rng *rng)
{
    const int64_t n = iohw_quant_requant_count(p);
    const int keep_q = s != NULL && s->n_qmul > 0, keep_sh = s != NULL && s->n_qshift > 0;
    int32_t *q = requant;
    for (int64_t j = 0; j < n; j++) {
        const int32_t drawn = (int32_t)iohw_rng_range(rng, INT64_C(1) << 30, INT32_MAX);
        q[j] = keep_q ? q[j] : drawn;
        if (!keep_sh)
            q[n + j] = keep_q ? floor_log2(ldexp(LEVELS / (double)r[j], 31) / q[j], -31, 30)
                              : floor_log2(LEVELS / (double)r[j], -31, 30);
    }
}

/* The scales form: s_y for ranges r[oc]. */
static void fit_scales(iohw_problem *p, const int64_t *r, const float *s_w)
{
    double worst = 0.0;
    for (int64_t oc = 0; oc < p->out_channels; oc++) {
        const double v = (double)s_w[p->per_channel ? oc : 0] * (double)r[oc];
        worst = v > worst ? v : worst;
    }
    /* s_y = s_x * 2^j with s_w * r / 2^j <= LEVELS. */
    const int j = worst > 0 ? (int)ceil(log2(worst / LEVELS)) : 0;
    const float sy = ldexpf(p->s_x, j);
    p->s_y = isnormal(sy) ? sy : p->s_x;
}

int iohw__quant_fit_output(iohw_problem *p, const iohw_desc *stated, const void *x,
                           const void *w, const int32_t *bias, void *requant, iohw_rng *rng,
                           iohw_error *err)
{
    const int64_t C = p->out_channels;
    if (iohw_problem_y_dtype(p) == IOHW_S32)
        return 0;
    int64_t *lo = malloc((size_t)C * sizeof *lo), *hi = malloc((size_t)C * sizeof *hi);
    int64_t *r = malloc((size_t)C * sizeof *r);
    int rc = lo == NULL || hi == NULL || r == NULL
                 ? iohw_error_set(err, "qrandom: out of memory")
                 : acc_ranges(p, x, w, bias, lo, hi, err);
    if (rc == 0 && !p->per_channel) /* one M: the range of every channel */
        for (int64_t oc = 1; oc < C; oc++) {
            lo[0] = lo[oc] < lo[0] ? lo[oc] : lo[0];
            hi[0] = hi[oc] > hi[0] ? hi[oc] : hi[0];
        }
    if (rc == 0) {
        for (int64_t oc = 0; oc < C; oc++) {
            lo[oc] = p->per_channel ? lo[oc] : lo[0];
            hi[oc] = p->per_channel ? hi[oc] : hi[0];
            r[oc] = hi[oc] - lo[oc] > 0 ? hi[oc] - lo[oc] : 1;
        }
        if (p->m_form == IOHW_QM_FIXED)
            fit_fixed(p, stated, r, requant, rng);
        else if (stated == NULL || !(stated->stated & IOHW_STATED_SY))
            fit_scales(p, r, requant);
        /* zp_y: the middle of y's range minus the mean middle output. */
        const iohw_dtype yd = iohw_problem_y_dtype(p);
        const double qmid = (double)type_min(yd) + LEVELS / 2.0;
        double mid = 0.0;
        for (int64_t oc = 0; oc < C; oc++)
            mid += m_of(p, requant, oc) * ((double)lo[oc] + (double)hi[oc]) / 2.0;
        const double z = nearbyint(qmid - mid / (double)C);
        const double zlo = (double)type_min(yd), zhi = zlo + LEVELS;
        p->zp_y = (int32_t)(z < zlo ? zlo : z > zhi ? zhi : z);
    }
    free(lo);
    free(hi);
    free(r);
    return rc;
}
