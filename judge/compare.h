/*
 * judge/compare.h - judging a backend's output against the oracle
 * (specification section 3).
 *
 * Default rule, rigorous for any summation order:
 *   |got - y_f64| <= (terms_max + 2) * u * err_bound + half an ulp of the
 *   rounded result (in the case dtype).
 * Exact fills: got must equal the case's stored y as a value, compared with
 * == (so -0 and +0 are equal, and an Inf must be the same Inf); a NaN in the
 * stored y requires a NaN (any payload).
 * NaN expected requires NaN; an expected +-Inf must be matched exactly; a
 * NaN or Inf where a finite value is expected is a mismatch with ratio +inf.
 */
#ifndef IOHW_COMPARE_H
#define IOHW_COMPARE_H

#include <stdint.h>

#include "cases/case.h"
#include "results/result.h"

/* Compares y (the backend's output, dtype and data layout of the case) with
 * the stored outputs of a float case (c->y, c->y_f64, c->err_bound must be
 * loaded).
 * sentinel_bits: the bit pattern the harness pre-filled y with (element-size
 * wide), or NULL; elements still equal to it count as unwritten (and as
 * mismatches).  Fills r->exact, elements, mismatches, unwritten,
 * worst_ratio, npoints/points (the first mismatches in memory order, with
 * semantic coordinates) and sets r->status to PASS or FAIL (INVALID, with
 * a message, when the case or y is missing).  judge.h's iohw_compare picks
 * this or iohw_compare_quant by the case's kind. */
void iohw_compare_float(const iohw_case *c, const void *y,
                        const void *sentinel_bits, iohw_result *r);

/* The same for a quantized case (specification section 11.4): y must
 * equal the stored c->y element for element (r->exact is 1, a mismatch's
 * ratio +inf); a FAIL's message says how many elements differ and the
 * first of them. */
void iohw_compare_quant(const iohw_case *c, const void *y,
                        const void *sentinel_bits, iohw_result *r);

/* The same under a declared subnormal flush (`iohw run --subnormals
 * flush`, specification section 3.4): every element's bound grows by what
 * flushing subnormal products, partial sums and the result to zero may
 * change, min(err_bound, (2T + 1) * m) with m the dtype's smallest normal
 * and T terms_max, and an exact fill accepts 0
 * where the stored value is below m in magnitude.  Subnormal inputs are
 * not this function's business: iohw_diagnose_flush_passes re-evaluates
 * the oracle without them. */
void iohw_compare_flushed(const iohw_case *c, const void *y,
                          const void *sentinel_bits, iohw_result *r);

/* The same under a declared rounding (`iohw run --rounding MODE`,
 * specification section 11.6): c is a quantized case and r its
 * iohw_compare_quant FAIL (other results are left alone).  When rounding
 * (IOHW_ROUND_*, 0: none) applies to the case and y equals the case's result under it exactly,
 * differing from the case's own only by one at ties, r becomes a PASS
 * whose message starts IOHW_RESULT_NOTE_ROUNDING and says how many
 * elements differ; its counts and points stay those of the exact rule.
 * Returns 1 then, 0 otherwise. */
int iohw_compare_declared_rounding(const iohw_case *c, const void *y, int32_t rounding,
                                   iohw_result *r);

/* 1 when the case's fill demands bit equality ("exact", "ties"). */
int iohw_compare_is_exact(const iohw_case *c);

#endif
