/*
 * judge/diagnose_qfixed.c - gemmlowp's fixed-point requantization
 * (specification section 11.3) with one of its own steps done otherwise:
 * the doubling high multiply without its nudge, or the rounding divide by
 * a power of two as a plain shift.  Exact integer arithmetic, as the
 * oracle's gemmlowp mode (oracle/quant.c) but for the one step.
 */
#include "judge/diagnose_qfixed.h"

enum { NO_NUDGE = 1, PLAIN_SHIFT = 2 };

/* zp_y + the misread gemmlowp requantization of acc, saturated to y's
 * type; 0, or -1 when acc * 2^left leaves int32 (the case is invalid). */
static int steps(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int how, int64_t *out)
{
    const iohw_quant *q = c->q;
    const int64_t j = q->per_channel ? oc : 0;
    if (q->m_form != IOHW_QM_FIXED)
        return -1;
    const int64_t mult = q->multiplier[j];
    const int sh = q->shift[j];
    const int left = sh > 0 ? sh : 0, right = sh > 0 ? 0 : -sh;
    const __int128 a = (__int128)acc * ((int64_t)1 << left);
    if (a < INT32_MIN || a > INT32_MAX)
        return -1;
    const int64_t prod = (int64_t)a * mult;
    int64_t nudge = prod >= 0 ? ((int64_t)1 << 30) : 1 - ((int64_t)1 << 30);
    if (how == NO_NUDGE)
        nudge = 0;
    int64_t h = (prod + nudge) / ((int64_t)1 << 31); /* C: toward zero */
    if (h > INT32_MAX) /* a = mult = INT32_MIN cannot occur: mult >= 0 */
        h = INT32_MAX;
    int64_t r;
    if (how == PLAIN_SHIFT) {
        r = h >> right; /* arithmetic shift: floor */
    } else {
        const int64_t mask = ((int64_t)1 << right) - 1;
        const int64_t threshold = (mask >> 1) + (h < 0 ? 1 : 0);
        r = (h >> right) + ((h & mask) > threshold ? 1 : 0);
    }
    const int64_t v = q->zp_y + r;
    const int64_t lo = q->y_dtype == IOHW_U8 ? 0 : q->y_dtype == IOHW_S8 ? -128 : INT32_MIN;
    const int64_t hi = q->y_dtype == IOHW_U8 ? 255 : q->y_dtype == IOHW_S8 ? 127 : INT32_MAX;
    *out = v < lo ? lo : v > hi ? hi : v;
    return 0;
}

int iohw__dgq_no_nudge(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out)
{
    return steps(c, oc, acc, NO_NUDGE, out);
}

int iohw__dgq_plain_shift(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out)
{
    return steps(c, oc, acc, PLAIN_SHIFT, out);
}
