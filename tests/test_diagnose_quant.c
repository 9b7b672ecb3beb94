/*
 * tests/test_diagnose_quant.c - the quantized diagnoses
 * (judge/diagnose_quant.c): an output computed by this file's own
 * hand-written quantized transposed convolution (rank 1, canonical
 * layouts, exact rationals), with one misreading switched on, is named by
 * that misreading; the correct output gets no diagnosis.  The data come
 * from the designed fills (generators/fill_qdesign.h), chosen so that each
 * misreading changes the output.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "judge/diagnose.h"
#include "judge/diagnose_bwd.h"
#include "judge/diagnose_quant.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

typedef __int128 i128;

typedef struct knobs {
    int zp_x_kept, zp_w_kept, io, bias_after, zp_y_first, axis_i, wrap;
    int32_t rounding; /* 0: the case's */
    int no_nudge, plain_shift; /* gemmlowp's own steps, done otherwise */
} knobs;

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
static void hand(const iohw_problem *p, const iohw__qdata *d, knobs k, int64_t *y)
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

static iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

/* The diagnosis of y (int64) on the case, as a sentence. */
static int diagnose(const iohw_problem *p, const iohw__qdata *d, const int64_t *y, char *buf)
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
static void expect_named_seed(const char *desc, int kind, iohw__qwant w, knobs k, const char *name,
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

static void expect_named(const char *desc, int kind, iohw__qwant w, knobs k, const char *name)
{
    expect_named_seed(desc, kind, w, k, name, 7);
}

static iohw__qwant want(int32_t t, int32_t rounding, int32_t form)
{
    iohw__qwant w = {t, IOHW_S8, t, rounding, form, 0};
    return w;
}

#define P1 "n=2 ci=2 co=4 in=6 k=3 s=2 pad=1:0 bias=1"
#define P2 "ci=4 co=6 g=2 in=5 k=2 d=2 op=1 bias=1"

Test(diagnose_quant, zero_points_not_subtracted_are_named)
{
    knobs k = {0};
    k.zp_x_kept = 1;
    expect_named(P1, IOHW__QFILL_UNSAT, want(IOHW_U8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES), k,
                 "x's zero point not subtracted");
    memset(&k, 0, sizeof k);
    k.zp_w_kept = 1;
    expect_named(P2, IOHW__QFILL_UNSAT, want(IOHW_S8, IOHW_ROUND_HALF_UP, IOHW_QM_FIXED), k,
                 "w's zero point not subtracted");
    k.zp_x_kept = 1;
    expect_named(P1, IOHW__QFILL_ZP_EXTREME, want(IOHW_S8, IOHW_ROUND_HALF_AWAY, IOHW_QM_SCALES), k,
                 "zero points of x and w not subtracted");
}

/* The name a rounding misreading gets on the case (specification section
 * 11.5): its own, or its group's common name when another member of the
 * group gives the same output (computed here by hand): another mode, or
 * zp_y added before rounding; where gemmlowp is asked, its doubling high
 * multiply without the nudge equals one rounding half away from zero
 * (shift -1 here: the truncated high half, then gemmlowp's rounding
 * divide, is floor(x/2^31 + 1/2) above zero and its mirror below). */
static const char *rounding_name(const iohw_problem *p, const iohw__qdata *d, int32_t asked,
                                 int32_t used, const int64_t *y, char *name)
{
    static const char *const DESC[5] = {"", "ties rounded to even",
                                        "ties rounded half away from zero",
                                        "ties rounded half up", "gemmlowp's double rounding"};
    static const char *const ASKED[5] = {"", "half_even", "half_away", "half_up", "gemmlowp"};
    const int64_t n = iohw_problem_y_count(p);
    int64_t *other = malloc((size_t)n * sizeof *other);
    int same = asked == IOHW_ROUND_GEMMLOWP && used == IOHW_ROUND_HALF_AWAY;
    cr_assert_not_null(other);
    for (int32_t r = IOHW_ROUND_HALF_EVEN; r <= IOHW_ROUND_GEMMLOWP + 1 && !same; r++) {
        knobs k = {0};
        if (r == asked || r == used)
            continue;
        if (r == IOHW_ROUND_GEMMLOWP + 1) { /* zp_y added before rounding */
            if (d->q.zp_y == 0 || asked == IOHW_ROUND_HALF_UP || asked == IOHW_ROUND_GEMMLOWP)
                continue;
            k.zp_y_first = 1;
        } else {
            if (r == IOHW_ROUND_GEMMLOWP && d->q.m_form != IOHW_QM_FIXED)
                continue;
            k.rounding = r;
        }
        hand(p, d, k, other);
        same = memcmp(other, y, (size_t)n * sizeof *y) == 0;
    }
    free(other);
    if (!same)
        snprintf(name, 128, "matches the oracle with %s where %s was asked", DESC[used],
                 ASKED[asked]);
    else if (asked == IOHW_ROUND_GEMMLOWP)
        snprintf(name, 128, "matches the oracle with rounding inside the fixed-point multiply "
                 "differs from gemmlowp's");
    else
        snprintf(name, 128, "matches the oracle with ties rounded in another mode where %s was "
                 "asked", ASKED[asked]);
    return name;
}

Test(diagnose_quant, every_other_rounding_is_named_with_the_mode_asked)
{
    for (int32_t asked = IOHW_ROUND_HALF_EVEN; asked <= IOHW_ROUND_GEMMLOWP; asked++)
        for (int32_t used = IOHW_ROUND_HALF_EVEN; used <= IOHW_ROUND_GEMMLOWP; used++) {
            char name[128];
            knobs k = {0};
            if (used == asked)
                continue;
            k.rounding = used;
            /* gemmlowp on either side needs the fixed form; its ties
             * fill (M = 1/4) separates it from every single mode */
            const int fixed = asked == IOHW_ROUND_GEMMLOWP || used == IOHW_ROUND_GEMMLOWP;
            iohw__qwant w = want(IOHW_S8, used == IOHW_ROUND_GEMMLOWP ? used : asked,
                                 fixed ? IOHW_QM_FIXED : IOHW_QM_SCALES);
            iohw_problem p = problem(P1);
            iohw__qdata d;
            iohw_error err;
            cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, 3, &d, &err), 0, "%s", err.msg);
            d.q.rounding = asked;
            int64_t y[2 * 4 * 12], good[2 * 4 * 12];
            char buf[512];
            knobs none = {0};
            cr_assert_eq(iohw_problem_y_count(&p), 2 * 4 * 12);
            hand(&p, &d, none, good);
            hand(&p, &d, k, y);
            cr_assert_neq(memcmp(y, good, sizeof y), 0, "%d for %d changes nothing", used, asked);
            cr_expect_eq(diagnose(&p, &d, good, buf), 0, "%s", buf);
            rounding_name(&p, &d, asked, used, y, name);
            cr_expect_eq(diagnose(&p, &d, y, buf), 1, "%s not diagnosed", name);
            cr_expect_str_eq(buf, name);
            cr_expect_geq(iohw_diagnose_find(buf), 0, "%s", buf);
            iohw__qdata_free(&d);
        }
}

Test(diagnose_quant, zp_y_before_rounding_is_named)
{
    knobs k = {0};
    k.zp_y_first = 1;
    /* a ties fill with an odd zp_y (half_even then differs at ties) */
    iohw_problem p = problem(P1);
    iohw__qdata d;
    iohw_error err;
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES);
    uint64_t seed = 0;
    for (;; seed++) {
        cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, seed, &d, &err), 0, "%s", err.msg);
        const int odd = d.q.zp_y % 2 != 0;
        iohw__qdata_free(&d);
        if (odd)
            break;
    }
    expect_named_seed(P1, IOHW__QFILL_TIES, w, k, "zp_y added before rounding", seed);
}

Test(diagnose_quant, per_channel_scales_along_i_are_named)
{
    knobs k = {0};
    k.axis_i = 1;
    expect_named(P1, IOHW__QFILL_CHANNELS, want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES), k,
                 "per-channel scales applied along I");
    expect_named(P2, IOHW__QFILL_GROUP_TRAP, want(IOHW_U8, IOHW_ROUND_HALF_UP, IOHW_QM_FIXED), k,
                 "per-channel scales applied along I");
}

Test(diagnose_quant, no_saturation_is_named)
{
    knobs k = {0};
    k.wrap = 1;
    expect_named(P1, IOHW__QFILL_SATURATE, want(IOHW_U8, IOHW_ROUND_HALF_AWAY, IOHW_QM_SCALES), k,
                 "no saturation (wrapped around)");
    expect_named(P2, IOHW__QFILL_SATURATE, want(IOHW_S8, IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED), k,
                 "no saturation (wrapped around)");
}

/* Elements of y (the type's limits lo, hi) that differ from good, and of
 * those, the ones inside the limits. */
static int64_t inside_diff(const int64_t *y, const int64_t *good, int64_t n, int64_t lo,
                           int64_t hi, int64_t *differ)
{
    int64_t in = 0;
    *differ = 0;
    for (int64_t i = 0; i < n; i++) {
        *differ += y[i] != good[i];
        in += y[i] != good[i] && y[i] > lo && y[i] < hi;
    }
    return in;
}

/* The bias added to the output is named where it leaves an element inside
 * the limits that differs; the seed is the first whose output (by hand)
 * has one. */
Test(diagnose_quant, bias_after_requantization_is_named)
{
    knobs k = {0}, none = {0};
    k.bias_after = 1;
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_FIXED);
    iohw_problem p = problem(P2);
    const int64_t n = iohw_problem_y_count(&p);
    int64_t *y = malloc((size_t)n * sizeof *y), *good = malloc((size_t)n * sizeof *good);
    int64_t differ = 0;
    uint64_t seed = 0;
    cr_assert(y != NULL && good != NULL);
    for (;; seed++) {
        iohw__qdata d;
        iohw_error err;
        cr_assert_lt(seed, 200, "no seed leaves a differing element inside the limits");
        cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_UNSAT, &w, seed, &d, &err), 0, "%s", err.msg);
        hand(&p, &d, none, good);
        hand(&p, &d, k, y);
        const int64_t in = inside_diff(y, good, n, -128, 127, &differ);
        iohw__qdata_free(&d);
        if (in > 0)
            break;
    }
    free(y);
    free(good);
    expect_named_seed(P2, IOHW__QFILL_UNSAT, w, k, "bias added after the requantization", seed);
}

/* Specification section 11.5: an output saturated everywhere it differs,
 * at both limits, carries no trace (every misreading that overflows both
 * ways saturates alike): the bias added after the requantization on the
 * case of seed 7, where (by hand) every element is at -128 or 127, with a
 * handful of elements put back to the oracle's unsaturated values, is
 * named by nothing. */
Test(diagnose_quant, saturated_everywhere_but_a_handful_gets_no_diagnosis)
{
    knobs k = {0}, none = {0};
    k.bias_after = 1;
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_FIXED);
    iohw_problem p = problem(P2);
    iohw__qdata d;
    iohw_error err;
    char buf[512];
    const int64_t n = iohw_problem_y_count(&p);
    int64_t *y = malloc((size_t)n * sizeof *y), *good = malloc((size_t)n * sizeof *good);
    int64_t differ, lo = 0, hi = 0;
    cr_assert(y != NULL && good != NULL);
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_UNSAT, &w, 7, &d, &err), 0, "%s", err.msg);
    hand(&p, &d, none, good);
    hand(&p, &d, k, y);
    cr_assert_eq(inside_diff(y, good, n, -128, 127, &differ), 0, "an element inside the limits");
    cr_expect_eq(diagnose(&p, &d, y, buf), 0, "saturated at both limits, diagnosed: %s", buf);
    for (int64_t i = 0, back = 0; i < n && back < 3; i++)
        if (good[i] > -128 && good[i] < 127) {
            y[i] = good[i];
            back++;
        }
    for (int64_t i = 0; i < n; i++) {
        lo += y[i] == -128;
        hi += y[i] == 127;
    }
    cr_assert(differ > 1 && lo > 0 && hi > 0 && lo + hi < n, "differ %lld, at -128 %lld, "
              "at 127 %lld of %lld", (long long)differ, (long long)lo, (long long)hi,
              (long long)n);
    cr_expect_eq(diagnose(&p, &d, y, buf), 0, "diagnosed: %s", buf);
    cr_expect_str_empty(buf);
    free(y);
    free(good);
    iohw__qdata_free(&d);
}

Test(diagnose_quant, weight_i_and_o_exchanged_is_named)
{
    knobs k = {0};
    k.io = 1;
    expect_named(P1, IOHW__QFILL_IO_TRAP, want(IOHW_U8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES), k,
                 "quantized weight read with I and O exchanged");
    expect_named("ci=3 co=6 g=3 in=4 k=3 s=2 bias=1", IOHW__QFILL_IO_TRAP,
                 want(IOHW_S8, IOHW_ROUND_HALF_UP, IOHW_QM_FIXED), k,
                 "quantized weight read with I and O exchanged");
}

/* A constant output saturated at 255 differs from the oracle everywhere the
 * oracle is below 255: it "matches" every misreading that saturates there,
 * and carries no trace of any; none is named.  The wrapped output of the
 * same case is still named. */
Test(diagnose_quant, a_saturated_constant_output_gets_no_diagnosis)
{
    iohw_problem p = problem(P1);
    iohw__qdata d;
    iohw_error err;
    char buf[512];
    const int64_t n = iohw_problem_y_count(&p);
    int64_t *y = malloc((size_t)n * sizeof *y), *good = malloc((size_t)n * sizeof *good);
    knobs none = {0};
    cr_assert(y != NULL && good != NULL);
    iohw__qwant w = want(IOHW_U8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES);
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_UNSAT, &w, 1, &d, &err), 0, "%s", err.msg);
    hand(&p, &d, none, good);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; i++) {
        y[i] = 255;
        differ += good[i] != 255;
    }
    cr_assert_gt(differ, 1, "the oracle is 255 almost everywhere");
    cr_expect_eq(diagnose(&p, &d, y, buf), 0, "constant 255 diagnosed: %s", buf);
    cr_expect_str_empty(buf);
    free(y);
    free(good);
    iohw__qdata_free(&d);
}

/* gemmlowp's own steps (specification section 11.3) on the ties fill
 * (M = 1/4: multiplier 2^30, shift -1).  Without the nudge, the high
 * half truncates and the rounding divide by 2 then rounds x/4 once, half
 * away from zero: the output is also the single rounding half away, and
 * the case cannot tell the two apart; the common name is given.  The
 * divide as a plain shift floors x/2 rounded: where it differs from every
 * single mode (checked here by hand) it is named itself. */
static void expect_gemmlowp_step(knobs k, const char *name)
{
    iohw_problem p = problem(P1);
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED);
    iohw__qdata d;
    iohw_error err;
    int64_t y[2 * 4 * 12], good[2 * 4 * 12], single[2 * 4 * 12];
    char buf[512];
    knobs none = {0}, away = {0};
    away.rounding = IOHW_ROUND_HALF_AWAY;
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, 3, &d, &err), 0, "%s", err.msg);
    cr_assert(d.q.multiplier[0] == 1 << 30 && d.q.shift[0] == -1, "the ties fill's M is 1/4");
    hand(&p, &d, none, good);
    hand(&p, &d, k, y);
    hand(&p, &d, away, single);
    cr_assert_neq(memcmp(y, good, sizeof y), 0, "%s changes nothing", name);
    cr_assert_eq(memcmp(y, single, sizeof y) == 0, k.no_nudge, "half away: %s", name);
    cr_expect_eq(diagnose(&p, &d, y, buf), 1, "%s not diagnosed", name);
    cr_expect(strstr(buf, name) != NULL, "want \"%s\", got \"%s\"", name, buf);
    cr_expect_geq(iohw_diagnose_find(buf), 0, "%s", buf);
    iohw__qdata_free(&d);
}

Test(diagnose_quant, gemmlowp_nudge_omitted_gets_the_common_name)
{
    knobs k = {0};
    k.no_nudge = 1;
    expect_gemmlowp_step(k, "matches the oracle with rounding inside the fixed-point multiply "
                            "differs from gemmlowp's");
}

Test(diagnose_quant, gemmlowp_rounding_divide_as_plain_shift_is_named)
{
    knobs k = {0};
    k.plain_shift = 1;
    iohw_problem p = problem(P1);
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED);
    iohw__qdata d;
    iohw_error err;
    int64_t y[2 * 4 * 12], other[2 * 4 * 12];
    cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, 3, &d, &err), 0, "%s", err.msg);
    hand(&p, &d, k, y);
    for (int32_t r = IOHW_ROUND_HALF_EVEN; r <= IOHW_ROUND_HALF_UP; r++) {
        knobs m = {0};
        m.rounding = r;
        hand(&p, &d, m, other);
        cr_assert_neq(memcmp(y, other, sizeof y), 0, "the plain shift is mode %d here", r);
    }
    iohw__qdata_free(&d);
    expect_gemmlowp_step(k, "matches the oracle with gemmlowp's rounding divide by a power of "
                            "two as a plain shift");
}

/* Two misreadings that give one output (computed here by hand): ties
 * rounded half up where half_away is asked, and zp_y added before
 * rounding, on a ties case where every tie that changes is one whose sign
 * zp_y flips.  Both change only how ties round: the common name of their
 * group is given, neither own name. */
Test(diagnose_quant, two_misreadings_coinciding_get_their_common_name)
{
    iohw_problem p = problem(P1);
    iohw__qwant w = want(IOHW_S8, IOHW_ROUND_HALF_AWAY, IOHW_QM_SCALES);
    iohw__qdata d;
    iohw_error err;
    int64_t up[2 * 4 * 12], first[2 * 4 * 12], good[2 * 4 * 12];
    char buf[512];
    knobs none = {0}, ku = {0}, kz = {0};
    ku.rounding = IOHW_ROUND_HALF_UP;
    kz.zp_y_first = 1;
    uint64_t seed = 0;
    for (;; seed++) {
        cr_assert_lt(seed, 400, "no ties case where the two coincide");
        cr_assert_eq(iohw__qfill(&p, IOHW__QFILL_TIES, &w, seed, &d, &err), 0, "%s", err.msg);
        hand(&p, &d, none, good);
        hand(&p, &d, ku, up);
        hand(&p, &d, kz, first);
        if (memcmp(up, first, sizeof up) == 0 && memcmp(up, good, sizeof up) != 0)
            break;
        iohw__qdata_free(&d);
    }
    cr_expect_eq(diagnose(&p, &d, up, buf), 1, "not diagnosed");
    cr_expect_str_eq(buf, "matches the oracle with ties rounded in another mode where half_away "
                          "was asked");
    cr_expect_geq(iohw_diagnose_find(buf), 0, "%s", buf);
    iohw__qdata_free(&d);
}

Test(diagnose_quant, names_join_the_diagnosis_table)
{
    /* The quantized names follow the float ones; the backward ones
     * (diagnose_bwd.h) come after them. */
    const int nf = iohw_diagnose_count() - iohw__dgq_count() - iohw__dgb_count();
    cr_assert_gt(nf, 0);
    for (int i = 0; i < iohw__dgq_count(); i++) {
        cr_expect_str_eq(iohw_diagnose_name(nf + i), iohw__dgq_name(i));
        cr_expect_str_eq(iohw_diagnose_meaning(nf + i), iohw__dgq_meaning(i));
        cr_expect_eq(iohw_diagnose_find(iohw__dgq_name(i)), nf + i, "%s", iohw__dgq_name(i));
    }
    cr_expect_null(iohw__dgq_name(iohw__dgq_count()));
}
