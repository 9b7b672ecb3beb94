/*
 * judge/diagnose_quant.h - naming the bug behind a failing quantized
 * output (specification section 11).  Internal to harness/ (and its
 * tests); iohw_diagnose_quant() reaches it for a quantized case, and the names
 * and meanings follow the float ones in iohw_diagnose_name() and
 * iohw_diagnose_meaning().
 *
 * The backend's y is compared, bit for bit, with the quantized oracle
 * re-run under each misreading of the definition: a zero point of x or w
 * not subtracted, another rounding mode, zp_y added before rounding, the
 * per-channel M applied along I, no saturation (wrap-around), the bias
 * added after the requantization, the weight's I and O exchanged.
 */
#ifndef IOHW_DIAGNOSE_QUANT_H
#define IOHW_DIAGNOSE_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/quant.h"

/* A quantized case as the diagnosis reads it.  p's dtype is ignored (any
 * float code makes it pass iohw_problem_validate); x and w are in p's data
 * and weight layouts, of q.x_dtype and q.w_dtype. */
typedef struct iohw__dgq_case {
    iohw_problem p;
    iohw_quant q;
    const void *x, *w;
    const int32_t *bias;   /* C_out values when p.has_bias, else NULL */
} iohw__dgq_case;

/* Writes to buf "matches the oracle with A[, or with B]" naming every
 * misreading whose output equals y (in p's data layout, of q.y_dtype),
 * or "" when none does or y equals the oracle.  Returns 1 when a match was
 * found, 0 otherwise (also when the case is too large to diagnose). */
int iohw__dg_quant(const iohw__dgq_case *c, const void *y, char *buf, size_t n);

/* The misreadings: count, name, one-line meaning for a backend author. */
int iohw__dgq_count(void);
const char *iohw__dgq_name(int i);
const char *iohw__dgq_meaning(int i);

#endif
