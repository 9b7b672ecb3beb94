/*
 * judge/judge.c - judging a backend's output for a case (judge.h): the
 * case's kind picks a row of rules, once; each row is a comparison, the
 * declarations that may turn its FAIL into a noted PASS, and a diagnosis.
 */
#include "judge/judge.h"

#include <stdio.h>

#include "judge/compare.h"
#include "judge/diagnose.h"
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
    snprintf(r->message, sizeof r->message,
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

static const kind_rules RULES[IOHW_KIND_COUNT] = {
    [IOHW_KIND_FLOAT] = {iohw_compare_float, flush_declared,
                         iohw_diagnose_float},
    [IOHW_KIND_QUANT] = {iohw_compare_quant, rounding_declared,
                         iohw_diagnose_quant},
};

static const kind_rules *rules_of(const iohw_case *c)
{
    return &RULES[c != NULL ? iohw_case_kind_of(&c->p) : IOHW_KIND_FLOAT];
}

/* A FAIL without a message (a quantized comparison writes its own). */
static void describe_failure(iohw_result *r)
{
    char worst[256];
    if (r->message[0] != '\0')
        return;
    iohw_result_worst_error(r, worst, sizeof worst);
    if (r->unwritten > 0)
        snprintf(r->message, sizeof r->message,
                 "%lld of %lld output elements outside the tolerance, %lld of "
                 "them never written; %s", (long long)r->mismatches,
                 (long long)r->elements, (long long)r->unwritten, worst);
    else
        snprintf(r->message, sizeof r->message,
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
    if (o->diagnose)
        k->diagnose(c, y, r->diagnosis, sizeof r->diagnosis);
    describe_failure(r);
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
