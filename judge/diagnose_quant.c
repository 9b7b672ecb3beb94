/*
 * judge/diagnose_quant.c - the misreadings of the quantized definition
 * (specification section 11) and the driver that names the ones a failing
 * output matches.
 *
 * A variant changes the definition
 *   acc = bias_q[oc] + sum (x_q - zp_x) * (w_q - zp_w)
 *   y_q = saturate(zp_y + R(M[oc] * acc))
 * in one place:
 *   zp_x, zp_w not subtracted   the accumulator with zp = 0
 *   weight I and O exchanged    w's memory read with I and O swapped in the
 *                               weight layout string
 *   other rounding              R of another mode (the same M; gemmlowp only
 *                               on the fixed form)
 *   zp_y before rounding        R(zp_y + v) instead of zp_y + R(v)
 *   per-channel M along I       v = sum_ci M[ci] * acc_ci + M[oc] * bias,
 *                               acc_ci the terms of input channel ci
 *   no saturation               zp_y + R(v) wrapped to the type
 *   bias after requantization   zp_y + R(M * (acc - bias)) + bias
 * Every variant is exact: the accumulators come from the oracle (an s32
 * output), R from iohw_quant_requantize; a tie of R(zp_y + v) is found as
 * the place where rounding half up and half down disagree, and the sum of
 * the along-I variant is an integer times one M' built exactly from the
 * common power of two of the M[j].  y is compared bit for bit.
 */
#include "judge/diagnose_quant.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose_qdeploy.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

/* Products per oracle run above which a case is not diagnosed. */
#define MAX_WORK ((int64_t)1 << 24)

typedef struct qvariant {
    int zp_x_kept, zp_w_kept, io_swapped, bias_after, zp_y_first, axis_i, wrap;
    int32_t rounding;   /* 0: the case's */
    iohw__dgq_acc_fn acc_fn;       /* NULL: the definition's accumulators */
    iohw__dgq_finish_fn finish;    /* NULL: zp_y + R(M * acc), stored */
} qvariant;

typedef int (*qbuild_fn)(const iohw__dgq_case *c, qvariant *v);

typedef struct qentry {
    const char *name;
    qbuild_fn build;    /* 1: applies, 0: not on this case */
    const char *meaning;
} qentry;

/* --- the variants ---------------------------------------------------- */

static int requantized(const iohw__dgq_case *c)
{
    return c->q.y_dtype != IOHW_S32;
}

static int zp_x_kept(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_x_kept = 1;
    return c->q.zp_x != 0;
}

static int zp_w_kept(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_w_kept = 1;
    return c->q.zp_w != 0;
}

static int zp_both_kept(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_x_kept = v->zp_w_kept = 1;
    return c->q.zp_x != 0 && c->q.zp_w != 0;
}

static int io_swapped(const iohw__dgq_case *c, qvariant *v)
{
    (void)c;
    v->io_swapped = 1;
    return 1;
}

static int zp_y_first(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_y_first = 1;
    return requantized(c) && c->q.zp_y != 0 && c->q.rounding != IOHW_ROUND_GEMMLOWP &&
           c->q.rounding != IOHW_ROUND_HALF_UP;
}

static int axis_i(const iohw__dgq_case *c, qvariant *v)
{
    v->axis_i = 1;
    return requantized(c) && c->q.per_channel && c->p.in_channels <= c->p.out_channels &&
           c->q.rounding != IOHW_ROUND_GEMMLOWP;
}

static int wrapped(const iohw__dgq_case *c, qvariant *v)
{
    v->wrap = 1;
    return requantized(c);
}

static int bias_after(const iohw__dgq_case *c, qvariant *v)
{
    v->bias_after = 1;
    return requantized(c) && c->bias != NULL;
}

/* R of mode `used` where `asked` was asked; gemmlowp needs the fixed form. */
#define ROUNDING(asked, used)                                                   \
    static int r_##asked##_##used(const iohw__dgq_case *c, qvariant *v)       \
    {                                                                          \
        v->rounding = IOHW_ROUND_##used;                                       \
        return requantized(c) && c->q.rounding == IOHW_ROUND_##asked &&        \
               (IOHW_ROUND_##used != IOHW_ROUND_GEMMLOWP ||                    \
                c->q.m_form == IOHW_QM_FIXED);                                 \
    }
ROUNDING(HALF_EVEN, HALF_AWAY)
ROUNDING(HALF_EVEN, HALF_UP)
ROUNDING(HALF_EVEN, GEMMLOWP)
ROUNDING(HALF_AWAY, HALF_EVEN)
ROUNDING(HALF_AWAY, HALF_UP)
ROUNDING(HALF_AWAY, GEMMLOWP)
ROUNDING(HALF_UP, HALF_EVEN)
ROUNDING(HALF_UP, HALF_AWAY)
ROUNDING(HALF_UP, GEMMLOWP)
ROUNDING(GEMMLOWP, HALF_EVEN)
ROUNDING(GEMMLOWP, HALF_AWAY)
ROUNDING(GEMMLOWP, HALF_UP)
#undef ROUNDING

/* The deployment misreadings (judge/diagnose_qdeploy.c). */
static int f32_requant(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_f32_finish;
    return iohw__dgq_f32_distinct(&c->q, c->q.per_channel ? c->p.out_channels : 1);
}

static int acc_wrapped(const iohw__dgq_case *c, qvariant *v)
{
    (void)c;
    v->acc_fn = iohw__dgq_wrap_acc;
    return 1;
}

static int shift_left_ignored(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_shift_finish;
    return iohw__dgq_has_left_shift(&c->q, c->q.per_channel ? c->p.out_channels : 1);
}

#define RM(asked, used, name, asked_name)                                       \
    {name " where " asked_name " was asked", r_##asked##_##used,               \
     "your kernel requantizes with " name "; the case asks for " asked_name    \
     " (SPEC 11.3)"}

static const qentry TABLE[] = {
    {"x's zero point not subtracted", zp_x_kept,
     "your kernel multiplies x_q itself: subtract zp_x from every input before the product"},
    {"w's zero point not subtracted", zp_w_kept,
     "your kernel assumes a symmetric weight (zp_w = 0): subtract zp_w from every weight"},
    {"zero points of x and w not subtracted", zp_both_kept,
     "your kernel multiplies the raw x_q and w_q: subtract zp_x and zp_w before the product"},
    {"quantized weight read with I and O exchanged", io_swapped,
     "your kernel reads the int8 weight as OIHW: index w[m][c] where the definition has w[c][m]"},
    RM(HALF_EVEN, HALF_AWAY, "ties rounded half away from zero", "half_even"),
    RM(HALF_EVEN, HALF_UP, "ties rounded half up", "half_even"),
    RM(HALF_EVEN, GEMMLOWP, "gemmlowp's double rounding", "half_even"),
    RM(HALF_AWAY, HALF_EVEN, "ties rounded to even", "half_away"),
    RM(HALF_AWAY, HALF_UP, "ties rounded half up", "half_away"),
    RM(HALF_AWAY, GEMMLOWP, "gemmlowp's double rounding", "half_away"),
    RM(HALF_UP, HALF_EVEN, "ties rounded to even", "half_up"),
    RM(HALF_UP, HALF_AWAY, "ties rounded half away from zero", "half_up"),
    RM(HALF_UP, GEMMLOWP, "gemmlowp's double rounding", "half_up"),
    RM(GEMMLOWP, HALF_EVEN, "ties rounded to even", "gemmlowp"),
    RM(GEMMLOWP, HALF_AWAY, "ties rounded half away from zero", "gemmlowp"),
    RM(GEMMLOWP, HALF_UP, "ties rounded half up", "gemmlowp"),
    {"zp_y added before rounding", zp_y_first,
     "your kernel rounds zp_y + M*acc: round M*acc first, then add zp_y"},
    {"per-channel scales applied along I", axis_i,
     "your kernel takes the per-channel scale of the weight's axis 0 (I); in IOHW it runs along O, M[g*Mg+m]"},
    {"no saturation (wrapped around)", wrapped,
     "your kernel stores zp_y + R(v) without clamping to the type: saturate to [qmin, qmax] first"},
    {"bias added after the requantization", bias_after,
     "your kernel adds the int32 bias to the output; it is at scale s_x*s_w and belongs in the accumulator"},
    {"requantization computed in binary32", f32_requant,
     "your kernel computes M or M*acc in float: near a tie (or past 2^24) binary32 rounds the other "
     "way; requantize exactly, in integers (SPEC 11.2)"},
    {"int32 accumulator wrapped", acc_wrapped,
     "your kernel's int32 accumulator wraps past 2^31: the definition's sum is exact (int64; SPEC 11.1)"},
    {"fixed-point left shift ignored", shift_left_ignored,
     "your kernel drops a positive shift (M >= 1/2): multiply by 2^shift before the rounding "
     "multiply (SPEC 11.2)"},
};
#undef RM
#define NTABLE ((int)(sizeof TABLE / sizeof TABLE[0]))

int iohw__dgq_count(void)
{
    return NTABLE;
}

const char *iohw__dgq_name(int i)
{
    return i >= 0 && i < NTABLE ? TABLE[i].name : NULL;
}

const char *iohw__dgq_meaning(int i)
{
    return i >= 0 && i < NTABLE ? TABLE[i].meaning : NULL;
}

/* --- the case, canonical -------------------------------------------- */

typedef struct qbase {
    const iohw__dgq_case *c;
    iohw_problem p;           /* canonical layouts */
    int64_t nx, nw, ny, OV, C_in, C_out;
    uint8_t *x, *w, *w_swapped;  /* canonical bytes; w_swapped may be NULL */
    int64_t *y;               /* the backend's y, canonical */
    int64_t *acc;             /* scratch [ny] */
    int64_t *part;            /* [C_in][ny] per-input-channel acc, or NULL */
    int64_t *ref;             /* when set, matches() stores every output of
                                 the variant here (scratch [ny]) */
} qbase;

static void base_free(qbase *b)
{
    free(b->x);
    free(b->w);
    free(b->w_swapped);
    free(b->y);
    free(b->acc);
    free(b->part);
    free(b->ref);
}

/* src in the layout of m (elements of es bytes) -> canonical bytes. */
static void *canonical(const iohw_layout_map *m, size_t es, const void *src)
{
    void *dst = malloc((size_t)m->count * es);
    if (dst != NULL)
        iohw_layout_to_canonical(m, es, src, dst);
    return dst;
}

/* The weight read with I and O exchanged in its layout string. */
static uint8_t *read_swapped(const iohw__dgq_case *c)
{
    iohw_layout_map m;
    char wl[16];
    memcpy(wl, c->p.weight_layout, sizeof wl);
    wl[sizeof wl - 1] = '\0';
    for (char *s = wl; *s != '\0'; s++)
        *s = *s == 'I' ? 'O' : *s == 'O' ? 'I' : *s;
    if (iohw_layout_weight_map_as(&c->p, wl, &m, NULL) != 0)
        return NULL;
    return canonical(&m, 1, c->w);
}

static int64_t load_y(int32_t t, const void *y, int64_t i)
{
    return t == IOHW_S8 ? ((const int8_t *)y)[i]
           : t == IOHW_U8 ? ((const uint8_t *)y)[i] : ((const int32_t *)y)[i];
}

static int base_init(const iohw__dgq_case *c, const void *y, qbase *b)
{
    iohw_layout_map mx, mw, my;
    const size_t ey = c->q.y_dtype == IOHW_S32 ? 4 : 1;

    memset(b, 0, sizeof *b);
    b->c = c;
    b->p = c->p;
    if (iohw_layout_data_map(&c->p, 0, &mx, NULL) != 0 ||
        iohw_layout_weight_map(&c->p, &mw, NULL) != 0 ||
        iohw_layout_data_map(&c->p, 1, &my, NULL) != 0)
        return -1;
    iohw_layout_default_data((int)c->p.rank, b->p.data_layout);
    iohw_layout_default_weight((int)c->p.rank, b->p.weight_layout);
    b->nx = mx.count;
    b->nw = mw.count;
    b->ny = my.count;
    b->C_in = c->p.in_channels;
    b->C_out = c->p.out_channels;
    b->OV = b->ny / (c->p.batch * b->C_out);
    b->x = canonical(&mx, 1, c->x);
    b->w = canonical(&mw, 1, c->w);
    b->w_swapped = read_swapped(c);
    void *yc = canonical(&my, ey, y);
    b->y = malloc((size_t)b->ny * sizeof *b->y);
    b->acc = malloc((size_t)b->ny * sizeof *b->acc);
    if (b->x == NULL || b->w == NULL || yc == NULL || b->y == NULL || b->acc == NULL) {
        free(yc);
        return -1;
    }
    for (int64_t i = 0; i < b->ny; i++)
        b->y[i] = load_y(c->q.y_dtype, yc, i);
    free(yc);
    return 0;
}

/* acc := the accumulators with x, w, the zero points and the bias flag
 * given, exactly in int64 (iohw_quant_accumulate: an accumulator past
 * 2^31 is kept, specification section 11.1); 0, or -1 when the oracle
 * fails. */
static int accumulate(const qbase *b, const void *x, const void *w, int32_t zp_x,
                      int32_t zp_w, int with_bias, int64_t *acc)
{
    iohw_quant q = b->c->q;
    iohw_problem p = b->p;
    q.zp_x = zp_x;
    q.zp_w = zp_w;
    p.has_bias = with_bias && b->c->bias != NULL;
    return iohw_quant_accumulate(&p, &q, x, w, b->c->bias, acc, NULL);
}

/* --- per-channel M along I ---------------------------------------------- */

/* part[ci] := the accumulators of input channel ci alone (x elsewhere at
 * zp_x, no bias). */
static int partials(qbase *b)
{
    const int64_t L = b->nx / (b->p.batch * b->C_in);
    uint8_t *x = malloc((size_t)b->nx);
    b->part = malloc((size_t)(b->C_in * b->ny) * sizeof *b->part);
    int rc = x != NULL && b->part != NULL ? 0 : -1;
    for (int64_t ci = 0; rc == 0 && ci < b->C_in; ci++) {
        for (int64_t i = 0; i < b->nx; i++)
            x[i] = (i / L) % b->C_in == ci ? b->x[i] : (uint8_t)b->c->q.zp_x;
        rc = accumulate(b, x, b->w, b->c->q.zp_x, b->c->q.zp_w, 0, b->part + ci * b->ny);
    }
    free(x);
    return rc;
}

/* M[j] = f[j] * M' exactly, with integers f[j] and one M' (*unit, per
 * tensor, the case's rounding): M[j] = odd_j * 2^e_j * C (C = s_x/s_y in
 * the scales form, 2^-31 in the fixed form), f[j] = odd_j * 2^(e_j - d),
 * M' = 2^d * C with d the smallest e_j.  0, or -1 when M' cannot be
 * written (exponents too far apart or out of range). */
static int unit_m(const iohw_quant *q, int64_t n, int64_t *f, int *e, iohw_quant *unit,
                  float *s_w1, int32_t *mult1, int32_t *sh1)
{
    int d = INT32_MAX;
    for (int64_t j = 0; j < n; j++) {
        int ex;
        if (q->m_form == IOHW_QM_SCALES) {
            f[j] = (int64_t)ldexpf(frexpf(q->s_w[j], &ex), 24);
            e[j] = ex - 24;
        } else {
            f[j] = q->multiplier[j];
            e[j] = q->shift[j];
        }
        while (f[j] != 0 && f[j] % 2 == 0) {
            f[j] /= 2;
            e[j]++;
        }
        d = f[j] != 0 && e[j] < d ? e[j] : d;
    }
    for (int64_t j = 0; j < n; j++) {
        if (f[j] != 0 && e[j] - d > 40)
            return -1;
        f[j] = f[j] == 0 ? 0 : f[j] * ((int64_t)1 << (e[j] - d));
    }
    *unit = *q;
    unit->per_channel = 0;
    if (d == INT32_MAX) /* every M is 0 */
        d = 0;
    if (q->m_form == IOHW_QM_SCALES) {
        if (d < -126 || d > 127)
            return -1;
        *s_w1 = ldexpf(1.0f, d);
        unit->s_w = s_w1;
        return 0;
    }
    *sh1 = d - 30 > -31 ? d - 30 : -31; /* 2^k * 2^(sh - 31) = 2^(d - 31) */
    *mult1 = (int32_t)1 << (d - *sh1);
    unit->multiplier = mult1;
    unit->shift = sh1;
    return 0;
}

/* r := R(sum_ci M[ci] * acc_ci + M[oc] * bias) for element i. */
static int along_i(const qbase *b, const int64_t *f, const iohw_quant *unit, int64_t i,
                   int64_t oc, int64_t *r)
{
    __int128 s = b->c->bias != NULL ? (__int128)f[oc] * b->c->bias[oc] : 0;
    for (int64_t ci = 0; ci < b->C_in; ci++)
        s += (__int128)f[ci] * b->part[ci * b->ny + i];
    if (s >= ((__int128)1 << 50) || s <= -((__int128)1 << 50))
        return -1;
    return iohw_quant_requantize(unit, 0, (int64_t)s, r, NULL);
}

/* --- finishing an accumulator ------------------------------------------ */

/* R(z + M[oc] * acc) in the case's single mode: away from a tie it is
 * z + R(v); at a tie v = f + 1/2 (where rounding half up and half down
 * disagree) the mode rounds z + f + 1/2. */
static int round_after_adding(const iohw_quant *q, int64_t oc, int64_t acc, int64_t z,
                              int64_t *r)
{
    iohw_quant up = *q;
    int64_t u, d;
    up.rounding = IOHW_ROUND_HALF_UP;
    if (iohw_quant_requantize(&up, oc, acc, &u, NULL) != 0 ||
        iohw_quant_requantize(&up, oc, -acc, &d, NULL) != 0)
        return -1;
    d = -d;
    const int64_t fl = z + d;
    if (u == d)
        *r = z + u;
    else if (q->rounding == IOHW_ROUND_HALF_EVEN)
        *r = fl % 2 == 0 ? fl : fl + 1;
    else /* half_away: the tie fl + 1/2 is positive when fl >= 0 */
        *r = fl >= 0 ? fl + 1 : fl;
    return 0;
}

static int64_t store_as(int32_t t, int64_t v, int wrap)
{
    if (t == IOHW_S8)
        return wrap ? (int8_t)(uint8_t)(v & 0xff) : v < -128 ? -128 : v > 127 ? 127 : v;
    if (t == IOHW_U8)
        return wrap ? (uint8_t)(v & 0xff) : v < 0 ? 0 : v > 255 ? 255 : v;
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v;
}

/* 1 when y equals the variant's output, 0 when not, -1 when the variant
 * cannot be evaluated on this case. */
static int matches(qbase *b, const qvariant *v)
{
    const iohw_quant *q = &b->c->q;
    iohw_quant used = *q, unit;
    int64_t *f = NULL;
    int *e = NULL;
    float s_w1;
    int32_t mult1, sh1;
    int rc = -1;

    if (v->rounding != 0)
        used.rounding = v->rounding;
    const iohw__dgq_canon canon = {&b->p, q, b->x, b->w, b->c->bias, b->ny, b->OV};
    if (v->io_swapped && b->w_swapped == NULL)
        return -1;
    if (v->acc_fn != NULL ? v->acc_fn(&canon, b->acc) != 0
                          : accumulate(b, b->x, v->io_swapped ? b->w_swapped : b->w,
                                       v->zp_x_kept ? 0 : q->zp_x, v->zp_w_kept ? 0 : q->zp_w,
                                       !v->bias_after, b->acc) != 0)
        return -1;
    if (v->axis_i) {
        f = malloc((size_t)b->C_out * sizeof *f);
        e = malloc((size_t)b->C_out * sizeof *e);
        if (f == NULL || e == NULL || (b->part == NULL && partials(b) != 0) ||
            unit_m(q, b->C_out, f, e, &unit, &s_w1, &mult1, &sh1) != 0)
            goto done;
    }
    rc = 1;
    for (int64_t i = 0; i < b->ny && (rc == 1 || (rc == 0 && b->ref != NULL)); i++) {
        const int64_t oc = (i / b->OV) % b->C_out;
        int64_t r = b->acc[i], val;
        if (v->finish != NULL) {
            if (v->finish(&canon, oc, b->acc[i], &val) != 0)
                rc = -1;
        } else if (q->y_dtype == IOHW_S32) {
            val = r;
        } else if (v->zp_y_first) {
            if (round_after_adding(q, oc, b->acc[i], q->zp_y, &val) != 0)
                rc = -1;
        } else {
            if ((v->axis_i ? along_i(b, f, &unit, i, oc, &r)
                           : iohw_quant_requantize(&used, oc, b->acc[i], &r, NULL)) != 0)
                rc = -1;
            val = q->zp_y + r + (v->bias_after ? b->c->bias[oc] : 0);
        }
        const int64_t stored = v->finish != NULL ? val : store_as(q->y_dtype, val, v->wrap);
        if (rc >= 0 && b->ref != NULL)
            b->ref[i] = stored;
        if (rc == 1 && stored != b->y[i])
            rc = 0;
    }
done:
    free(f);
    free(e);
    return rc;
}

/* --- what the differing elements hold ---------------------------------- */

/* 1 when a and b are two values (NaNs are one). */
static int two_values(double a, double b)
{
    return a != b && !(isnan(a) && isnan(b));
}

void iohw__dg_spread_add(iohw__dg_spread *s, double got, int differs, double lo,
                         double hi)
{
    if (differs && isfinite(got) && got > lo && got < hi)
        s->informative = 1;
    if (differs && isfinite(got)) {
        s->limits_varied |= s->finite_diff > 0 && got != s->first_diff;
        s->first_diff = s->finite_diff++ == 0 ? got : s->first_diff;
    }
    s->varied |= s->seen > 0 && two_values(got, s->first);
    s->first = s->seen++ == 0 ? got : s->first;
    s->diff += differs != 0;
}

int iohw__dg_spread_ok(const iohw__dg_spread *s)
{
    return s->diff > 0 && (s->informative || s->limits_varied) &&
           (s->varied || s->diff == 1);
}

/* 1 when y, against the oracle's output ref, may carry a diagnosis
 * (iohw__dg_spread). */
static int spread_ok(const qbase *b, const int64_t *ref)
{
    const int32_t t = b->c->q.y_dtype;
    const double lo = (double)store_as(t, INT64_MIN / 2, 0);
    const double hi = (double)store_as(t, INT64_MAX / 2, 0);
    iohw__dg_spread s;
    memset(&s, 0, sizeof s);
    for (int64_t i = 0; i < b->ny; i++)
        iohw__dg_spread_add(&s, (double)b->y[i], b->y[i] != ref[i], lo, hi);
    return iohw__dg_spread_ok(&s);
}

/* --- the driver -------------------------------------------------------- */

/* p as the oracle's float-coded problem: dtype f32, the quantized members
 * 0 (the oracle takes them from an iohw_quant, not from p). */
static void float_view(iohw_problem *p)
{
    const size_t at = offsetof(iohw_problem, w_dtype);
    memset((char *)p + at, 0, IOHW_MEMBER_END(iohw_problem, s_y) - at);
    p->dtype = IOHW_F32;
}

static void say(char *buf, size_t n, const char *text)
{
    if (buf != NULL && n > 0)
        snprintf(buf, n, "%s", text);
}

int iohw__dg_quant(const iohw__dgq_case *given, const void *y, char *buf, size_t n)
{
    iohw__dgq_case view = given != NULL ? *given : (iohw__dgq_case){0};
    const iohw__dgq_case *c = &view;
    qbase b;
    qvariant correct;
    char line[512];
    size_t len = 0;
    int found = 0;

    say(buf, n, "");
    float_view(&view.p);
    if (given == NULL || y == NULL || c->x == NULL || c->w == NULL ||
        iohw_problem_validate(&c->p, NULL) != 0 || iohw_quant_validate(&c->p, &c->q, NULL) != 0)
        return 0;
    const double work = (double)iohw_problem_x_count(&c->p) *
                        (double)iohw_problem_w_count(&c->p) / (double)c->p.in_channels;
    if (work > (double)MAX_WORK)
        return 0;
    if (base_init(c, y, &b) != 0) {
        base_free(&b);
        say(buf, n, "no diagnosis: out of memory");
        return 0;
    }
    memset(&correct, 0, sizeof correct);
    b.ref = malloc((size_t)b.ny * sizeof *b.ref);
    const int right = b.ref != NULL ? matches(&b, &correct) : 1;
    /* no failure to explain, or none a diagnosis could be read from */
    if (right == 1 || (right == 0 && !spread_ok(&b, b.ref))) {
        base_free(&b);
        return 0;
    }
    free(b.ref);
    b.ref = NULL;
    for (int i = 0; i < NTABLE && len < sizeof line; i++) {
        qvariant v;
        memset(&v, 0, sizeof v);
        if (TABLE[i].build(c, &v) != 1 || (v.axis_i && work * (double)c->p.in_channels >
                                                         (double)MAX_WORK))
            continue;
        if (matches(&b, &v) != 1)
            continue;
        int k = snprintf(line + len, sizeof line - len, "%s%s",
                         found ? ", or with " : "matches the oracle with ", TABLE[i].name);
        len = k > 0 && (size_t)k < sizeof line - len ? len + (size_t)k : sizeof line;
        found = 1;
    }
    base_free(&b);
    if (found)
        say(buf, n, line);
    return found;
}
