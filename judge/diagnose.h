/*
 * judge/diagnose.h - naming the bug behind a failure.
 *
 * When a case fails, the oracle is re-run under each classic
 * misinterpretation of the problem (weight I and O exchanged, kernel flipped,
 * pad begin/end exchanged or averaged, output_padding dropped or put at the
 * beginning, groups interleaved, bias indexed per group, dilation off by one
 * or 0-based, data layout read as NCHW or NHWC, spatial axes exchanged,
 * outputs left unwritten...) and under each numeric fault real kernels ship
 * (subnormals flushed, the output truncated or rounded half away from zero,
 * overflow saturated, zero products skipped, x or w rounded to bf16), and
 * the backend's output is compared with each.
 */
#ifndef IOHW_DIAGNOSE_H
#define IOHW_DIAGNOSE_H

#include <stddef.h>

#include "cases/case.h"

/* Writes to buf a sentence naming every misinterpretation whose output
 * matches y within the float case's tolerance, e.g. "matches the oracle with
 * weight I and O exchanged" or "matches the oracle with pads averaged, or
 * with output_padding at the beginning" (different bugs can give the same
 * numbers on one case), cut to the buffer; "" when none does ("no
 * diagnosis: out of memory" when the copies of x and w cannot be made).  c
 * must have inputs and outputs loaded.  Returns 1 when a match was found, 0
 * otherwise.  Failing a match, an output that overflows (or is NaN) where
 * the oracle's is finite gets IOHW_DIAGNOSE_CONSISTENT's sentence when
 * exactly one misinterpretation is consistent with it.  judge.h's
 * iohw_diagnose picks this or iohw_diagnose_quant by the case's kind. */
int iohw_diagnose_float(const iohw_case *c, const void *y, char *buf, size_t n);

/* The same for a quantized case: the misreadings of diagnose_quant.h,
 * bit for bit. */
int iohw_diagnose_quant(const iohw_case *c, const void *y, char *buf, size_t n);

/* The same for a backward case (specification section 13): dx of a
 * BWD_D case, dw (and db) of a BWD_W case, against the backward
 * misreadings (judge/diagnose_bwd.c). */
int iohw_diagnose_bwd_data(const iohw_case *c, const void *y, char *buf,
                           size_t n);
int iohw_diagnose_bwd_weights(const iohw_case *c, const void *y, char *buf,
                              size_t n);

/* The start of the diagnosis of an output that could not be checked (it
 * overflows, or is NaN) but agrees with a misreading wherever it can be:
 * "consistent with weight I and O exchanged (not checkable: the output
 * overflows)" (or "... the output is NaN)" when no element is infinite).
 * iohw_diagnose_find reads it as that misreading. */
#define IOHW_DIAGNOSE_CONSISTENT "consistent with "

/* Judging under a declared subnormal flush (`iohw run --subnormals
 * flush`, specification section 3.4): 1 when y passes iohw_compare_flushed
 * against the case's oracle, or against the oracle re-evaluated with the
 * subnormal values of x, w and bias (in the case's dtype) set to zero; 0
 * when it does not; -1 when c lacks inputs or outputs or memory ran out.
 * sentinel_bits as in iohw_compare (unwritten elements never pass). */
int iohw_diagnose_flush_passes(const iohw_case *c, const void *y,
                               const void *sentinel_bits);

/* Number of misinterpretations tried, and the name of each (for docs and
 * tests): "weight I and O exchanged", ... */
int iohw_diagnose_count(void);
const char *iohw_diagnose_name(int i);
/* The one-line meaning of misinterpretation i for a backend author ("your
 * kernel reads the weight as OIHW: index w[m][c] where the definition has
 * w[c][m]"); NULL outside the table. */
const char *iohw_diagnose_meaning(int i);
/* The index of the first misinterpretation named in a diagnosis sentence
 * ("matches the oracle with X[, or with Y]" or a bare name), or -1. */
int iohw_diagnose_find(const char *sentence);

#endif
