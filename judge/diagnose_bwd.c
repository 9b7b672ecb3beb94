/*
 * judge/diagnose_bwd.c - naming the bug behind a failed backward case
 * (diagnose.h; specification sections 3.5 and 13).
 *
 * For a failing output y (dx of a BWD_D case, dw then db of a BWD_W case),
 * each misreading of diagnose_bwd_variants.c is evaluated with the
 * oracle's backward definition and placed in the case's layout and dtype;
 * it is named when
 *   - it is distinguishing: its output does not pass against the case's
 *     own (the oracle's), so it can tell the bug from a right answer;
 *   - y passes against it on every element, by the case's rule (bit for
 *     bit on exact fills, else the tolerance of section 3.3 with the
 *     misreading's own bound);
 *   - y carries a trace (iohw__dg_spread): not one value everywhere (an
 *     all-zero dx "matches" several misreadings at once), not only NaN or
 *     Inf where it differs.
 * Every misreading that qualifies is named, in the table's order ("matches
 * the oracle with A, or with B"): two bugs can give the same numbers on
 * one case.  Cases larger than DIAGNOSE_MAX_WORK products are not
 * diagnosed.
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
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

#define DIAGNOSE_MAX_WORK ((int64_t)1 << 26)
#define SENTENCE_MAX 256

static void say(char *buf, size_t n, const char *text)
{
    if (buf != NULL && n > 0)
        snprintf(buf, n, "%s", text);
}

/* --- the case's inputs, canonical -------------------------------------- */

static double *read_data(const iohw_case *c, int output, const void *mem)
{
    iohw_layout_map m;
    const size_t es = iohw_dtype_size(c->p.dtype);
    if (mem == NULL || iohw_layout_data_map_as(&c->p, output, c->p.data_layout, &m, NULL) != 0)
        return NULL;
    void *tmp = malloc((size_t)m.count * es);
    double *out = malloc((size_t)m.count * sizeof *out);
    if (tmp != NULL && out != NULL) {
        iohw_layout_to_canonical(&m, es, mem, tmp);
        iohw_dtype_to_double(c->p.dtype, tmp, out, (size_t)m.count);
    } else {
        free(out);
        out = NULL;
    }
    free(tmp);
    return out;
}

static void base_free(iohw__dgb_base *b)
{
    free(b->x);
    free(b->w);
    free(b->dy);
}

static int base_init(const iohw_case *c, iohw__dgb_base *b)
{
    const iohw_problem *p = &c->p;
    memset(b, 0, sizeof *b);
    b->c = c;
    b->p = p;
    b->rank = (int)p->rank;
    b->dd = p->dtype == IOHW_F64;
    b->N = p->batch;
    b->C_in = p->in_channels;
    b->C_out = p->out_channels;
    b->G = p->groups;
    b->Cg = b->C_in / b->G;
    b->Mg = b->C_out / b->G;
    b->L = b->K = b->O = 1;
    for (int A = 0; A < 3; A++) {
        const int a = A - (3 - b->rank);
        b->L3[A] = a < 0 ? 1 : p->in_size[a];
        b->K3[A] = a < 0 ? 1 : p->kernel[a];
        b->O3[A] = a < 0 ? 1 : p->out_size[a];
        b->L *= b->L3[A];
        b->K *= b->K3[A];
        b->O *= b->O3[A];
    }
    b->nx = iohw_problem_x_count(p);
    b->nw = iohw_problem_w_count(p);
    b->nb = p->direction == IOHW_DIR_BWD_W ? iohw_problem_bias_count(p) : 0;
    b->ndy = iohw_problem_dy_count(p);
    b->nout = iohw_problem_out_count(p);
    b->dy = read_data(c, 1, c->dy);
    if (p->direction == IOHW_DIR_BWD_D)
        b->w = iohw__dg_read_w(c, p->weight_layout);
    else
        b->x = iohw__dg_read_x(c, p->data_layout);
    if (b->dy == NULL || (b->w == NULL && b->x == NULL)) {
        base_free(b);
        return -1;
    }
    return 0;
}

/* --- a misreading as a case ------------------------------------------- */

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

/* Canonical o (nout doubles) into the case's layout: dx in the data
 * layout (C = C_in), dw in the weight layout (I and O exchanged when
 * io_swapped) followed by db. */
static int place(const iohw__dgb_base *b, const iohw__dgb_out *o, double *ym,
                 double *em)
{
    iohw_layout_map m;
    if (b->p->direction == IOHW_DIR_BWD_D) {
        if (iohw_layout_data_map_as(b->p, 0, b->p->data_layout, &m, NULL) != 0)
            return -1;
    } else {
        char wl[16];
        memcpy(wl, b->p->weight_layout, sizeof wl);
        wl[sizeof wl - 1] = '\0';
        for (char *s = wl; o->io_swapped && *s != '\0'; s++)
            *s = *s == 'I' ? 'O' : *s == 'O' ? 'I' : *s;
        if (iohw_layout_weight_map_as(b->p, wl, &m, NULL) != 0)
            return -1;
        memcpy(ym + b->nw, o->out + b->nw, (size_t)b->nb * sizeof *ym);
        memcpy(em + b->nw, o->eb + b->nw, (size_t)b->nb * sizeof *em);
    }
    iohw_layout_from_canonical(&m, sizeof(double), o->out, ym);
    iohw_layout_from_canonical(&m, sizeof(double), o->eb, em);
    return 0;
}

/* Misreading i as a case t judged by the case's own rule.  1 when it
 * applies, 0 when not, -1 on failure. */
static int variant_case_make(const iohw__dgb_base *b, int i, variant_case *vc)
{
    const size_t n = (size_t)b->nout;
    iohw__dgb_out o;
    int rc = -1;

    memset(vc, 0, sizeof *vc);
    memset(&o, 0, sizeof o);
    o.out = calloc(n, sizeof *o.out);
    o.eb = calloc(n, sizeof *o.eb);
    vc->ym = malloc(n * sizeof *vc->ym);
    vc->em = malloc(n * sizeof *vc->em);
    vc->yd = malloc(n * iohw_dtype_size(b->p->dtype));
    if (o.out != NULL && o.eb != NULL && vc->ym != NULL && vc->em != NULL &&
        vc->yd != NULL)
        rc = iohw__dgb_table[i].build(b, &o);
    if (rc == 1 && place(b, &o, vc->ym, vc->em) != 0)
        rc = -1;
    if (rc == 1) {
        const int64_t own = iohw_oracle_terms_max(b->p);
        iohw_dtype_from_double(b->p->dtype, vc->ym, vc->yd, n);
        vc->t.p = *b->p;
        vc->t.terms_max = o.terms > own ? o.terms : own;
        vc->t.y = vc->yd;
        vc->t.y_f64 = vc->ym;
        vc->t.err_bound = vc->em;
        memcpy(vc->t.fill, b->c->fill, sizeof vc->t.fill);
    }
    free(o.out);
    free(o.eb);
    if (rc != 1)
        variant_case_free(vc);
    return rc;
}

/* 1 when y passes against t by the rule of specification section 3.3
 * (t's fill, terms_max and bounds).  The outputs are judged as one flat
 * vector of out_count elements, t's problem stated as the forward problem
 * whose y has that many (rank 1, one channel, a 1-tap kernel): the rule
 * is element by element, so only the count matters, and it holds whatever
 * the comparison makes of a backward problem's coordinates. */
static int passes(const iohw_case *t, const void *y)
{
    iohw_case flat = *t;
    iohw_result r;
    iohw_problem_init(&flat.p);
    flat.p.rank = 1;
    flat.p.in_channels = flat.p.out_channels = 1;
    flat.p.in_size[0] = iohw_problem_out_count(&t->p);
    flat.p.kernel[0] = 1;
    flat.p.dtype = t->p.dtype;
    if (iohw_problem_finish(&flat.p, NULL) != 0)
        return 0;
    iohw_result_init(&r);
    iohw_compare_float(&flat, y, NULL, &r);
    return r.status == IOHW_RESULT_PASS;
}

/* 1 when y matches misreading i and the misreading differs from the
 * oracle on this case. */
static int names(const iohw__dgb_base *b, int i, const void *y)
{
    variant_case vc;
    if (variant_case_make(b, i, &vc) != 1)
        return 0;
    const int rc = !passes(b->c, vc.yd) && passes(&vc.t, y);
    variant_case_free(&vc);
    return rc;
}

/* --- the driver ------------------------------------------------------ */

/* 1 when y may carry a diagnosis (diagnose_quant.h's iohw__dg_spread). */
static int spread_ok(const iohw_case *c, const void *y)
{
    const iohw_dtype dt = c->p.dtype;
    const size_t es = iohw_dtype_size(dt);
    const int64_t n = iohw_problem_out_count(&c->p);
    iohw__dg_spread s;
    memset(&s, 0, sizeof s);
    for (int64_t i = 0; i < n; i++)
        iohw__dg_spread_add(&s, iohw_dtype_load(dt, y, (size_t)i),
                            memcmp((const char *)y + (size_t)i * es,
                                   (const char *)c->y + (size_t)i * es, es) != 0,
                            -INFINITY, INFINITY);
    return iohw__dg_spread_ok(&s);
}

static int complete(const iohw_case *c, int32_t direction)
{
    if (c == NULL || c->p.direction != direction || c->dy == NULL || c->y == NULL ||
        c->y_f64 == NULL || c->err_bound == NULL ||
        iohw_problem_validate(&c->p, NULL) != 0)
        return 0;
    return direction == IOHW_DIR_BWD_D ? c->w != NULL : c->x != NULL;
}

static int diagnose(const iohw_case *c, int32_t direction, const void *y,
                    char *buf, size_t n)
{
    iohw__dgb_base b;
    char line[SENTENCE_MAX];
    size_t len = 0;
    int found = 0;

    say(buf, n, "");
    if (y == NULL || !complete(c, direction))
        return 0;
    /* products per evaluation: each x (dx) element times Mg * K taps */
    if ((double)iohw_problem_x_count(&c->p) * (double)iohw_problem_w_count(&c->p) /
            (double)c->p.in_channels > (double)DIAGNOSE_MAX_WORK ||
        passes(c, y) || !spread_ok(c, y))
        return 0;
    if (base_init(c, &b) != 0) {
        say(buf, n, "no diagnosis: out of memory");
        return 0;
    }
    line[0] = '\0';
    for (int i = 0; i < iohw__dgb_table_count && len < sizeof line; i++) {
        if (!names(&b, i, y))
            continue;
        const int k = snprintf(line + len, sizeof line - len, "%s%s",
                               found ? ", or with " : "matches the oracle with ",
                               iohw__dgb_table[i].name);
        if (k < 0 || (size_t)k >= sizeof line - len) {
            line[len] = '\0';         /* keep the names that fit, stop */
            break;
        }
        len += (size_t)k;
        found = 1;
    }
    base_free(&b);
    if (found)
        say(buf, n, line);
    return found;
}

int iohw_diagnose_bwd_data(const iohw_case *c, const void *y, char *buf,
                           size_t n)
{
    return diagnose(c, IOHW_DIR_BWD_D, y, buf, n);
}

int iohw_diagnose_bwd_weights(const iohw_case *c, const void *y, char *buf,
                              size_t n)
{
    return diagnose(c, IOHW_DIR_BWD_W, y, buf, n);
}
