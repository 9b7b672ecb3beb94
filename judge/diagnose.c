/*
 * judge/diagnose.c - naming the bug behind a failure.
 *
 * For a failing output y:
 *   1. outputs left unwritten: every element outside the tolerance holds one
 *      and the same NaN bit pattern (the harness pre-fills outputs with a NaN
 *      sentinel), so the backend did not write them;
 *   2. otherwise each misinterpretation of diagnose_variants.c is evaluated
 *      with the oracle's core on the case's output grid and y is judged
 *      against it by the default rule of specification section 3 (with the
 *      variant's own err_bound and terms_max, never bit equality: a variant
 *      of an exact case need not be exactly representable);
 *   every variant that y matches is named, the first in the order of the
 *   table first ("matches the oracle with A, or with B");
 *   3. when none matches and y is NaN or infinite where the oracle's output
 *      is finite, a variant whose output is non-finite exactly where y is
 *      (any kind: an accumulation that overflows may end in NaN), and which
 *      y matches on the elements finite in both (one at least), is
 *      "consistent with NAME (not checkable: the output overflows)"; when
 *      two or more are, none is named (a wrong name is worse than none).
 * Cases larger than DIAGNOSE_MAX_WORK products per evaluation are not
 * diagnosed (two dozen oracle runs would take too long).
 */
#include "judge/diagnose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/compare.h"
#include "judge/diagnose_bwd.h"
#include "judge/diagnose_internal.h"
#include "judge/diagnose_quant.h"
#include "judge/diagnose_shape.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

#define DIAGNOSE_MAX_WORK ((int64_t)1 << 26)

/* The float misinterpretations, then the quantized ones
 * (diagnose_quant.c), then the backward ones (diagnose_bwd_variants.c). */
int iohw_diagnose_count(void)
{
    return iohw__dg_table_count + iohw__dgq_count() + iohw__dgb_count();
}

/* The backward misreadings (diagnose_bwd_variants.c) come after the
 * quantized ones, so that the index of every earlier name stays. */
const char *iohw_diagnose_name(int i)
{
    const int fq = iohw__dg_table_count + iohw__dgq_count();
    if (i >= fq)
        return iohw__dgb_name(i - fq);
    if (i >= iohw__dg_table_count)
        return iohw__dgq_name(i - iohw__dg_table_count);
    return i < 0 ? NULL : iohw__dg_table[i].name;
}

const char *iohw_diagnose_meaning(int i)
{
    const int fq = iohw__dg_table_count + iohw__dgq_count();
    if (i >= fq)
        return iohw__dgb_meaning(i - fq);
    if (i >= iohw__dg_table_count)
        return iohw__dgq_meaning(i - iohw__dg_table_count);
    return i < 0 ? NULL : iohw__dg_table[i].meaning;
}

int iohw_diagnose_find(const char *sentence)
{
    static const char lead[] = "matches the oracle with ";
    static const char weak[] = IOHW_DIAGNOSE_CONSISTENT;
    const char *s = sentence;
    if (strncmp(s, lead, sizeof lead - 1) == 0)
        s += sizeof lead - 1;
    else if (strncmp(s, weak, sizeof weak - 1) == 0)
        s += sizeof weak - 1;
    int best = -1;
    size_t best_len = 0;
    /* The longest name that the sentence starts with followed by its end
     * or ", or with": names may be prefixes of each other. */
    for (int i = 0; i < iohw_diagnose_count(); i++) {
        const char *name = iohw_diagnose_name(i);
        size_t len = strlen(name);
        if (strncmp(s, name, len) == 0 &&
            (s[len] == '\0' || strncmp(s + len, ", or with", 9) == 0 ||
             strncmp(s + len, " (not checkable", 15) == 0) &&
            len > best_len) {
            best = i;
            best_len = len;
        }
    }
    return best;
}

/* --- outputs left unwritten ------------------------------------------ */

/* 1 when the NaN element at e is quiet.  Arithmetic makes only quiet NaNs;
 * the harness's sentinel is a signalling one, so a quiet NaN was written. */
static int quiet_nan(iohw_dtype dt, const unsigned char *e, size_t es)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < es; i++)
        bits |= (uint64_t)e[i] << (8 * i); /* x86-64: little-endian */
    const int q = dt == IOHW_F16 ? 9 : dt == IOHW_BF16 ? 6 : dt == IOHW_F64 ? 51 : 22;
    return (int)((bits >> q) & 1);
}

static int looks_unwritten(const iohw_case *c, const void *y)
{
    iohw_result r;
    size_t es = iohw_dtype_size(c->p.dtype);
    const unsigned char *first;

    iohw_result_init(&r);
    iohw_compare_float(c, y, NULL, &r);
    if (r.status != IOHW_RESULT_FAIL || r.npoints == 0)
        return 0;
    if (!isnan(iohw_dtype_load(c->p.dtype, y, (size_t)r.points[0].index)))
        return 0;
    first = (const unsigned char *)y + (size_t)r.points[0].index * es;
    if (quiet_nan(c->p.dtype, first, es))
        return 0;
    iohw_compare_float(c, y, first, &r);
    return r.unwritten > 0 && r.mismatches == r.unwritten;
}

/* 1 when y, against the case's output (bit for bit), may carry a
 * diagnosis (iohw__dg_spread): the elements that differ not all NaN or
 * infinite, y not one value everywhere.  The largest finite value is no
 * limit here: an overflow saturated there is a misreading to name. */
static int spread_ok(const iohw_case *c, const void *y)
{
    const iohw_dtype dt = c->p.dtype;
    const size_t es = iohw_dtype_size(dt);
    const int64_t n = iohw_problem_y_count(&c->p);
    iohw__dg_spread s;
    memset(&s, 0, sizeof s);
    for (int64_t i = 0; i < n; i++)
        iohw__dg_spread_add(&s, iohw_dtype_load(dt, y, (size_t)i),
                            memcmp((const char *)y + (size_t)i * es,
                                   (const char *)c->y + (size_t)i * es, es) != 0,
                            -INFINITY, INFINITY);
    return iohw__dg_spread_ok(&s);
}

/* --- the case's inputs, canonical -------------------------------------- */

static void base_free(iohw__dg_base *b)
{
    free(b->x);
    free(b->w);
    free(b->bias);
}

static int base_init(const iohw_case *c, iohw__dg_base *b)
{
    const iohw_problem *p = &c->p;

    memset(b, 0, sizeof *b);
    b->c = c;
    b->p = p;
    b->rank = (int)p->rank;
    b->N = p->batch;
    b->C_in = p->in_channels;
    b->C_out = p->out_channels;
    b->G = p->groups;
    b->Cg = b->C_in / b->G;
    b->Mg = b->C_out / b->G;
    b->L = b->K = b->O = 1;
    for (int A = 0; A < 3; A++) {
        int a = A - (3 - b->rank);
        b->L3[A] = a < 0 ? 1 : p->in_size[a];
        b->K3[A] = a < 0 ? 1 : p->kernel[a];
        b->O3[A] = a < 0 ? 1 : p->out_size[a];
        b->L *= b->L3[A];
        b->K *= b->K3[A];
        b->O *= b->O3[A];
    }
    b->nx = iohw_problem_x_count(p);
    b->nw = iohw_problem_w_count(p);
    b->nb = iohw_problem_bias_count(p);
    b->ny = iohw_problem_y_count(p);
    b->x = iohw__dg_read_x(c, p->data_layout);
    b->w = iohw__dg_read_w(c, p->weight_layout);
    if (p->has_bias) {
        b->bias = malloc((size_t)b->nb * sizeof *b->bias);
        if (b->bias != NULL)
            iohw_dtype_to_double(p->dtype, c->bias, b->bias, (size_t)b->nb);
    }
    if (b->x == NULL || b->w == NULL || (p->has_bias && b->bias == NULL)) {
        base_free(b);
        return -1;
    }
    return 0;
}

/* --- a variant on the case's grid -------------------------------------- */

/* The variant's product on problem q (nq output elements, no bias) into
 * malloc'd *yq and *eq; 0, or -1 when q is invalid or memory ran out. */
static int run_core(const iohw__dg_variant *v, const iohw_problem *q,
                    int64_t nq, double **yq, double **eq)
{
    *yq = NULL;
    *eq = NULL;
    if (iohw_problem_validate(q, NULL) != 0)
        return -1;
    *yq = malloc((size_t)nq * sizeof **yq);
    *eq = malloc((size_t)nq * sizeof **eq);
    if (*yq != NULL && *eq != NULL &&
        (v->skip_zero || v->accum
             ? iohw__dg_conv_terms(q, v->skip_zero, v->accum, v->x, v->w, *yq, *eq)
             : iohw_conv_transpose_ref(q, v->x, v->w, NULL, q->dtype == IOHW_F64, 1,
                                       *yq, *eq, NULL)) == 0)
        return 0;
    free(*yq);
    free(*eq);
    *yq = *eq = NULL;
    return -1;
}

/* The variant's y and err_bound on the case's grid, canonical order
 * [N][C_out][O...]; *terms its terms_max.  The product is computed without
 * the bias, which is added when placing it. */
static int variant_on_grid(const iohw__dg_base *b, const iohw__dg_variant *v,
                           double *yc, double *ec, int64_t *terms)
{
    /* Definitions. */
    const int off = 3 - b->rank;
    iohw_problem q = v->p;
    int64_t s3[3] = {0, 0, 0}, hi3[3], Q3[3] = {1, 1, 1};
    int bc3[3] = {0, 0, 0};
    int64_t nq = b->N * b->C_out;
    int none = 0;
    double *yq = NULL, *eq = NULL;

    /* A problem covering exactly the grid: pad_begin = begin (or 0 with the
     * grid shifted by -begin), then pad_end or output_padding to fit. */
    for (int A = 0; A < 3; A++)
        hi3[A] = b->O3[A];
    for (int a = 0; a < b->rank; a++) {
        const int A = off + a;
        const int64_t B = v->bcast[a] ? 0 : v->begin[a];
        const int64_t s = B < 0 ? -B : 0;
        const int64_t pb = B < 0 ? 0 : B;
        int64_t Oq = b->O3[A] - s;
        const int64_t full = (q.in_size[a] - 1) * q.stride[a] +
                             q.dilation[a] * (q.kernel[a] - 1) + 1;
        const int64_t X = full - pb - Oq;
        s3[A] = s;
        bc3[A] = v->bcast[a];
        hi3[A] = v->bcast[a] || v->hi[a] > b->O3[A] ? b->O3[A] : v->hi[a];
        if (Oq < 1 || hi3[A] <= s) {
            none = 1;                 /* no product reaches the grid */
            Oq = 1;
        }
        q.pad_begin[a] = pb;
        q.pad_end[a] = X > 0 ? X : 0;
        q.output_padding[a] = X < 0 ? -X : 0;
        q.out_size[a] = Oq;
        Q3[A] = Oq;
        nq *= Oq;
    }
    q.has_bias = 0;

    /* Run the oracle's core. */
    *terms = 0;
    if (!none) {
        if (run_core(v, &q, nq, &yq, &eq) != 0)
            return -1;
        *terms = iohw_oracle_terms_max(&q);
    }

    /* Place it on the grid: shifted, windowed, broadcast, channels maybe
     * interleaved; add the bias (of the channel written, or of the product's
     * own channel). */
    for (int64_t n = 0; n < b->N; n++)
        for (int64_t co = 0; co < b->C_out; co++) {
            const int64_t cs = v->out_interleaved ? (co % b->G) * b->Mg + co / b->G : co;
            const int64_t cb = v->out_interleaved == 2 ? cs : co;
            const double bv = v->bias != NULL ? v->bias[cb] : 0.0;
            for (int64_t od = 0; od < b->O3[0]; od++)
                for (int64_t oh = 0; oh < b->O3[1]; oh++)
                    for (int64_t ow = 0; ow < b->O3[2]; ow++) {
                        const int64_t o3[3] = {od, oh, ow};
                        int64_t dst = (((n * b->C_out + co) * b->O3[0] + od) * b->O3[1] +
                                       oh) * b->O3[2] + ow;
                        int64_t src = n * b->C_out + cs;
                        int inside = !none;
                        for (int A = 0; A < 3; A++) {
                            inside = inside && o3[A] >= s3[A] && o3[A] < hi3[A];
                            src = src * Q3[A] + (bc3[A] ? 0 : o3[A] - s3[A]);
                        }
                        yc[dst] = bv + (inside ? yq[src] : 0.0);
                        ec[dst] = fabs(bv) + (inside ? eq[src] : 0.0);
                    }
        }
    free(yq);
    free(eq);
    return 0;
}

/* The variant's outputs as a case t on the case's grid and layout, in
 * buf (ym, em: doubles, yd: the dtype); the result rounded as the variant
 * rounds it, so that an exact fill judges a rounding variant bit for bit.
 * 0, or -1 when the variant could not be evaluated. */
typedef struct variant_case {
    iohw_case t;
    double *ym, *em;
    void *yd;
} variant_case;

static void variant_case_free(variant_case *vc)
{
    free(vc->ym);
    free(vc->em);
    free(vc->yd);
}

static int variant_case_make(const iohw__dg_base *b, const iohw__dg_variant *v,
                             variant_case *vc)
{
    const size_t ny = (size_t)b->ny;
    double *yc = malloc(ny * sizeof *yc);
    double *ec = malloc(ny * sizeof *ec);
    iohw_layout_map m;
    int64_t terms;
    int rc = -1;

    memset(vc, 0, sizeof *vc);
    vc->ym = malloc(ny * sizeof *vc->ym);
    vc->em = malloc(ny * sizeof *vc->em);
    vc->yd = malloc(ny * iohw_dtype_size(b->p->dtype));
    if (yc == NULL || ec == NULL || vc->ym == NULL || vc->em == NULL || vc->yd == NULL)
        goto done;
    if (variant_on_grid(b, v, yc, ec, &terms) != 0)
        goto done;
    if (v->out_round != IOHW__DG_ROUND_NEAREST_EVEN)
        for (size_t i = 0; i < ny; i++)
            yc[i] = iohw__dg_round(b->p->dtype, v->out_round, yc[i]);
    if (iohw_layout_data_map_as(b->p, 1, v->out_layout, &m, NULL) != 0)
        goto done;
    iohw_layout_from_canonical(&m, sizeof(double), yc, vc->ym);
    iohw_layout_from_canonical(&m, sizeof(double), ec, vc->em);
    iohw_dtype_from_double(b->p->dtype, vc->ym, vc->yd, ny);

    vc->t.p = *b->p;
    vc->t.terms_max = terms;
    vc->t.y = vc->yd;
    vc->t.y_f64 = vc->ym;
    vc->t.err_bound = vc->em;
    /* Judged by the case's own rule: bit for bit on exact fills, so that a
     * variant that differs from the oracle only within the tolerance is not
     * named for an output that differs from it only by a rounding. */
    memcpy(vc->t.fill, b->c->fill, sizeof vc->t.fill);
    rc = 0;
done:
    free(yc);
    free(ec);
    if (rc != 0)
        variant_case_free(vc);
    return rc;
}

/* 1 when y passes against the variant (the rule of a declared flush for a
 * flushing variant).  sentinel_bits as in iohw_compare. */
static int passes_variant(const iohw__dg_variant *v, const variant_case *vc,
                          const void *y, const void *sentinel_bits)
{
    iohw_result r;
    iohw_result_init(&r);
    if (v->judge_flushed)
        iohw_compare_flushed(&vc->t, y, sentinel_bits, &r);
    else
        iohw_compare_float(&vc->t, y, sentinel_bits, &r);
    return r.status == IOHW_RESULT_PASS;
}

/* 1 when y matches the variant within the tolerance, 0 when not, -1 when
 * the variant could not be evaluated.  sentinel_bits as in iohw_compare. */
static int matches_variant(const iohw__dg_base *b, const iohw__dg_variant *v,
                           const void *y, const void *sentinel_bits)
{
    variant_case vc;
    if (variant_case_make(b, v, &vc) != 0)
        return -1;
    int rc = passes_variant(v, &vc, y, sentinel_bits);
    variant_case_free(&vc);
    return rc;
}

/* 1 when y is not finite exactly where the variant's output is (of any
 * kind: an accumulation that overflows may end in NaN where the exact sum
 * rounds to Inf) and some element is finite in both; then `checked` is y
 * with those elements copied from the variant, so that the comparison
 * judges the finite ones alone. */
static int nonfinite_alike(const iohw__dg_base *b, const variant_case *vc,
                           const void *y, void *checked)
{
    const iohw_dtype dt = b->p->dtype;
    const size_t es = iohw_dtype_size(dt);
    int64_t finite = 0;
    for (int64_t i = 0; i < b->ny; i++) {
        const int got = isfinite(iohw_dtype_load(dt, y, (size_t)i));
        if (got != isfinite(iohw_dtype_load(dt, vc->yd, (size_t)i)))
            return 0;
        finite += got;
        memcpy((char *)checked + (size_t)i * es,
               (const char *)(got ? y : vc->yd) + (size_t)i * es, es);
    }
    return finite > 0;
}

/* Judges y against one variant: 1 when it matches; otherwise, with
 * `checked` (room for y) given, *consistent is set when y is consistent
 * with it (nonfinite_alike, and the finite elements pass).  -1 when the
 * variant could not be evaluated. */
static int judge_variant(const iohw__dg_base *b, const iohw__dg_variant *v,
                         const void *y, void *checked, int *consistent)
{
    variant_case vc;
    if (variant_case_make(b, v, &vc) != 0)
        return -1;
    int rc = passes_variant(v, &vc, y, NULL);
    if (rc != 1 && checked != NULL && nonfinite_alike(b, &vc, y, checked))
        *consistent = passes_variant(v, &vc, checked, NULL);
    variant_case_free(&vc);
    return rc;
}

static void variant_init(const iohw__dg_base *b, iohw__dg_variant *v)
{
    memset(v, 0, sizeof *v);
    v->p = *b->p;
    for (int a = 0; a < b->rank; a++) {
        v->begin[a] = b->p->pad_begin[a];
        v->hi[a] = b->p->out_size[a];
    }
    v->x = b->x;
    v->w = b->w;
    v->bias = b->bias;
    memcpy(v->out_layout, b->p->data_layout, sizeof v->out_layout);
    v->out_layout[sizeof v->out_layout - 1] = '\0';
}

static void variant_free(iohw__dg_variant *v)
{
    for (int i = 0; i < 3; i++)
        free(v->owned[i]);
}

/* --- the driver ------------------------------------------------------ */

static void say(char *buf, size_t n, const char *text)
{
    if (buf != NULL && n > 0)
        snprintf(buf, n, "%s", text);
}

/* 1 when c has its inputs and outputs and a valid problem. */
static int complete(const iohw_case *c)
{
    return c != NULL && c->x != NULL && c->w != NULL && c->y != NULL &&
           c->y_f64 != NULL && c->err_bound != NULL &&
           (!c->p.has_bias || c->bias != NULL) &&
           iohw_problem_validate(&c->p, NULL) == 0;
}

/* 1 when the variant's inputs differ from the case's. */
static int inputs_changed(const iohw__dg_base *b, const iohw__dg_variant *v)
{
    return memcmp(v->x, b->x, (size_t)b->nx * sizeof *b->x) != 0 ||
           memcmp(v->w, b->w, (size_t)b->nw * sizeof *b->w) != 0 ||
           (b->bias != NULL &&
            memcmp(v->bias, b->bias, (size_t)b->nb * sizeof *b->bias) != 0);
}

int iohw_diagnose_flush_passes(const iohw_case *c, const void *y,
                               const void *sentinel_bits)
{
    iohw__dg_base b;
    iohw__dg_variant v;
    iohw_result r;
    int rc;

    if (y == NULL || !complete(c))
        return -1;
    iohw_result_init(&r);
    iohw_compare_flushed(c, y, sentinel_bits, &r);
    if (r.status == IOHW_RESULT_PASS)
        return 1;
    if (base_init(c, &b) != 0)
        return -1;
    variant_init(&b, &v);
    rc = iohw__dg_subnormals_flushed(&b, &v);
    if (rc >= 0)
        rc = inputs_changed(&b, &v) ? matches_variant(&b, &v, y, sentinel_bits) : 0;
    variant_free(&v);
    base_free(&b);
    return rc;
}

/* A quantized case: its misreadings (diagnose_quant.c), bit for bit. */
int iohw_diagnose_quant(const iohw_case *c, const void *y, char *buf, size_t n)
{
    iohw__dgq_case qc;
    say(buf, n, "");
    if (c == NULL || y == NULL)
        return 0;
    memset(&qc, 0, sizeof qc);
    qc.p = c->p;
    qc.x = c->x;
    qc.w = c->w;
    qc.bias = c->p.has_bias ? c->bias : NULL;
    if (c->x == NULL || c->w == NULL || c->y == NULL ||
        iohw_quant_from_problem(&c->p, c->requant, &qc.q, NULL) != 0)
        return 0;
    return iohw__dg_quant(&qc, y, buf, n);
}

/* 1 when y is NaN or infinite somewhere the oracle's output is finite
 * (2 when infinite there: it overflows). */
static int overflows(const iohw_case *c, const void *y)
{
    const iohw_dtype dt = c->p.dtype;
    const int64_t n = iohw_problem_y_count(&c->p);
    int found = 0;
    for (int64_t i = 0; i < n && found < 2; i++) {
        const double g = iohw_dtype_load(dt, y, (size_t)i);
        if (!isfinite(g) && isfinite(iohw_dtype_load(dt, c->y, (size_t)i)))
            found = isinf(g) ? 2 : 1;
    }
    return found;
}

/* The longest diagnosis sentence built. */
#define SENTENCE_MAX 256

/* Appends name to the sentence in line (*len of SENTENCE_MAX used; set
 * to SENTENCE_MAX when it does not fit). */
static void add_name(char *line, size_t *len, int first, const char *name)
{
    int k = snprintf(line + *len, SENTENCE_MAX - *len, "%s%s",
                     first ? "matches the oracle with " : ", or with ", name);
    if (k > 0 && (size_t)k < SENTENCE_MAX - *len) {
        *len += (size_t)k;
    } else {
        line[*len] = '\0';            /* keep the names that fit, stop */
        *len = SENTENCE_MAX;
    }
}

/* The sentence naming every variant y matches into buf; failing a match,
 * the one variant y is consistent with, if only one is (checked: room for
 * y when y overflows, else NULL; why: what makes it not checkable).
 * Returns 1 when something was named. */
static int name_variants(const iohw__dg_base *b, const void *y, void *checked,
                         const char *why, char *buf, size_t n)
{
    char line[SENTENCE_MAX];
    size_t len = 0;
    int found = 0, nconsistent = 0, consistent_with = -1;
    for (int i = 1; i < iohw__dg_table_count && len < sizeof line; i++) {
        iohw__dg_variant v;
        int consistent = 0;
        variant_init(b, &v);
        if (iohw__dg_table[i].build(b, &v) == 1 &&
            judge_variant(b, &v, y, found ? NULL : checked, &consistent) == 1) {
            add_name(line, &len, !found, iohw__dg_table[i].name);
            found = 1;
        }
        if (consistent) {
            nconsistent++;
            consistent_with = i;
        }
        variant_free(&v);
    }
    if (found)
        say(buf, n, line);
    else if (nconsistent == 1 && buf != NULL && n > 0)
        snprintf(buf, n, IOHW_DIAGNOSE_CONSISTENT "%s (not checkable: %s)",
                 iohw__dg_table[consistent_with].name, why);
    return found || nconsistent == 1;
}

int iohw_diagnose_float(const iohw_case *c, const void *y, char *buf, size_t n)
{
    iohw__dg_base b;

    say(buf, n, "");
    if (y == NULL || !complete(c))
        return 0;

    /* 1. Outputs left unwritten. */
    if (looks_unwritten(c, y)) {
        say(buf, n, iohw__dg_table[0].name);
        return 1;
    }

    /* 2. Each misinterpretation in turn; every one that matches is named
     * (different bugs can give the same numbers on one case); failing
     * that, an output that overflows where the oracle's does not is
     * checked for the one misreading it is consistent with. */
    /* products per evaluation: each x element times Mg * K weights */
    if ((double)iohw_problem_x_count(&c->p) * (double)iohw_problem_w_count(&c->p) /
            (double)c->p.in_channels > (double)DIAGNOSE_MAX_WORK)
        return 0;
    /* 3. A smaller problem's output written densely at y's head, its
     * tail never written (specification section 3.5). */
    if (iohw_diagnose_shape(c, y, NULL, NULL, 0, buf, n) == IOHW_SHAPE_PROVEN)
        return 1;
    if (!spread_ok(c, y))
        return 0;
    const int over = overflows(c, y);
    void *checked = over ? malloc((size_t)iohw_problem_y_count(&c->p) *
                                  iohw_dtype_size(c->p.dtype)) : NULL;
    if ((over && checked == NULL) || base_init(c, &b) != 0) {
        free(checked);
        say(buf, n, "no diagnosis: out of memory");
        return 0;
    }
    b.y = y;
    int found = name_variants(&b, y, checked,
                              over == 2 ? "the output overflows" : "the output is NaN",
                              buf, n);
    free(checked);
    base_free(&b);
    return found;
}
