/*
 * judge/diagnose_qdeploy.c - the misreadings of judge/diagnose_qdeploy.h:
 * a requantization in binary32, an int32 accumulator that wraps, a
 * positive (left) shift of the fixed form ignored (specification sections
 * 11.1 and 11.2).  Each is exact: the float steps are those of a binary32
 * kernel (volatile, so no wider evaluation or contraction), the
 * accumulators come from iohw_quant_accumulate, the rounding from
 * iohw_quant_requantize.
 */
#include "judge/diagnose_qdeploy.h"

#include <math.h>

#include "oracle/quant.h"

/* v stored in y's type, saturated. */
static int64_t saturate(int32_t t, int64_t v)
{
    const int64_t lo = t == IOHW_S8 ? -128 : t == IOHW_U8 ? 0 : INT32_MIN;
    const int64_t hi = t == IOHW_S8 ? 127 : t == IOHW_U8 ? 255 : INT32_MAX;
    return v < lo ? lo : v > hi ? hi : v;
}

int iohw__dgq_f32_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out)
{
    const iohw_quant *q = c->q;
    const int64_t j = q->per_channel ? oc : 0;
    volatile float m, v, r;
    if (q->y_dtype == IOHW_S32)
        return -1;
    if (q->m_form == IOHW_QM_SCALES) {
        volatile float prod = q->s_x * q->s_w[j];
        m = prod / q->s_y;
    } else {
        m = ldexpf((float)q->multiplier[j], (int)q->shift[j] - 31);
    }
    v = (float)acc * m;
    if (q->rounding == IOHW_ROUND_HALF_EVEN) {
        r = rintf(v);
    } else if (q->rounding == IOHW_ROUND_HALF_UP) {
        volatile float h = v + 0.5f;
        r = floorf(h);
    } else {
        r = roundf(v);
    }
    if (!(fabsf(r) < 1e12f)) /* saturates every type */
        r = r > 0 ? 1e12f : -1e12f;
    *out = saturate(q->y_dtype, q->zp_y + (int64_t)r);
    return 0;
}

int iohw__dgq_wrap_acc(const iohw__dgq_canon *c, int64_t *acc)
{
    if (iohw_quant_accumulate(c->p, c->q, c->x, c->w, c->bias, acc, NULL) != 0)
        return -1;
    for (int64_t i = 0; i < c->ny; i++)
        acc[i] = (int32_t)(uint32_t)((uint64_t)acc[i] & 0xffffffffu);
    return 0;
}

int iohw__dgq_shift_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out)
{
    const iohw_quant *q = c->q;
    const int64_t j = q->per_channel ? oc : 0;
    iohw_quant one = *q;
    int64_t r;
    if (q->y_dtype == IOHW_S32 || q->m_form != IOHW_QM_FIXED)
        return -1;
    const int32_t sh = q->shift[j] > 0 ? 0 : q->shift[j];
    one.per_channel = 0;
    one.multiplier = &q->multiplier[j];
    one.shift = &sh;
    if (iohw_quant_requantize(&one, 0, acc, &r, NULL) != 0)
        return -1;
    *out = saturate(q->y_dtype, q->zp_y + r);
    return 0;
}

int iohw__dgq_has_left_shift(const iohw_quant *q, int64_t n)
{
    if (q->y_dtype == IOHW_S32 || q->m_form != IOHW_QM_FIXED || q->shift == NULL)
        return 0;
    for (int64_t j = 0; j < n; j++)
        if (q->shift[j] > 0)
            return 1;
    return 0;
}

int iohw__dgq_f32_distinct(const iohw_quant *q, int64_t n)
{
    if (q->y_dtype == IOHW_S32)
        return 0;
    if (q->rounding != IOHW_ROUND_GEMMLOWP)
        return 1;
    for (int64_t j = 0; j < n; j++) { /* a multiplier binary32 rounds */
        const float m = (float)q->multiplier[j];
        if ((int64_t)m != q->multiplier[j])
            return 1;
    }
    return 0;
}
