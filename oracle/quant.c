/*
 * oracle/quant.c - the definition of the quantized transposed convolution
 * (specification section 11, docs/SPEC.md), on canonical integer tensors.
 *
 * Definition
 * ==========
 *
 *   acc[n, g*Mg + m, o] = bias_q[g*Mg + m]
 *       + sum_{c < Cg} sum_{k} sum_{i : i*S + k*D - P = o}
 *             (x_q[n, g*Cg + c, i] - zp_x) * (w_q[g*Cg + c, m, k] - zp_w)
 *
 *   y_q[n, oc, o] = saturate(zp_y + R(M[oc] * acc[n, oc, o]), qmin, qmax)
 *
 * with oc = g*Mg + m (M per channel runs along O, never along I), the index
 * sets of section 1, and for an s32 y: y_q = saturate(acc, INT32_MIN,
 * INT32_MAX).  acc is exact in int64 (|acc| < 2^50).  R is applied to the
 * exact rational M*acc: in the scales form M = s_x * s_w[oc] / s_y, each
 * binary32 scale split exactly into an integer significand and a power of
 * two; in the fixed form M = q[oc] * 2^(sh[oc] - 31).  The quotient and its
 * remainder are computed in 128-bit integers; no float arithmetic rounds.
 * The gemmlowp mode is TFLite's integer double rounding, step by step.
 *
 * Arguments
 * =========
 *
 *   p     the problem; must pass iohw_problem_validate.  Its layouts and
 *         dtype are not used: every tensor is canonical.
 *   q     the quantization parameters; must pass iohw_quant_validate.
 *   x_q   x_q[N][C_in][L...] of q->x_dtype, dense.
 *   w_q   w_q[C_in][Mg][K...] of q->w_dtype, dense (I spans all C_in).
 *   bias_q bias_q[C_out] when p->has_bias, else ignored (may be NULL).
 *   y_q   y_q[N][C_out][O...] of q->y_dtype; overwritten.
 *   err   receives the reason of a failure; may be NULL.
 */
#include "oracle/quant.h"

#include <math.h>
#include <stdlib.h>

#include "oracle/index.h"
#include "oracle/problem.h"

typedef __int128 i128;

/* Any |R| at least this saturates every dtype's zp_y + R. */
#define CLAMP ((int64_t)1 << 40)

/* The range of an element type; 0, or -1 for an unknown type. */
static int type_range(int32_t t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case IOHW_S8: *lo = INT8_MIN; *hi = INT8_MAX; return 0;
    case IOHW_U8: *lo = 0; *hi = UINT8_MAX; return 0;
    case IOHW_S32: *lo = INT32_MIN; *hi = INT32_MAX; return 0;
    default: return -1;
    }
}

static int check_zero_point(const char *name, int32_t zp, int32_t t,
                            iohw_error *err)
{
    int64_t lo = 0, hi = 0;
    type_range(t, &lo, &hi);
    if (zp < lo || zp > hi)
        return iohw_error_set(err, "quant: %s = %d is outside its dtype's range "
                              "[%lld, %lld]", name, (int)zp, (long long)lo,
                              (long long)hi);
    return 0;
}

static int check_scale(const char *name, int64_t j, float s, iohw_error *err)
{
    if (!(isnormal(s) && s > 0.0f))
        return iohw_error_set(err, "quant: %s[%lld] = %g must be a positive "
                              "normal binary32 number", name, (long long)j,
                              (double)s);
    return 0;
}

/* The arrays of M: s_w, or multiplier and shift. */
static int check_m(const iohw_quant *q, int64_t nm, iohw_error *err)
{
    if (q->m_form == IOHW_QM_SCALES) {
        if (q->s_w == NULL)
            return iohw_error_set(err, "quant: s_w is NULL (scales form)");
        for (int64_t j = 0; j < nm; j++)
            if (check_scale("s_w", j, q->s_w[j], err) != 0)
                return -1;
        return 0;
    }
    if (q->multiplier == NULL)
        return iohw_error_set(err, "quant: multiplier is NULL (fixed form)");
    if (q->shift == NULL)
        return iohw_error_set(err, "quant: shift is NULL (fixed form)");
    for (int64_t j = 0; j < nm; j++) {
        if (q->multiplier[j] < 0)
            return iohw_error_set(err, "quant: multiplier[%lld] = %d is "
                                  "negative", (long long)j, (int)q->multiplier[j]);
        if (q->shift[j] < -31 || q->shift[j] > 30)
            return iohw_error_set(err, "quant: shift[%lld] = %d is outside "
                                  "[-31, 30]", (long long)j, (int)q->shift[j]);
    }
    return 0;
}

int iohw_quant_validate_params(const iohw_quant *q, iohw_error *err)
{
    int64_t lo, hi;
    if (q == NULL)
        return iohw_error_set(err, "quant: parameters q are NULL");
    if (q->x_dtype != IOHW_S8 && q->x_dtype != IOHW_U8)
        return iohw_error_set(err, "quant: x_dtype = %d, must be s8 (%d) or "
                              "u8 (%d)", (int)q->x_dtype, IOHW_S8, IOHW_U8);
    if (q->w_dtype != IOHW_S8 && q->w_dtype != IOHW_U8)
        return iohw_error_set(err, "quant: w_dtype = %d, must be s8 (%d) or "
                              "u8 (%d)", (int)q->w_dtype, IOHW_S8, IOHW_U8);
    if (type_range(q->y_dtype, &lo, &hi) != 0)
        return iohw_error_set(err, "quant: y_dtype = %d, must be s8 (%d), u8 "
                              "(%d) or s32 (%d)", (int)q->y_dtype, IOHW_S8,
                              IOHW_U8, IOHW_S32);
    if (check_zero_point("zp_x", q->zp_x, q->x_dtype, err) != 0
        || check_zero_point("zp_w", q->zp_w, q->w_dtype, err) != 0)
        return -1;
    if (q->y_dtype == IOHW_S32)
        return q->zp_y == 0 ? 0 : iohw_error_set(err, "quant: zp_y = %d, must "
                                                 "be 0 for an s32 y", (int)q->zp_y);
    if (check_zero_point("zp_y", q->zp_y, q->y_dtype, err) != 0)
        return -1;
    if (q->rounding < IOHW_ROUND_HALF_EVEN || q->rounding > IOHW_ROUND_GEMMLOWP)
        return iohw_error_set(err, "quant: rounding = %d, must be half_even, "
                              "half_away, half_up or gemmlowp (1 to 4)",
                              (int)q->rounding);
    if (q->m_form != IOHW_QM_SCALES && q->m_form != IOHW_QM_FIXED)
        return iohw_error_set(err, "quant: m_form = %d, must be scales (%d) or "
                              "fixed (%d)", (int)q->m_form, IOHW_QM_SCALES,
                              IOHW_QM_FIXED);
    if (q->rounding == IOHW_ROUND_GEMMLOWP && q->m_form != IOHW_QM_FIXED)
        return iohw_error_set(err, "quant: the gemmlowp rounding needs the "
                              "fixed form of M (multiplier and shift)");
    if (q->per_channel != 0 && q->per_channel != 1)
        return iohw_error_set(err, "quant: per_channel = %d, must be 0 or 1",
                              (int)q->per_channel);
    if (q->m_form == IOHW_QM_SCALES
        && (check_scale("s_x", 0, q->s_x, err) != 0
            || check_scale("s_y", 0, q->s_y, err) != 0))
        return -1;
    return 0;
}

int iohw_quant_validate(const iohw_problem *p, const iohw_quant *q,
                        iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "quant: problem p is NULL");
    if (iohw_quant_validate_params(q, err) != 0)
        return -1;
    if (q->y_dtype == IOHW_S32) /* no requantization: no M */
        return 0;
    return check_m(q, q->per_channel ? p->out_channels : 1, err);
}

/* R(num / den) for den > 0, exactly: floor, then the remainder against
 * half of den decides. */
static i128 round_ratio(i128 num, i128 den, int32_t mode)
{
    i128 fl = num / den, rem = num % den;
    if (rem < 0) {
        fl -= 1;
        rem += den;
    }
    /* num/den = fl + rem/den with 0 <= rem < den. */
    if (2 * rem < den)
        return fl;
    if (2 * rem > den)
        return fl + 1;
    switch (mode) { /* a tie: fl + 1/2 */
    case IOHW_ROUND_HALF_EVEN: return (fl % 2 == 0) ? fl : fl + 1;
    case IOHW_ROUND_HALF_UP: return fl + 1;
    default: return (fl >= 0) ? fl + 1 : fl; /* half_away */
    }
}

static int64_t clamp_r(i128 r)
{
    return r > CLAMP ? CLAMP : r < -CLAMP ? -CLAMP : (int64_t)r;
}

/* s = m * 2^e exactly, m an integer in [2^23, 2^24). */
static void split_scale(float s, int64_t *m, int *e)
{
    int ex;
    const float fr = frexpf(s, &ex);
    *m = (int64_t)ldexpf(fr, 24);
    *e = ex - 24;
}

/* R(acc * s_x * s_w / s_y) = R(acc*mx*mw * 2^E / my), E = ex + ew - ey. */
static int64_t round_scales(const iohw_quant *q, int64_t j, int64_t acc)
{
    int64_t mx, mw, my;
    int ex, ew, ey;
    split_scale(q->s_x, &mx, &ex);
    split_scale(q->s_w[j], &mw, &ew);
    split_scale(q->s_y, &my, &ey);
    const int E = ex + ew - ey;
    const i128 num = (i128)acc * mx * mw; /* |num| < 2^98 */
    if (num == 0)
        return 0;
    if (E > 20) /* |v| >= 2^46 * 2^E / 2^24 > 2^40 */
        return num > 0 ? CLAMP : -CLAMP;
    if (E >= 0)
        return clamp_r(round_ratio(num * ((i128)1 << E), my, q->rounding));
    if (E < -100) /* |v| < 2^98 / 2^123: R(v) = 0 in every mode */
        return 0;
    return clamp_r(round_ratio(num, (i128)my << -E, q->rounding));
}

/* TFLite's MultiplyByQuantizedMultiplier (double rounding) on int32 a. */
static int64_t gemmlowp(int64_t a, int64_t mult, int right)
{
    int64_t h;
    if (a == INT32_MIN && mult == INT32_MIN) {
        h = INT32_MAX;
    } else { /* SaturatingRoundingDoublingHighMul */
        const int64_t prod = a * mult;
        const int64_t nudge = prod >= 0 ? ((int64_t)1 << 30) : 1 - ((int64_t)1 << 30);
        h = (prod + nudge) / ((int64_t)1 << 31); /* C: toward zero */
    }
    /* RoundingDivideByPOT(h, right), h an int32 in two's complement. */
    const int64_t mask = ((int64_t)1 << right) - 1;
    const int64_t rem = h & mask;
    const int64_t threshold = (mask >> 1) + (h < 0 ? 1 : 0);
    return (h >> right) + (rem > threshold ? 1 : 0);
}

int iohw_quant_requantize(const iohw_quant *q, int64_t oc, int64_t acc,
                          int64_t *r, iohw_error *err)
{
    const int64_t j = q->per_channel ? oc : 0;
    if (q->m_form == IOHW_QM_SCALES) {
        *r = round_scales(q, j, acc);
        return 0;
    }
    const int64_t mult = q->multiplier[j];
    const int sh = q->shift[j];
    if (q->rounding != IOHW_ROUND_GEMMLOWP) { /* acc * mult / 2^(31 - sh) */
        *r = clamp_r(round_ratio((i128)acc * mult, (i128)1 << (31 - sh),
                                 q->rounding));
        return 0;
    }
    const int left = sh > 0 ? sh : 0, right = sh > 0 ? 0 : -sh;
    const i128 a = (i128)acc * ((int64_t)1 << left);
    if (a < INT32_MIN || a > INT32_MAX)
        return iohw_error_set(err, "quant: acc * 2^%d = %lld * 2^%d leaves "
                              "int32 (channel %lld, gemmlowp rounding): the "
                              "case is invalid", left, (long long)acc, left,
                              (long long)oc);
    *r = gemmlowp((int64_t)a, mult, right);
    return 0;
}

static int64_t load(const void *t, int32_t dtype, int64_t idx)
{
    return dtype == IOHW_S8 ? ((const int8_t *)t)[idx]
                             : ((const uint8_t *)t)[idx];
}

/* y_q[idx] := saturate(zp_y + r) in y's dtype (s32: r is acc). */
static void store(const iohw_quant *q, void *y, int64_t idx, int64_t r)
{
    int64_t lo = 0, hi = 0;
    type_range(q->y_dtype, &lo, &hi);
    int64_t v = q->zp_y + r;
    v = v < lo ? lo : v > hi ? hi : v;
    if (q->y_dtype == IOHW_S8)
        ((int8_t *)y)[idx] = (int8_t)v;
    else if (q->y_dtype == IOHW_U8)
        ((uint8_t *)y)[idx] = (uint8_t)v;
    else
        ((int32_t *)y)[idx] = (int32_t)v;
}

static int quant_check(const iohw_problem *p, const iohw_quant *q,
                       const void *x_q, const void *w_q,
                       const int32_t *bias_q, const void *y_q, iohw_error *err)
{
    if (p == NULL)
        return iohw_error_set(err, "quant_conv_transpose: problem p is NULL");
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "quant_conv_transpose: problem p");
    if (iohw_quant_validate(p, q, err) != 0)
        return iohw_error_prefix(err, "quant_conv_transpose");
    if (x_q == NULL)
        return iohw_error_set(err, "quant_conv_transpose: x_q is NULL");
    if (w_q == NULL)
        return iohw_error_set(err, "quant_conv_transpose: w_q is NULL");
    if (p->has_bias && bias_q == NULL)
        return iohw_error_set(err, "quant_conv_transpose: bias_q is NULL but "
                              "the problem has a bias");
    if (y_q == NULL)
        return iohw_error_set(err, "quant_conv_transpose: y_q is NULL");
    return 0;
}

/* acc[o] := bias_q[oc] (or 0) + the terms of (n, oc = g*Mg + m), for
 * every spatial output o of the plane. */
static void plane(const iohw_problem *p, const iohw_quant *q, const iohw__extents *e,
                  const void *x_q, const void *w_q, const int32_t *bias_q, int64_t n,
                  int64_t g, int64_t m, int64_t *acc)
{
    const int64_t oc = g * e->Mg + m;

    /* Form acc := bias_q (or 0). */
    for (int64_t o = 0; o < e->OV; o++)
        acc[o] = p->has_bias ? bias_q[oc] : 0;

    /* Form acc := acc + (x_q - zp_x) * (w_q - zp_w). */
    for (int64_t c = 0; c < e->Cg; c++) {
        const int64_t ci = g * e->Cg + c;
        const int64_t xo = (n * e->C_in + ci) * e->LV;
        const int64_t wo = (ci * e->Mg + m) * e->KV;
        for (int64_t k = 0; k < e->KV; k++) {
            const int64_t wv = load(w_q, q->w_dtype, wo + k) - q->zp_w;
            for (int64_t i = 0; i < e->LV; i++) {
                const int64_t o = iohw__out_position(p, k, i);
                if (o < 0)
                    continue;
                acc[o] += (load(x_q, q->x_dtype, xo + i) - q->zp_x) * wv;
            }
        }
    }
}

int iohw_quant_accumulate(const iohw_problem *p, const iohw_quant *q, const void *x_q,
                          const void *w_q, const int32_t *bias_q, int64_t *acc,
                          iohw_error *err)
{
    iohw_quant q32;
    if (q == NULL)
        return iohw_error_set(err, "quant_accumulate: parameters q are NULL");
    /* Only the dtypes and zp_x, zp_w are read: checked as for an s32 y. */
    q32 = *q;
    q32.y_dtype = IOHW_S32;
    q32.zp_y = 0;
    if (quant_check(p, &q32, x_q, w_q, bias_q, acc, err) != 0)
        return iohw_error_prefix(err, "quant_accumulate");
    const iohw__extents e = iohw__extents_of(p);
    for (int64_t n = 0; n < e.N; n++)
        for (int64_t g = 0; g < e.G; g++)
            for (int64_t m = 0; m < e.Mg; m++)
                plane(p, &q32, &e, x_q, w_q, bias_q, n, g, m,
                      acc + (n * e.C_out + g * e.Mg + m) * e.OV);
    return 0;
}

int iohw_quant_conv_transpose(const iohw_problem *p, const iohw_quant *q,
                              const void *x_q, const void *w_q,
                              const int32_t *bias_q, void *y_q,
                              iohw_error *err)
{
    /* Test the input arguments. */
    if (quant_check(p, q, x_q, w_q, bias_q, y_q, err) != 0)
        return -1;

    /* Name the extents: N, C_in, C_out, G, Cg = C_in/G, Mg = C_out/G, and
     * the counts LV of input positions i, KV of taps k, OV of outputs o. */
    const iohw__extents e = iohw__extents_of(p);
    const int64_t N = e.N, C_out = e.C_out, G = e.G, Mg = e.Mg, OV = e.OV;

    /* The accumulators of one output plane. */
    int64_t *acc = malloc((size_t)OV * sizeof *acc);
    if (acc == NULL)
        return iohw_error_set(err, "quant_conv_transpose: out of memory (an "
                              "output plane of %lld elements)", (long long)OV);

    for (int64_t n = 0; n < N; n++) {
        for (int64_t g = 0; g < G; g++) {
            for (int64_t m = 0; m < Mg; m++) {
                const int64_t oc = g * Mg + m;
                const int64_t yo = (n * C_out + oc) * OV;
                plane(p, q, &e, x_q, w_q, bias_q, n, g, m, acc);

                /* y_q := saturate(zp_y + R(M[oc] * acc)) (s32: acc). */
                for (int64_t o = 0; o < OV; o++) {
                    int64_t r = acc[o];
                    if (q->y_dtype != IOHW_S32
                        && iohw_quant_requantize(q, oc, acc[o], &r, err) != 0) {
                        free(acc);
                        return iohw_error_prefix(err, "quant_conv_transpose: "
                                                 "y[%lld]", (long long)(yo + o));
                    }
                    store(q, y_q, yo + o, r);
                }
            }
        }
    }
    free(acc);
    return 0;
}
