/*
 * judge/judge.h - judging a backend's output for a case: the one entry
 * point that takes a case and the output and returns the result, with the
 * rules of the case's kind (float or quantized) chosen once, at its top.
 *
 * A float case: compared within its tolerance (compare.h); a FAIL passes
 * with a note when the run declares its dtype's subnormals flushed and the
 * output obeys that rule; a FAIL left is diagnosed (diagnose.h) and
 * described.  A quantized case: compared exactly; a FAIL passes with a
 * note when it is the case under the declared rounding, differing only at
 * ties; a FAIL left is diagnosed.
 */
#ifndef IOHW_JUDGE_H
#define IOHW_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "cases/case.h"
#include "results/result.h"

/* What kind of case a problem makes: each kind has its own comparison,
 * declarations and diagnosis.  A new kind is one more entry here and one
 * more row in judge.c's table. */
typedef enum iohw_case_kind {
    IOHW_KIND_FLOAT,
    IOHW_KIND_QUANT,
    IOHW_KIND_BWD_DATA,     /* dx (specification section 13) */
    IOHW_KIND_BWD_WEIGHTS,  /* dw, and db with a bias */
    IOHW_KIND_COUNT
} iohw_case_kind;

iohw_case_kind iohw_case_kind_of(const iohw_problem *p);

typedef struct iohw_judge_options {
    int diagnose;               /* name the bug behind a FAIL */
    int32_t rounding;           /* the declared rounding (IOHW_ROUND_*),
                                   0: none */
    unsigned subnormals_flush;  /* dtypes whose subnormals are declared
                                   flushed (IOHW_SUBNORMALS_FLUSH_BIT) */
} iohw_judge_options;

/* Judges y (the backend's output, in the case's y dtype and data layout)
 * against c (inputs and outputs loaded).  sentinel_bits as in
 * iohw_compare; o NULL: no declaration, no diagnosis.  r's status,
 * counts, points, message and diagnosis are set; its other fields (the
 * timing, the warnings) are left alone. */
void iohw_judge(const iohw_case *c, const void *y, const void *sentinel_bits,
                const iohw_judge_options *o, iohw_result *r);

/* A backend call that returned an error (r already an ERROR): when
 * message (the backend's own) names the shape an exec program's y had
 * instead of the case's (cases/answer.h, IOHW_ANSWER_SHAPE_WORDS), a
 * forward float case gets the shape diagnosis of specification section
 * 3.5 (diagnose_shape.h) in r->diagnosis, its values read from y's head
 * when the answer kept them; r's status and message stay. */
void iohw_judge_call_error(const iohw_case *c, const void *y,
                           const void *sentinel_bits, const char *message,
                           const iohw_judge_options *o, iohw_result *r);

/* The comparison of c's kind alone (compare.h's iohw_compare_float or
 * iohw_compare_quant); c NULL is compared as a float case (INVALID). */
void iohw_compare(const iohw_case *c, const void *y, const void *sentinel_bits,
                  iohw_result *r);

/* The diagnosis of c's kind alone (diagnose.h's iohw_diagnose_float or
 * iohw_diagnose_quant). */
int iohw_diagnose(const iohw_case *c, const void *y, char *buf, size_t n);

#endif
