/*
 * judge/diagnose_quant_driver.c - names the misreading of the quantized
 * definition (judge/diagnose_quant.c, TABLE) that a failing output
 * matches, honestly (specification section 11.5):
 *   - nothing is named from an output that carries no trace: the elements
 *     that differ from the oracle all saturated (at one limit or at both),
 *     or the output one value (iohw__dg_spread); a misreading that matches
 *     must explain differing elements inside the limits;
 *   - one misreading that matches is named; two or more are named by the
 *     common name of their group when they all share one
 *     (judge/diagnose_qgroups.c), and not at all otherwise: a case that
 *     cannot tell causes apart names none of them.
 * Every variant is exact: the accumulators come from the oracle (an s32
 * output), R from iohw_quant_requantize; a tie of R(zp_y + v) is found as
 * the place where rounding half up and half down disagree, and the sum of
 * the along-I variant is an integer times one M' built exactly from the
 * common power of two of the M[j].  y is compared bit for bit.
 */
#include "judge/diagnose_quant_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/layout.h"
#include "oracle/problem.h"

/* Products per oracle run above which a case is not diagnosed. */
#define MAX_WORK ((int64_t)1 << 24)

/* Misreadings that may match one output and still be named (by a group). */
#define MAX_MATCHED 16
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
    /* saturation at both limits is no trace here: every misreading that
     * overflows both ways saturates alike (specification section 11.5) */
    return iohw__dg_spread_ok(&s) && s.informative;
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

/* The name the matched rows earn (specification section 11.5): the one
 * row's, or the common name of the group they all belong to; NULL when
 * no one group holds them all (the case cannot tell them apart). */
static const char *honest_name(const int *rows, int n)
{
    if (n == 1)
        return iohw__dgq_name(rows[0]);
    for (int g = 0; g < iohw__dgq_group_count(); g++) {
        int all = 1;
        for (int i = 0; i < n && all; i++)
            all = iohw__dgq_in_group(g, iohw__dgq_name(rows[i]));
        if (all)
            return iohw__dgq_group_name(g);
    }
    return NULL;
}

/* rows := the rows whose misreading y matches; their count, or
 * MAX_MATCHED + 1 when more match (then none is named). */
static int matched_rows(qbase *b, double work, int *rows)
{
    const iohw__dgq_case *c = b->c;
    int n = 0;
    for (int i = 0; i < iohw__dgq_rows() && n <= MAX_MATCHED; i++) {
        qvariant v;
        if (iohw__dgq_build(i, c, &v) != 1 ||
            (v.axis_i && work * (double)c->p.in_channels > (double)MAX_WORK))
            continue;
        if (matches(b, &v) != 1)
            continue;
        if (n < MAX_MATCHED)
            rows[n] = i;
        n++;
    }
    return n;
}

int iohw__dg_quant(const iohw__dgq_case *given, const void *y, char *buf, size_t n)
{
    iohw__dgq_case view = given != NULL ? *given : (iohw__dgq_case){0};
    const iohw__dgq_case *c = &view;
    qbase b;
    qvariant correct;
    int rows[MAX_MATCHED];

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
    const int found = matched_rows(&b, work, rows);
    base_free(&b);
    const char *name = found <= MAX_MATCHED && found > 0 ? honest_name(rows, found) : NULL;
    if (name == NULL)
        return 0;
    if (buf != NULL && n > 0)
        snprintf(buf, n, "matches the oracle with %s", name);
    return 1;
}
