/*
 * tests/support/quant_hand.c - a hand-written quantized transposed
 * convolution (rank 1, canonical layouts, exact rationals) with the
 * misreadings of specification section 11.5 switched on by knobs, and the
 * checks the quantized diagnosis tests share (tests/test_diagnose_quant*.c).
 */
#include "support/quant_hand.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose.h"
#include "judge/diagnose_quant.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

/* --- the hand-written definition ---------------------------------------- */

static i128 floor_div(i128 a, i128 b) /* b > 0 */
{
    i128 q = a / b;
    return q * b > a ? q - 1 : q;
}

/* R(num / den), den > 0, in a single mode. */
static i128 round_rational(i128 num, i128 den, int32_t mode)
{
    const i128 fl = floor_div(num, den), twice = 2 * (num - fl * den);
    if (twice != den)
        return twice < den ? fl : fl + 1;
    if (mode == IOHW_ROUND_HALF_EVEN)
        return fl % 2 == 0 ? fl : fl + 1;
    if (mode == IOHW_ROUND_HALF_UP)
        return fl + 1;
    return fl >= 0 ? fl + 1 : fl;
}

/* TFLite's MultiplyByQuantizedMultiplier, as specification section 11.3
 * writes it; k.no_nudge drops the nudge of the doubling high multiply,
 * k.plain_shift divides by 2^right with a plain shift. */
static int64_t gemmlowp(int64_t acc, int64_t mult, int sh, knobs k)
{
    const int64_t a = acc * ((int64_t)1 << (sh > 0 ? sh : 0));
    const int right = sh > 0 ? 0 : -sh;
    const int64_t p = a * mult;
    const int64_t nudge = k.no_nudge ? 0 : p >= 0 ? (1 << 30) : 1 - (1 << 30);
    const int64_t h = (p + nudge) / ((int64_t)1 << 31);
    const int64_t mask = ((int64_t)1 << right) - 1;
    if (k.plain_shift)
        return h >> right;
    return (h >> right) + ((h & mask) > (mask >> 1) + (h < 0) ? 1 : 0);
}

/* M[j] as num[j] / den, one den for all j. */
static void m_rational(const iohw_quant *q, int64_t n, i128 *num, i128 *den)
{
    int lowest = 1000;
    int e[64];
    for (int64_t j = 0; j < n; j++) {
        int ex, ey, ew;
        if (q->m_form == IOHW_QM_FIXED) {
            num[j] = q->multiplier[j];
            e[j] = q->shift[j] - 31;
        } else {
            const double mx = ldexp(frexp(q->s_x, &ex), 24);
            const double mw = ldexp(frexp(q->s_w[j], &ew), 24);
            cr_assert_eq(ldexp(frexp(q->s_y, &ey), 24), 8388608.0, "test: s_y a power of two");
            num[j] = (i128)mx * (i128)mw;
            e[j] = ex - 24 + ew - 24 - (ey - 24) - 23;
        }
        lowest = e[j] < lowest ? e[j] : lowest;
    }
    for (int64_t j = 0; j < n; j++)
        num[j] <<= e[j] - lowest;
    cr_assert_leq(-lowest, 120);
    *den = (i128)1 << -lowest;
}

static int64_t ld(int32_t t, const void *v, int64_t i)
{
    return t == IOHW_S8 ? ((const int8_t *)v)[i] : ((const uint8_t *)v)[i];
}

/* y (int64, canonical) of rank-1 problem p with the knobs. */
void hand(const iohw_problem *p, const iohw__qdata *d, knobs k, int64_t *y)
{
    const iohw_quant *q = &d->q;
    const int64_t Ci = p->in_channels, Co = p->out_channels, G = p->groups;
    const int64_t Cg = Ci / G, Mg = Co / G, L = p->in_size[0], K = p->kernel[0];
    const int64_t O = p->out_size[0], nm = q->per_channel ? Co : 1;
    const int64_t zx = k.zp_x_kept ? 0 : q->zp_x, zw = k.zp_w_kept ? 0 : q->zp_w;
    const int32_t mode = k.rounding ? k.rounding : q->rounding;
    i128 num[64], den;
    cr_assert_leq(nm, 64);
    m_rational(q, nm, num, &den);
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t oc = 0; oc < Co; oc++)
            for (int64_t o = 0; o < O; o++) {
                const int64_t g = oc / Mg, m = oc % Mg;
                const int64_t b = d->bias != NULL ? d->bias[oc] : 0;
                int64_t acc = k.bias_after ? 0 : b;
                i128 vnum = (i128)b * num[q->per_channel ? oc : 0];
                for (int64_t c = 0; c < Cg; c++)
                    for (int64_t kk = 0; kk < K; kk++)
                        for (int64_t i = 0; i < L; i++) {
                            if (i * p->stride[0] + kk * p->dilation[0] - p->pad_begin[0] != o)
                                continue;
                            const int64_t ci = g * Cg + c;
                            const int64_t widx = k.io ? (m * Ci + ci) * K + kk : (ci * Mg + m) * K + kk;
                            const int64_t t = (ld(q->x_dtype, d->x, (n * Ci + ci) * L + i) - zx) *
                                              (ld(q->w_dtype, d->w, widx) - zw);
                            acc += t;
                            if (k.axis_i)
                                vnum += (i128)t * num[ci];
                        }
                const i128 mo = num[q->per_channel ? oc : 0];
                i128 r;
                if (k.axis_i)
                    r = q->zp_y + round_rational(vnum, den, mode);
                else if (k.zp_y_first)
                    r = round_rational((i128)q->zp_y * den + acc * mo, den, mode);
                else if (mode == IOHW_ROUND_GEMMLOWP)
                    r = q->zp_y + gemmlowp(acc, q->multiplier[q->per_channel ? oc : 0],
                                           q->shift[q->per_channel ? oc : 0], k);
                else
                    r = q->zp_y + round_rational(acc * mo, den, mode);
                if (k.bias_after)
                    r += b;
                const int64_t lo = q->y_dtype == IOHW_U8 ? 0 : -128, hi = lo + 255;
                int64_t v = (int64_t)r;
                if (k.wrap)
                    v = lo + (((v - lo) % 256) + 256) % 256;
                else
                    v = v < lo ? lo : v > hi ? hi : v;
                y[(n * Co + oc) * O + o] = v;
            }
}

/* --- the checks ----------------------------------------------------------- */

iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

/* The diagnosis of y (int64) on the case, as a sentence. */
int diagnose(const iohw_problem *p, const iohw__qdata *d, const int64_t *y, char *buf)
{
    const int64_t n = iohw_problem_y_count(p);
    int8_t *raw = malloc((size_t)n);
    cr_assert_not_null(raw);
    for (int64_t i = 0; i < n; i++)
        raw[i] = (int8_t)y[i]; /* the byte of an s8 or u8 value */
    iohw__dgq_case c = {.p = *p, .q = d->q, .x = d->x, .w = d->w, .bias = d->bias};
    const int found = iohw__dg_quant(&c, raw, buf, 512);
    free(raw);
    return found;
}

/* Fills the case, computes y by hand with the knobs and expects `name` in
 * the diagnosis; the correct y gets none. */
void expect_named_seed(const char *desc, int kind, iohw__qwant w, knobs k, const char *name,
                              uint64_t seed)
{
    iohw_problem p = problem(desc);
    iohw__qdata d;
    iohw_error err;
    char buf[512];
    const int64_t n = iohw_problem_y_count(&p);
    int64_t *y = malloc((size_t)n * sizeof *y), *good = malloc((size_t)n * sizeof *good);
    knobs none;
    memset(&none, 0, sizeof none);
    cr_assert(y != NULL && good != NULL);
    cr_assert_eq(iohw__qfill(&p, kind, &w, seed, &d, &err), 0, "%s", err.msg);
    hand(&p, &d, none, good);
    hand(&p, &d, k, y);
    cr_expect_eq(diagnose(&p, &d, good, buf), 0, "%s: correct output diagnosed: %s", desc, buf);
    cr_expect_str_empty(buf);
    cr_assert_neq(memcmp(y, good, (size_t)n * sizeof *y), 0, "%s: %s changes nothing", desc,
                  name);
    cr_expect_eq(diagnose(&p, &d, y, buf), 1, "%s: %s not diagnosed", desc, name);
    cr_expect(strstr(buf, name) != NULL, "%s: want \"%s\", got \"%s\"", desc, name, buf);
    cr_expect_geq(iohw_diagnose_find(buf), 0, "%s", buf);
    free(y);
    free(good);
    iohw__qdata_free(&d);
}

void expect_named(const char *desc, int kind, iohw__qwant w, knobs k, const char *name)
{
    expect_named_seed(desc, kind, w, k, name, 7);
}

iohw__qwant want(int32_t t, int32_t rounding, int32_t form)
{
    iohw__qwant w = {t, IOHW_S8, t, rounding, form, 0};
    return w;
}
