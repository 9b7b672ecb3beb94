/*
 * judge/judge.c - judging a backend's output for a case (judge.h): the
 * case's kind picks a row of rules, once; each row is a comparison, the
 * declarations that may turn its FAIL into a noted PASS, and a diagnosis.
 */
#include "judge/judge.h"

#include <stdio.h>

#include "judge/compare.h"
#include "judge/diagnose.h"
#include "judge/diagnose_shape.h"
#include "cases/answer.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

typedef void compare_fn(const iohw_case *c, const void *y,
                        const void *sentinel_bits, iohw_result *r);
typedef int diagnose_fn(const iohw_case *c, const void *y, char *buf,
                        size_t n);
/* 1 when a declaration of o turns r's FAIL into a noted PASS. */
typedef int declared_fn(const iohw_case *c, const void *y,
                        const void *sentinel_bits,
                        const iohw_judge_options *o, iohw_result *r);

typedef struct kind_rules {
    compare_fn *compare;
    declared_fn *declared;
    diagnose_fn *diagnose;
} kind_rules;

iohw_case_kind iohw_case_kind_of(const iohw_problem *p)
{
    if (p->direction == IOHW_DIR_BWD_D)
        return IOHW_KIND_BWD_DATA;
    if (p->direction == IOHW_DIR_BWD_W)
        return IOHW_KIND_BWD_WEIGHTS;
    return iohw_problem_is_quant(p) ? IOHW_KIND_QUANT : IOHW_KIND_FLOAT;
}

/* A float case whose dtype's subnormals are declared flushed: 1 when the
 * output passes the rule of a declared flush (then r is a PASS with the
 * note; its counts stay those of the default rule). */
static int flush_declared(const iohw_case *c, const void *y,
                          const void *sentinel_bits,
                          const iohw_judge_options *o, iohw_result *r)
{
    if (!(o->subnormals_flush & IOHW_SUBNORMALS_FLUSH_BIT(c->p.dtype)) ||
        iohw_diagnose_flush_passes(c, y, sentinel_bits) != 1)
        return 0;
    r->status = IOHW_RESULT_PASS;
    r->message = iohw_text_fmt(
             IOHW_RESULT_NOTE_FLUSHED ": %lld of %lld output elements differ "
             "from the IEEE oracle only as flushing subnormals to zero does",
             (long long)r->mismatches, (long long)r->elements);
    return 1;
}

/* A quantized case under a declared rounding (compare.h). */
static int rounding_declared(const iohw_case *c, const void *y,
                             const void *sentinel_bits,
                             const iohw_judge_options *o, iohw_result *r)
{
    (void)sentinel_bits;
    return iohw_compare_declared_rounding(c, y, o->rounding, r);
}

/* A backward case (specification section 13): no declaration applies
 * (the flush rule re-evaluates the forward definition). */
static int nothing_declared(const iohw_case *c, const void *y,
                            const void *sentinel_bits,
                            const iohw_judge_options *o, iohw_result *r)
{
    (void)c, (void)y, (void)sentinel_bits, (void)o, (void)r;
    return 0;
}

static const kind_rules RULES[IOHW_KIND_COUNT] = {
    [IOHW_KIND_FLOAT] = {iohw_compare_float, flush_declared,
                         iohw_diagnose_float},
    [IOHW_KIND_QUANT] = {iohw_compare_quant, rounding_declared,
                         iohw_diagnose_quant},
    [IOHW_KIND_BWD_DATA] = {iohw_compare_float, nothing_declared,
                            iohw_diagnose_bwd_data},
    [IOHW_KIND_BWD_WEIGHTS] = {iohw_compare_float, nothing_declared,
                               iohw_diagnose_bwd_weights},
};

static const kind_rules *rules_of(const iohw_case *c)
{
    return &RULES[c != NULL ? iohw_case_kind_of(&c->p) : IOHW_KIND_FLOAT];
}

/* "dx[N=0,C=2,H=1,W=3]", "dw[I=1,O=0,H=2,W=1]" (the layout's letters in
 * its order) or "db[3]": the tensor and place of a backward output's
 * element i (specification section 13); "" for a forward case. */
static void name_element(const iohw_problem *p, int64_t i, char *buf,
                         size_t n)
{
    iohw_layout_map m;
    buf[0] = '\0';
    if (!iohw_problem_is_backward(p))
        return;
    const int64_t wc = iohw_problem_w_count(p);
    if (p->direction == IOHW_DIR_BWD_W && i >= wc) {
        snprintf(buf, n, "db[%lld]", (long long)(i - wc));
        return;
    }
    int rc = p->direction == IOHW_DIR_BWD_W
                 ? iohw_layout_weight_map(p, &m, NULL)
                 : iohw_layout_data_map(p, 0, &m, NULL);
    if (rc != 0)
        return;
    int64_t v[IOHW_LAYOUT_MAX_DIMS], idx = i;
    for (int k = m.ndim - 1; k >= 0; k--) {
        v[k] = idx % m.shape[k];
        idx /= m.shape[k];
    }
    size_t len = (size_t)snprintf(buf, n, "%s[",
                                  p->direction == IOHW_DIR_BWD_W ? "dw" : "dx");
    for (int k = 0; k < m.ndim && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%c=%lld", k ? "," : "",
                                m.letters[k], (long long)v[k]);
    if (len < n)
        snprintf(buf + len, n - len, "]");
}

/* A FAIL without a message (a quantized comparison writes its own); a
 * backward one names its first mismatching element. */
static void describe_failure(const iohw_case *c, iohw_result *r)
{
    char worst[256], first[128];
    if (r->message[0] != '\0')
        return;
    iohw_result_worst_error(r, worst, sizeof worst);
    name_element(&c->p, r->npoints > 0 ? r->points[0].index : 0, first,
                 sizeof first);
    if (first[0] != '\0' && r->npoints > 0) {
        r->message = iohw_text_fmt(
                 "%lld of %lld %s elements outside the tolerance%s, first at "
                 "%s (expected %.9g, got %.9g); %s", (long long)r->mismatches,
                 (long long)r->elements,
                 c->p.direction == IOHW_DIR_BWD_D ? "dx" : "dw/db",
                 r->unwritten > 0 ? " (some never written)" : "", first,
                 r->points[0].expected, r->points[0].got, worst);
        return;
    }
    if (r->unwritten > 0)
        r->message = iohw_text_fmt(
                 "%lld of %lld output elements outside the tolerance, %lld of "
                 "them never written; %s", (long long)r->mismatches,
                 (long long)r->elements, (long long)r->unwritten, worst);
    else
        r->message = iohw_text_fmt(
                 "%lld of %lld output elements outside the tolerance; %s",
                 (long long)r->mismatches, (long long)r->elements, worst);
}

void iohw_judge(const iohw_case *c, const void *y, const void *sentinel_bits,
                const iohw_judge_options *o, iohw_result *r)
{
    static const iohw_judge_options none;
    const kind_rules *k = rules_of(c);
    if (o == NULL)
        o = &none;
    k->compare(c, y, sentinel_bits, r);
    if (r == NULL || r->status != IOHW_RESULT_FAIL ||
        k->declared(c, y, sentinel_bits, o, r))
        return;
    if (o->diagnose) {
        char d[1024] = "";  /* names of the project's own, well below this */
        k->diagnose(c, y, d, sizeof d);
        r->diagnosis = iohw_text_keep(d);
    }
    describe_failure(c, r);
}

void iohw_judge_call_error(const iohw_case *c, const void *y,
                           const void *sentinel_bits, const char *message,
                           const iohw_judge_options *o, iohw_result *r)
{
    int64_t dims[IOHW_LAYOUT_MAX_DIMS];
    if (c == NULL || r == NULL || o == NULL || !o->diagnose ||
        (iohw_case_kind_of(&c->p) != IOHW_KIND_FLOAT &&
         iohw_case_kind_of(&c->p) != IOHW_KIND_QUANT))
        return;
    int nd = iohw_answer_shape_parse(message, dims, IOHW_LAYOUT_MAX_DIMS);
    if (nd == 0)
        return;
    /* negative: the values were not kept, the shape alone speaks */
    char d[1024] = "";
    iohw_diagnose_shape(c, nd > 0 ? y : NULL, sentinel_bits, dims,
                        nd > 0 ? nd : -nd, d, sizeof d);
    r->diagnosis = iohw_text_keep(d);
}

void iohw_compare(const iohw_case *c, const void *y, const void *sentinel_bits,
                  iohw_result *r)
{
    rules_of(c)->compare(c, y, sentinel_bits, r);
}

int iohw_diagnose(const iohw_case *c, const void *y, char *buf, size_t n)
{
    return rules_of(c)->diagnose(c, y, buf, n);
}
