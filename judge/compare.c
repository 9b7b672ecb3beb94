/*
 * judge/compare.c - judging a backend's output against the oracle
 * (specification section 3).
 *
 * Definition.  For output element i (memory order of the data layout) let
 *   e  = y_f64[i]       the oracle's value,
 *   s  = y[i]           the oracle's value rounded to the case dtype (stored),
 *   eb = err_bound[i]   |bias| + sum |x*w| over the element's terms,
 *   g  = the backend's element, converted exactly to double,
 *   u  = the unit roundoff of the dtype, T = terms_max.
 * Exact fills (exact, ties): g == s as values (-0 == +0); s NaN requires
 *               g NaN.
 * Other fills:
 *   e NaN        requires g NaN;
 *   e +-Inf      requires g == e;
 *   e finite     g must be finite (unless s overflowed to an Inf and g is
 *                that Inf, the correctly rounded result); then, when eb is
 *                finite, |g - e| <= (T + 2) * u * eb + ulp(s) / 2, where ulp
 *                is the spacing of the dtype at s (for f64, of the double);
 *                an Inf or NaN eb (special fills) accepts any finite g.
 * ratio(i) = |g - e| / (u * eb): 0 when g equals e (NaN equals NaN), +inf
 * when a NaN/Inf rule is broken or eb is 0 and g != e.  worst_ratio is the
 * largest ratio over all elements, mismatches or not.
 * Unwritten: an element whose bits equal the sentinel counts as unwritten
 * and as a mismatch with ratio +inf, whatever its value.
 * A declared flush (iohw_compare_flushed, specification section 3.4), with
 * m the dtype's smallest normal: the bound grows by
 *   min(eb, (2T + 1) * m)
 * (the products, the partial sums and the result flushed to zero), and an
 * exact fill accepts 0 where |s| < m.
 *
 * One pass over the output, in blocks converted to double in bulk; the
 * layout is decoded only for the first IOHW_RESULT_POINTS mismatches.
 */
#include "judge/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

#define BLOCK 512

typedef struct judge {
    int exact;
    iohw_dtype dt;
    double u;
    double scale;   /* (terms_max + 2) * u */
    int prec;       /* significand bits, implicit one included */
    int emin;       /* exponent of the smallest normal */
    int emax;       /* exponent of the largest finite binade */
    double terms;   /* terms_max */
    double flush_min; /* a declared flush: the smallest normal; else 0 */
} judge;

int iohw_compare_is_exact(const iohw_case *c)
{
    return c != NULL && (strcmp(c->fill, "exact") == 0 || strcmp(c->fill, "ties") == 0);
}

/* Half the spacing of the dtype at v (v as stored in the dtype): 2^(ex -
 * prec) with 2^ex <= |v| < 2^(ex+1), ex clamped below at the dtype's
 * smallest normal exponent; read from the bits of the double. */
static double half_ulp(const judge *j, double v)
{
    uint64_t bits;
    int field, ex, h;
    double r;

    memcpy(&bits, &v, sizeof bits);
    field = (int)((bits >> 52) & 0x7ff);
    if (field == 0x7ff)
        ex = j->emax;                 /* Inf or NaN: the top binade */
    else if (field == 0)
        ex = j->emin;                 /* zero or an f64 subnormal */
    else
        ex = field - 1023 < j->emin ? j->emin : field - 1023;
    h = ex - j->prec;
    if (h < -1022)
        return ldexp(1.0, h);         /* a subnormal double */
    bits = (uint64_t)(h + 1023) << 52;
    memcpy(&r, &bits, sizeof r);
    return r;
}

static double ratio_of(const judge *j, double e, double eb, double g)
{
    if (g == e || (isnan(g) && isnan(e)))
        return 0.0;
    if (!isfinite(g) || !isfinite(e) || !(eb > 0.0))
        return INFINITY;
    if (isinf(eb))
        return 0.0;
    return fabs(g - e) / (j->u * eb);
}

/* What flushing subnormals may add to an element's error (0 without a
 * declared flush): each of the T products, the T partial sums and the
 * result may be flushed, losing less than m each; and whatever is flushed,
 * what is left is a sum of some of the terms, so no more than eb is lost
 * in all. */
static double flush_slack(const judge *j, double eb)
{
    const double m = j->flush_min;
    if (m == 0.0)
        return 0.0;
    return fmin(eb, (2.0 * j->terms + 1.0) * m);
}

/* 1 when g passes; sets the element's bound and its ratio (or 0 when the
 * ratio cannot exceed worst, the largest so far). */
static int judge_element(const judge *j, double e, double s, double eb,
                         double g, double worst, double *ratio, double *bound)
{
    int ok;
    double d;

    *bound = 0.0;
    if (j->exact) {
        ok = isnan(s) ? isnan(g)
                      : g == s || (g == 0.0 && fabs(s) < j->flush_min);
        *ratio = ok ? 0.0 : ratio_of(j, e, eb, g);
        return ok;
    }
    if (isnan(e) || isinf(e)) {
        ok = isnan(e) ? isnan(g) : g == e;
        *ratio = ok ? 0.0 : INFINITY;
        return ok;
    }
    if (!isfinite(g)) {
        ok = isinf(s) && g == s;      /* the rounding itself overflowed */
        *ratio = ok ? 0.0 : INFINITY;
        return ok;
    }
    if (!isfinite(eb)) {
        *bound = INFINITY;
        *ratio = 0.0;
        return 1;
    }
    *bound = j->scale * eb + half_ulp(j, s) + flush_slack(j, eb);
    d = fabs(g - e);
    /* The division only when this element may be the worst so far. */
    *ratio = d > worst * j->u * eb ? ratio_of(j, e, eb, g) : 0.0;
    return d <= *bound;
}

/* The es-byte element at p as an integer. */
static uint64_t load_bits(const void *p, size_t es)
{
    switch (es) {
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* Semantic coordinates (n, c, d, h, w) of memory index idx. */
static void decode_point(const iohw_layout_map *m, int64_t idx, int64_t *coord)
{
    for (int k = 0; k < 5; k++)
        coord[k] = 0;
    for (int k = m->ndim - 1; k >= 0; k--) {
        int64_t v = idx % m->shape[k];
        idx /= m->shape[k];
        switch (m->letters[k]) {
        case 'N': coord[0] = v; break;
        case 'C': coord[1] = v; break;
        case 'D': coord[2] = v; break;
        case 'H': coord[3] = v; break;
        case 'W': coord[4] = v; break;
        default: break;
        }
    }
}

/* Coordinates of a backward output's element i (specification section
 * 13): dx decoded in the data layout with C = C_in (n, c, d, h, w); dw in
 * the weight layout (coord[0] the input channel over all groups, coord[1]
 * the output channel as the layout counts it, then the kernel's d, h, w);
 * db (i past dw) as (0, c, 0, 0, 0). */
static void decode_backward(const iohw_problem *p, const iohw_layout_map *m,
                            int64_t i, int64_t *coord)
{
    const int64_t wc = iohw_problem_w_count(p);
    if (p->direction == IOHW_DIR_BWD_D || i < wc) {
        int64_t g = 0, idx = i;
        decode_point(m, i, coord);
        for (int k = m->ndim - 1; k >= 0; k--) {
            int64_t v = idx % m->shape[k];
            idx /= m->shape[k];
            if (p->direction == IOHW_DIR_BWD_W && m->letters[k] == 'G')
                g = v;
            if (p->direction == IOHW_DIR_BWD_W && m->letters[k] == 'I')
                coord[0] = v;
            if (p->direction == IOHW_DIR_BWD_W && m->letters[k] == 'O')
                coord[1] = v;
        }
        coord[0] += p->direction == IOHW_DIR_BWD_W
                        ? g * (p->in_channels / p->groups) : 0;
        return;
    }
    for (int k = 0; k < 5; k++)
        coord[k] = 0;
    coord[1] = i - wc;
}

/* The map an output element's coordinates are decoded with: y's (C =
 * C_out), dx's (C = C_in) or dw's. */
static int output_map(const iohw_problem *p, iohw_layout_map *m)
{
    if (p->direction == IOHW_DIR_BWD_W)
        return iohw_layout_weight_map(p, m, NULL);
    return iohw_layout_data_map(p, p->direction != IOHW_DIR_BWD_D, m, NULL);
}

/* Counts a mismatch at semantic coordinates coord in the coarse map of
 * results/result.h: bin (h * B / O_h, w * B / O_w), saturating at 255. */
static void errmap_add(const iohw_problem *p, const int64_t *coord,
                       uint8_t *map)
{
    const int64_t B = IOHW_RESULT_ERRMAP;
    const int R = (int)p->rank;
    const int64_t OH = R >= 2 ? p->out_size[R - 2] : 1;
    const int64_t OW = p->out_size[R - 1];
    const int64_t bh = coord[3] * B / OH;
    const int64_t bw = coord[4] * B / OW;
    if (bh < 0 || bh >= B || bw < 0 || bw >= B)
        return;
    uint8_t *cell = &map[bh * B + bw];
    if (*cell < 255)
        (*cell)++;
}

static void set_dtype_limits(judge *j)
{
    switch (j->dt) {
    case IOHW_F64: j->prec = 53; j->emin = -1022; j->emax = 1023; break;
    case IOHW_F16: j->prec = 11; j->emin = -14; j->emax = 15; break;
    case IOHW_BF16: j->prec = 8; j->emin = -126; j->emax = 127; break;
    default: j->prec = 24; j->emin = -126; j->emax = 127; break;
    }
}

/* n elements of dt at src as doubles (exact); f32, f64 and bf16 inline,
 * f16 through the oracle's converter. */
static void to_double(iohw_dtype dt, const unsigned char *src, double *dst,
                      int64_t n)
{
    switch (dt) {
    case IOHW_F32:
        for (int64_t i = 0; i < n; i++) {
            float v;
            memcpy(&v, src + 4 * i, 4);
            dst[i] = v;
        }
        break;
    case IOHW_F64:
        memcpy(dst, src, (size_t)n * 8);
        break;
    case IOHW_BF16:
        for (int64_t i = 0; i < n; i++) {
            uint16_t h;
            uint32_t b;
            float v;
            memcpy(&h, src + 2 * i, 2);
            b = (uint32_t)h << 16;    /* bf16 is the top half of an f32 */
            memcpy(&v, &b, 4);
            dst[i] = v;
        }
        break;
    default:
        iohw_dtype_to_double(dt, src, dst, (size_t)n);
        break;
    }
}

/* NULL when the arguments can be compared, else what is missing. */
static const char *check_case(const iohw_case *c, const void *y)
{
    if (c == NULL)
        return "no case";
    if (y == NULL)
        return "no output y";
    if (c->y == NULL || c->y_f64 == NULL || c->err_bound == NULL)
        return "the case's outputs (y, y_f64, err_bound) are not loaded";
    if (iohw_dtype_size(c->p.dtype) == 0)
        return "the case's dtype is unknown";
    if (iohw_problem_validate(&c->p, NULL) != 0)
        return "the case's problem is invalid";
    return NULL;
}

/* The result before anything is compared. */
static void reset_result(iohw_result *r)
{
    r->exact = 0;
    r->elements = 0;
    r->mismatches = 0;
    r->unwritten = 0;
    r->worst_ratio = 0.0;
    r->npoints = 0;
    memset(r->errmap, 0, sizeof r->errmap);
}

/* The rule for c's dtype and fill; flush: the rule of a declared flush. */
static void judge_init(judge *j, const iohw_case *c, int flush)
{
    j->exact = iohw_compare_is_exact(c);
    j->dt = c->p.dtype;
    j->u = iohw_dtype_unit_roundoff(j->dt);
    j->scale = ((double)c->terms_max + 2.0) * j->u;
    j->terms = (double)c->terms_max;
    set_dtype_limits(j);
    j->flush_min = flush ? ldexp(1.0, j->emin) : 0.0;
}

/* Counts mismatch i (got g, bound) in r: the coarse error map, and the
 * point while there is room.  *have_map caches the layout's map. */
static void note_mismatch(const iohw_case *c, int64_t i, double e, double g,
                          double bound, iohw_layout_map *map, int *have_map,
                          iohw_result *r)
{
    int64_t coord[5] = {-1, -1, -1, -1, -1};

    r->mismatches++;
    if (*have_map == 0)
        *have_map = output_map(&c->p, map) == 0 ? 1 : -1;
    if (*have_map == 1 && iohw_problem_is_backward(&c->p)) {
        decode_backward(&c->p, map, i, coord);  /* no heat map of y */
    } else if (*have_map == 1) {
        decode_point(map, i, coord);
        errmap_add(&c->p, coord, r->errmap);
    }
    if (r->npoints >= IOHW_RESULT_POINTS)
        return;
    iohw_point *pt = &r->points[r->npoints++];
    pt->index = i;
    for (int a = 0; a < 5; a++)
        pt->coord[a] = coord[a];
    pt->expected = e;
    pt->got = g;
    pt->bound = bound;
}

/* Judges every element of y against c, block by block. */
static void judge_all(const judge *j, const iohw_case *c, const void *y,
                      const void *sentinel_bits, iohw_result *r)
{
    const size_t es = iohw_dtype_size(c->p.dtype);
    /* The direction's output: y, dx, or dw then db (section 13). */
    const int64_t count = iohw_problem_out_count(&c->p);
    const uint64_t sentinel =
        sentinel_bits != NULL ? load_bits(sentinel_bits, es) : 0;
    iohw_layout_map map;
    int have_map = 0;
    double got[BLOCK], stored[BLOCK];

    r->elements = count;
    for (int64_t b0 = 0; b0 < count; b0 += BLOCK) {
        int64_t nb = count - b0 < BLOCK ? count - b0 : BLOCK;
        const unsigned char *yb = (const unsigned char *)y + (size_t)b0 * es;
        to_double(j->dt, yb, got, nb);
        to_double(j->dt, (const unsigned char *)c->y + (size_t)b0 * es, stored, nb);
        for (int64_t k = 0; k < nb; k++) {
            int64_t i = b0 + k;
            double ratio, bound;
            int ok = judge_element(j, c->y_f64[i], stored[k], c->err_bound[i],
                                   got[k], r->worst_ratio, &ratio, &bound);
            if (sentinel_bits != NULL &&
                load_bits(yb + (size_t)k * es, es) == sentinel) {
                r->unwritten++;
                ok = 0;
                ratio = INFINITY;
            }
            if (ratio > r->worst_ratio)
                r->worst_ratio = ratio;
            if (!ok)
                note_mismatch(c, i, c->y_f64[i], got[k], bound, &map,
                              &have_map, r);
        }
    }
}

/* A quantized case (specification section 11.4): y must equal the stored
 * y element for element; an element still holding the sentinel where it
 * differs counts as unwritten too. */
static void judge_quant(const iohw_case *c, const void *y,
                        const void *sentinel_bits, iohw_result *r)
{
    const iohw_dtype dt = iohw_problem_y_dtype(&c->p);
    const size_t es = iohw_dtype_size(dt);
    const int64_t count = iohw_problem_y_count(&c->p);
    const uint64_t sentinel = sentinel_bits != NULL ? load_bits(sentinel_bits, es) : 0;
    iohw_layout_map map;
    int have_map = 0;
    r->exact = 1;
    r->elements = count;
    for (int64_t i = 0; i < count; i++) {
        const double e = iohw_dtype_load(dt, c->y, (size_t)i);
        const double g = iohw_dtype_load(dt, y, (size_t)i);
        if (e == g)
            continue;
        if (sentinel_bits != NULL &&
            load_bits((const unsigned char *)y + (size_t)i * es, es) == sentinel)
            r->unwritten++;
        r->worst_ratio = INFINITY;
        note_mismatch(c, i, e, g, 0.0, &map, &have_map, r);
    }
    r->status = r->mismatches == 0 ? IOHW_RESULT_PASS : IOHW_RESULT_FAIL;
    if (r->mismatches > 0)
        r->message = iohw_text_fmt("%lld of %lld output elements "
                 "differ from the exact quantized result%s (first: expected "
                 "%.0f, got %.0f)", (long long)r->mismatches, (long long)count,
                 r->unwritten > 0 ? ", some never written" : "",
                 r->points[0].expected, r->points[0].got);
}

/* r becomes the INVALID of a case that cannot be compared (why). */
static void cannot_compare(const char *why, iohw_result *r)
{
    r->status = IOHW_RESULT_INVALID;
    r->message = iohw_text_fmt("cannot compare: %s", why);
}

static void compare_by(const iohw_case *c, const void *y,
                       const void *sentinel_bits, int flush, iohw_result *r)
{
    judge j;
    const char *why;

    if (r == NULL)
        return;
    reset_result(r);
    why = check_case(c, y);
    if (why != NULL) {
        cannot_compare(why, r);
        return;
    }
    judge_init(&j, c, flush);
    r->exact = j.exact;
    judge_all(&j, c, y, sentinel_bits, r);
    r->status = r->mismatches == 0 ? IOHW_RESULT_PASS : IOHW_RESULT_FAIL;
}

void iohw_compare_float(const iohw_case *c, const void *y,
                        const void *sentinel_bits, iohw_result *r)
{
    compare_by(c, y, sentinel_bits, 0, r);
}

void iohw_compare_flushed(const iohw_case *c, const void *y,
                          const void *sentinel_bits, iohw_result *r)
{
    compare_by(c, y, sentinel_bits, 1, r);
}

void iohw_compare_quant(const iohw_case *c, const void *y,
                        const void *sentinel_bits, iohw_result *r)
{
    if (r == NULL)
        return;
    reset_result(r);
    if (c == NULL || y == NULL || c->y == NULL)
        cannot_compare(check_case(c, y), r);
    else
        judge_quant(c, y, sentinel_bits, r);
}
